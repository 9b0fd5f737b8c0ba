package model

import (
	"strconv"
	"strings"
)

// A consume-transform-produce pipeline (KIP-447) writes, for each input
// record it consumes, one output record whose value names the input's:
// the worker (nodes/client's Pipeline) and the exactly-once checker
// (checkers/exactlyonce.go) agree on the transform through these. A
// record consumed again after an abort is written again, so the output
// value also names the transaction that wrote it ("eos(in7)/12"): values
// stay unique within a run, as every check of the history needs.

const pipelineOutputPrefix, pipelineOutputSep = "eos(", ")/"

// PipelineOutput is the output value transaction txn (model.Op.Txn)
// writes for an input value.
func PipelineOutput(input string, txn int) string {
	return pipelineOutputPrefix + input + pipelineOutputSep + strconv.Itoa(txn)
}

// PipelineInput is the input value behind an output value, false when the
// value is not one a pipeline wrote.
func PipelineInput(output string) (string, bool) {
	rest, ok := strings.CutPrefix(output, pipelineOutputPrefix)
	if !ok {
		return "", false
	}
	i := strings.LastIndex(rest, pipelineOutputSep)
	if i < 0 {
		return "", false
	}
	if _, err := strconv.Atoi(rest[i+len(pipelineOutputSep):]); err != nil {
		return "", false
	}
	return rest[:i], true
}
