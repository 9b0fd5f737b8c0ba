package scenarios

import (
	"fmt"

	"kafkasim/model"
)

// eosStuck is the pipeline's part of convergence: with the source
// stopped, every input record it had acknowledged has its output written
// by a committed transaction (the committed output caught up with the
// input: an ok transaction wrote it, or a reader read it), except on the
// partitions in skip. "" when it holds or the
// fixture has no pipeline.
func (s *Scripted) eosStuck(skip ...model.TopicPartition) string {
	spec := s.EOSSpec()
	if spec == nil {
		return ""
	}
	rec := s.History
	committed := map[string]bool{} // inputs with a committed output
	var inputs []model.Op
	for i := range rec.Len() {
		op := rec.Op(i)
		if op.F == model.FPoll && op.Type == model.OpOK {
			// A read output proves its transaction committed (one whose
			// worker crashed after EndTxn(commit) went out is info).
			for _, pr := range op.Records {
				for _, r := range pr.Records {
					if in, ok := model.PipelineInput(r.Value); ok {
						committed[in] = true
					}
				}
			}
			continue
		}
		if op.F != model.FSend || op.Type != model.OpOK {
			continue
		}
		if op.Txn > 0 {
			if in, ok := model.PipelineInput(op.Value); ok {
				committed[in] = true
			}
			continue
		}
		if op.TP.Topic == spec.Input && !containsTP(skip, op.TP) {
			inputs = append(inputs, op)
		}
	}
	n, first := 0, -1
	for i, op := range inputs {
		if !committed[op.Value] {
			if n == 0 {
				first = i
			}
			n++
		}
	}
	if n == 0 {
		return ""
	}
	op := inputs[first]
	return fmt.Sprintf("%d acknowledged input records without a committed output (the first: %s at %v %d): the pipeline has not caught up", n, op.Value, op.TP, op.Offset)
}
