package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"kafkasim/model"
)

// partitionProgress is the liveness phase's per-partition condition: after
// the heal, every partition the fixture has must have taken an
// acknowledged write and served it to a reader. A cluster-wide "some send
// succeeded, everything acknowledged was read" is fooled by one partition
// that stays stuck (no leader able to take writes, a fetcher that never
// resumes) while the others carry the workload: nothing acknowledged is
// unread on the stuck partition because nothing was acknowledged there.
type partitionProgress struct {
	since time.Duration // the heal: sends invoked from then on count
	// want is every partition the fixture has, in its order; produced
	// says which of them a producer of the fixture writes to, so that a
	// partition no producer covers is named as such instead of as stuck.
	want     []model.TopicPartition
	produced map[model.TopicPartition]bool
	// acked are, per partition, the values of acknowledged sends invoked
	// since the heal, in the order the watch saw them settle.
	acked map[model.TopicPartition][]string
}

func newPartitionProgress(since time.Duration, want, produced []model.TopicPartition) *partitionProgress {
	p := &partitionProgress{since: since, want: slices.Clone(want), produced: map[model.TopicPartition]bool{}, acked: map[model.TopicPartition][]string{}}
	for _, tp := range produced {
		p.produced[tp] = true
	}
	return p
}

// sendAcked takes in one acknowledged send and the time it was invoked.
func (p *partitionProgress) sendAcked(s ackedSend, invoked time.Duration) {
	if invoked >= p.since {
		p.acked[s.tp] = append(p.acked[s.tp], s.value)
	}
}

// unproduced names the partitions no producer of the fixture writes to:
// a scenario whose workload leaves one out cannot show it making
// progress, which is the scenario's mistake, not the cluster's.
func (p *partitionProgress) unproduced() string {
	var out []string
	for _, tp := range p.want {
		if !p.produced[tp] {
			out = append(out, tp.String())
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "no producer writes to " + strings.Join(out, ", ") + " (the scenario must cover every partition)"
}

// unacked names the partitions that have had no acknowledged send since
// the heal, "" when every one has; the partitions in skip are not asked
// about.
func (p *partitionProgress) unacked(skip ...model.TopicPartition) string {
	var out []string
	for _, tp := range p.want {
		if len(p.acked[tp]) == 0 && !slices.Contains(skip, tp) {
			out = append(out, tp.String())
		}
	}
	return describeStuck(out, "no send made after the heal has been acknowledged on")
}

// unread names the partitions none of whose acknowledged sends since the
// heal any reader has read, "" when every partition has served one; the
// partitions in skip are not asked about.
func (p *partitionProgress) unread(read map[string]bool, skip ...model.TopicPartition) string {
	var out []string
	for _, tp := range p.want {
		if !slices.Contains(skip, tp) && !slices.ContainsFunc(p.acked[tp], func(v string) bool { return read[v] }) {
			out = append(out, tp.String())
		}
	}
	return describeStuck(out, "no record written after the heal has been read from")
}

// describeStuck joins the stuck partitions after what they lack, the first
// five and a count beyond.
func describeStuck(tps []string, what string) string {
	switch {
	case len(tps) == 0:
		return ""
	case len(tps) > 5:
		return fmt.Sprintf("%s %d partitions (%s, ...)", what, len(tps), strings.Join(tps[:5], ", "))
	}
	return what + " " + strings.Join(tps, ", ")
}
