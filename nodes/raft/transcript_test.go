package raft

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"kafkasim/internal/transcript"
	"kafkasim/model"
	"kafkasim/sim"
)

// TestTranscripts plays testdata/*: three voters b1, b2, b3 whose
// messages wait for a deliver step (docs/testing.md, "Transcript tests").
// Links have no latency, so a message arrives, and is printed, the
// instant it is sent. Besides the driver's steps:
//
//	start                   build the world, the voters freshly started
//	propose NODE VALUE...   the node proposes the values as one batch
//	status [NODE...]        each node's role, epoch, leader, log end,
//	                        high watermark and applied values
func TestTranscripts(t *testing.T) { transcript.Walk(t, "testdata", startTranscriptQuorum) }

// transcriptQuorum is the world of one transcript: hosts (the same as
// the other tests drive) whose messages the driver holds.
type transcriptQuorum struct {
	d *transcript.Driver
	w *world // what the hosts report failures to
}

func startTranscriptQuorum(t *testing.T, td *datadriven.TestData) (*transcript.Driver, transcript.Step) {
	s := sim.New(sim.Config{Seed: 1, EventLimit: 1_000_000, Record: true, Link: sim.LinkConfig{Latency: sim.Fixed(0)}})
	q := &transcriptQuorum{d: transcript.New(s), w: &world{t: t, s: s}}
	voters := []model.BrokerID{1, 2, 3}
	for _, id := range voters {
		cfg := Config{ID: id, Voters: voters, Dir: "__cluster_metadata-0/"}
		s.AddNode(sim.NodeID(id), id.String(), q.d.Hold(func() sim.Node { return &host{cfg: cfg, w: q.w} }))
	}
	for _, id := range s.Nodes() {
		s.Start(id)
	}
	return q.d, q.step
}

func (q *transcriptQuorum) step(t *testing.T, td *datadriven.TestData) (string, bool) {
	switch td.Cmd {
	case "propose":
		q.propose(t, td)
	case "status":
		q.status(t, td)
	default:
		return "", false
	}
	for _, f := range q.w.failures {
		q.d.Printf("FAILED %s", f)
	}
	q.w.failures = nil
	return "", true
}

// host is the live host of a node, nil while it is down.
func (q *transcriptQuorum) host(id sim.NodeID) *host {
	h, _ := transcript.Inner(q.d.Sim.Node(id)).(*host)
	return h
}

func (q *transcriptQuorum) propose(t *testing.T, td *datadriven.TestData) {
	if len(td.CmdArgs) < 2 {
		t.Fatalf("%s: propose NODE VALUE...", td.Pos)
	}
	id := q.d.Node(t, td.CmdArgs[0].Key)
	h := q.host(id)
	if h == nil {
		q.d.Printf("%s is down", q.d.Sim.Name(id))
		return
	}
	var entries [][]byte
	for _, a := range td.CmdArgs[1:] {
		entries = append(entries, []byte(a.Key))
	}
	q.d.Do("propose", func() {
		if off, ok := h.r.Propose(h.env, entries); ok {
			q.d.Printf("proposed at offset %d", off)
		} else {
			q.d.Printf("refused: %s is not a usable leader", q.d.Sim.Name(id))
		}
	})
}

// status prints one line a node, through the Raft's exported view.
func (q *transcriptQuorum) status(t *testing.T, td *datadriven.TestData) {
	ids := q.d.Sim.Nodes()
	if len(td.CmdArgs) > 0 {
		ids = ids[:0]
		for _, a := range td.CmdArgs {
			ids = append(ids, q.d.Node(t, a.Key))
		}
	}
	for _, id := range ids {
		h := q.host(id)
		if h == nil {
			q.d.Printf("%s: down", q.d.Sim.Name(id))
			continue
		}
		r := h.r
		leader, epoch := r.Leader()
		var applied []string
		for i, v := range h.sm.values {
			applied = append(applied, fmt.Sprintf("%d:%s", h.sm.offsets[i], v))
		}
		q.d.Printf("%s: %s epoch=%d leader=%v end=%d hw=%d applied=[%s]", q.d.Sim.Name(id), r.Role(), epoch, leader,
			r.EndOffset(), r.HighWatermark(), strings.Join(applied, " "))
	}
}
