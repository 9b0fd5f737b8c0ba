package model

import "strings"

// A consume-transform-produce pipeline (KIP-447) writes, for each input
// record it consumes, one output record whose value is the input's
// transformed: the worker (nodes/client's Pipeline) and the exactly-once
// checker (checkers/exactlyonce.go) agree on the transform through these.
// Input values are unique within a run, so output values are too.

const pipelineOutputPrefix, pipelineOutputSuffix = "eos(", ")"

// PipelineOutput is the output value a pipeline writes for an input value.
func PipelineOutput(input string) string {
	return pipelineOutputPrefix + input + pipelineOutputSuffix
}

// PipelineInput is the input value behind an output value, false when the
// value is not one a pipeline wrote.
func PipelineInput(output string) (string, bool) {
	in, ok := strings.CutPrefix(output, pipelineOutputPrefix)
	if !ok {
		return "", false
	}
	return strings.CutSuffix(in, pipelineOutputSuffix)
}
