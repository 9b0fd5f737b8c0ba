package client_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"kafkasim/internal/transcript"
	"kafkasim/model"
	"kafkasim/nodes/broker"
	"kafkasim/sim"
)

// TestTranscripts plays testdata/*: the end-to-end group world of
// group_cluster_test.go (three brokers hosting the group coordinator, a
// topic t of six partitions, a producer, and real group members member0,
// member1, ... of group g), whose links deliver by themselves; the driver
// prints what they delivered (docs/testing.md, "Transcript tests").
// Besides the driver's steps:
//
//	start members=N [SETTING=VALUE...]  build the world (groupConfig with
//	                                    range and Kafka's settings by name)
//	                                    and run it until the cluster is ready
//	status                              the coordinator's view of g and each
//	                                    member's generation and assignment
func TestTranscripts(t *testing.T) { transcript.Walk(t, "testdata", startGroupTranscript) }

type groupTranscript struct {
	d  *transcript.Driver
	gc *groupCluster
}

func startGroupTranscript(t *testing.T, td *datadriven.TestData) (*transcript.Driver, transcript.Step) {
	var members int
	td.ScanArgs(t, "members", &members)
	kc := groupConfig(t, model.AssignRange)
	transcript.Settings(t, td, &kc, "members")
	gc := newGroupClusterOn(t, kc, members, nil, sim.Config{Record: true})
	w := &groupTranscript{d: transcript.New(gc.Sim), gc: gc}
	w.d.Printf("ready at %v", gc.Sim.Now())
	return w.d, w.step
}

func (w *groupTranscript) step(t *testing.T, td *datadriven.TestData) (string, bool) {
	if td.Cmd != "status" {
		return "", false
	}
	w.status()
	return "", true
}

// status prints the group as its coordinator holds it, then each member
// as it sees itself.
func (w *groupTranscript) status() {
	part := broker.PartitionFor("g", w.gc.Config.Group.OffsetsTopicPartitions)
	for _, id := range w.gc.Brokers {
		b, ok := w.gc.Sim.Node(sim.NodeID(id)).(*broker.Broker)
		if !ok || b.Coordinator(part) == nil {
			continue
		}
		g, ok := b.Coordinator(part).Group("g")
		if !ok {
			w.d.Printf("coordinator %v: no group g", id)
			continue
		}
		w.d.Printf("coordinator %v: g %s generation=%d leader=%s", id, g.State, g.Generation, g.Leader)
		for _, m := range g.Members {
			w.d.Printf("  %s assignment=%v", m.ID, m.Assignment)
		}
	}
	for _, id := range w.gc.members {
		if !w.gc.Sim.IsUp(id) {
			w.d.Printf("%s: down", w.gc.Sim.Name(id))
			continue
		}
		m := w.gc.member(id)
		w.d.Printf("%s: member=%s generation=%d assignment=%s", w.gc.Sim.Name(id), m.MemberID(), m.Generation(), tps(m.Assignment()))
	}
}

func tps(ps []model.TopicPartition) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return fmt.Sprintf("[%s]", strings.Join(s, " "))
}
