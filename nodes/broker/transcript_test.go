package broker

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"kafkasim/internal/transcript"
	"kafkasim/model"
	"kafkasim/sim"
)

// TestTranscripts plays testdata/*: three real brokers b1, b2, b3
// replicating t/0 under the scripted controller of the other tests
// (fakeController), with a client that sends produce requests. Links
// take 1ms and deliver by themselves; the driver prints what they
// delivered (docs/testing.md, "Transcript tests"). Besides the driver's
// steps:
//
//	start [SETTING=VALUE...]      build the world: testConfig with Kafka's
//	                              settings by name; b1 leads t/0 in epoch 0
//	produce VALUE... [to=bN] [acks=all|1]
//	                              one produce request a value (default: to
//	                              the leader, acks=all)
//	elect bN [isr=(bX, ...)]      the controller makes bN leader in the next
//	                              leader epoch and tells every broker
//	status                        each broker's view of t/0 and its log
func TestTranscripts(t *testing.T) { transcript.Walk(t, "testdata", startBrokerTranscript) }

type brokerTranscript struct {
	d *transcript.Driver
	r *rig
}

func startBrokerTranscript(t *testing.T, td *datadriven.TestData) (*transcript.Driver, transcript.Step) {
	kc := testConfig()
	transcript.Settings(t, td, &kc)
	r := newRigOn(t, kc, sim.Config{Record: true})
	w := &brokerTranscript{d: transcript.New(r.s), r: r}
	return w.d, w.step
}

func (w *brokerTranscript) step(t *testing.T, td *datadriven.TestData) (string, bool) {
	switch td.Cmd {
	case "produce":
		w.produce(t, td)
	case "elect":
		w.elect(t, td)
	case "status":
		w.status()
	default:
		return "", false
	}
	return "", true
}

func (w *brokerTranscript) broker(t *testing.T, name string) model.BrokerID {
	return model.BrokerID(w.d.Node(t, name))
}

func (w *brokerTranscript) produce(t *testing.T, td *datadriven.TestData) {
	to, acks := w.r.ctl.state.Leader, model.AcksAll
	var values []string
	for _, a := range td.CmdArgs {
		switch a.Key {
		case "to":
			to = w.broker(t, a.SingleVal(t))
		case "acks":
			if err := acks.UnmarshalText([]byte(a.SingleVal(t))); err != nil {
				t.Fatalf("%s: %v", td.Pos, err)
			}
		default:
			values = append(values, a.Key)
		}
	}
	for _, v := range values {
		w.r.produce(w.r.s.Now(), to, acks, v)
	}
	w.r.s.Run(w.r.s.Now())
}

// elect is the controller's leader election as the broker sees it: a new
// leader epoch and partition epoch in a metadata update
// (PartitionChangeBuilder's result, published to every broker).
func (w *brokerTranscript) elect(t *testing.T, td *datadriven.TestData) {
	ctl := w.r.ctl
	ctl.state.Leader = w.broker(t, td.CmdArgs[0].Key)
	if a, ok := td.Arg("isr"); ok {
		ctl.state.ISR = nil
		for _, v := range a.Vals {
			ctl.state.ISR = append(ctl.state.ISR, w.broker(t, v))
		}
	}
	ctl.state.LeaderEpoch++
	ctl.state.PartitionEpoch++
	ctl.offset++
	w.d.Do("elect", func() {
		for _, b := range ctl.brokers {
			w.r.s.SendAs(controllerID, sim.NodeID(b), ctl.update(false))
		}
	})
	w.d.Printf("controller: %v", ctl.state)
}

// status prints each broker's replica of t/0: role, leader epoch, log
// end, high watermark, the ISR a leader holds, and every record as
// offset:value@epoch.
func (w *brokerTranscript) status() {
	for _, id := range w.r.ctl.brokers {
		if !w.r.s.IsUp(sim.NodeID(id)) {
			w.d.Printf("%v: down", id)
			continue
		}
		v := w.r.replica(id)
		role := "follower"
		if v.Leader {
			role = "leader"
		}
		var recs []string
		for _, b := range v.Log.Read(v.LogStart, 1<<30) {
			for _, r := range b.Records {
				recs = append(recs, fmt.Sprintf("%d:%s@%d", r.Offset, r.Value, b.LeaderEpoch))
			}
		}
		isr := ""
		if v.Leader {
			isr = fmt.Sprintf(" isr=%v", v.ISR)
		}
		w.d.Printf("%v: %s epoch=%d leo=%d hw=%d%s log=[%s]", id, role, v.LeaderEpoch, v.LEO, v.HW, isr, strings.Join(recs, " "))
	}
}
