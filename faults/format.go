package faults

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"time"
)

// String writes f as one line of a schedule file, without a newline:
// "at 12s crash leader-of t/0", "from 20s to 40s partition isolate
// controller". Parse reads it back to the same Fault.
func (f Fault) String() string {
	var b strings.Builder
	if f.On != nil {
		b.WriteString("on " + f.On.Event + " " + f.On.TP.String() + " after " + f.At.String() + " ")
		if f.On.For > 0 {
			b.WriteString("for " + f.On.For.String() + " ")
		}
	} else if f.Windowed() {
		b.WriteString("from " + f.At.String() + " to " + f.End.String() + " ")
	} else {
		b.WriteString("at " + f.At.String() + " ")
	}
	b.WriteString(f.What())
	return b.String()
}

// What is f without its time: "crash leader-of t/0".
func (f Fault) What() string {
	spec := specs[f.Kind]
	var b strings.Builder
	if spec.partition {
		b.WriteString("partition")
		if f.Kind != KindSplit {
			b.WriteString(" " + string(f.Kind))
		}
	} else {
		b.WriteString(string(f.Kind))
	}
	switch spec.args {
	case argsNode, argsBroker:
		b.WriteString(" " + f.Target.String())
	case argsTwo:
		b.WriteString(" " + f.Target.String() + " " + f.Peer.String())
	case argsTP:
		b.WriteString(" " + f.TP.String())
	case argsReassign:
		b.WriteString(" " + f.TP.String() + " to " + replicaList(f.Replicas))
	case argsCreateTopic, argsTopic, argsAddPartitions, argsAlterConfig:
		b.WriteString(f.topicWhat(spec))
	case argsRounds:
		b.WriteString(" " + itoa32(f.Count))
	case argsGroups:
		for i, g := range f.Groups {
			if i > 0 {
				b.WriteString(" |")
			}
			for j, s := range g {
				if j > 0 {
					b.WriteString(",")
				}
				b.WriteString(" " + s.String())
			}
		}
	}
	if spec.scope && f.Scope != ScopeServers {
		b.WriteString(" from " + f.Scope.String())
	}
	switch spec.amount {
	case amountExtra, amountSigned:
		b.WriteString(" " + signed(f.Delay))
	case amountDelay:
		b.WriteString(" " + f.Delay.String())
	case amountRate:
		r := strconv.FormatFloat(f.Rate, 'g', -1, 64)
		if !strings.HasPrefix(r, "-") {
			r = "+" + r
		}
		b.WriteString(" " + r)
	}
	return b.String()
}

// signed writes a duration with an explicit sign, "+200ms" or "-5s", so a
// reader sees at a glance that it is added (a delay) or a step (a skew).
func signed(d time.Duration) string {
	if d < 0 {
		return d.String()
	}
	return "+" + d.String()
}

// Format writes s as a schedule file, one fault a line.
func Format(w io.Writer, s Schedule) error {
	bw := bufio.NewWriter(w)
	for _, f := range s {
		bw.WriteString(f.String())
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// String is s as a schedule file.
func (s Schedule) String() string {
	var b strings.Builder
	Format(&b, s)
	return b.String()
}
