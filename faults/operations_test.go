package faults

import (
	"strings"
	"testing"
)

func TestParseOperationsRoundTrip(t *testing.T) {
	for _, line := range []string{
		"at 20s elect-preferred t/0",
		"at 20s elect-unclean t/1",
		"at 30s reassign t/0 to b1,b2,b4",
		"at 35s cancel-reassign t/0",
	} {
		s, err := Parse(strings.NewReader(line), "ops")
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if got := s[0].String(); got != line {
			t.Errorf("%q formats as %q", line, got)
		}
	}
}

func TestParseOperationsRefusesBadLines(t *testing.T) {
	for line, want := range map[string]string{
		"at 1s reassign t/0":                `ops:1: reassign: want "to b1,b2,..."`,
		"at 1s reassign t/0 to":             "ops:1: reassign: bad replica end of line",
		"at 1s reassign t/0 to b1,x":        `ops:1: reassign: bad replica "x"`,
		"at 1s reassign t/0 to b1,b1":       "named twice",
		"at 1s elect-preferred":             "ops:1:",
		"from 1s to 2s elect-preferred t/0": "instantaneous",
		"at 1s elect-unclean t/0 b2":        `unexpected "b2"`,
	} {
		_, err := Parse(strings.NewReader(line), "ops")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", line, err, want)
		}
	}
}
