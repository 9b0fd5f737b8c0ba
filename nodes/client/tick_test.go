package client

import (
	"fmt"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// A producer fed by a workload every millisecond needs no wake timer for
// its lingering batches: the tick at the linger deadline sends the batch,
// before it appends its own record, which starts the next batch, exactly
// as a wake fired just before the tick would. Once the workload ends, a
// wake sends the last batch at its linger deadline.
func TestProducerLingerRidesTheWorkloadTick(t *testing.T) {
	s := sim.New(sim.Config{Seed: 1, EventLimit: 2_000_000, Record: true,
		Link: sim.LinkConfig{Latency: sim.Fixed(time.Millisecond)}})
	w := &world{t: t, s: s, c: newFakeCluster(1), rec: &model.Recorder{}}
	s.AddNode(1, "b1", func() sim.Node { return &fakeBroker{id: 1, c: w.c} })
	w.c.topic("t", 1)
	wl := &countWorkload{n: 30}
	w.producer(cfg(t, "linger.ms=5"), func(o *ProducerOptions) {
		o.Workload, o.SendInterval = wl, ms
	})
	w.run(time.Second)

	invoked := w.sendsOK()
	if len(invoked) != 30 {
		t.Fatalf("%d sends, want 30", len(invoked))
	}
	ps := w.c.produces()
	total := 0
	for i, r := range ps {
		vals := batchValues(r.msg)
		total += len(vals)
		if i == 0 {
			continue // it waits for the producer id, past its linger
		}
		created := invoked[vals[0]]
		// Every record sent within linger.ms of the batch's first, and
		// none sent later, is in it; it left at the linger deadline.
		for _, v := range vals {
			if at := invoked[v]; at >= created+5*ms {
				t.Errorf("batch %d %v holds %s sent at %v, after its linger deadline %v", i, vals, v, at, created+5*ms)
			}
		}
		if i+1 < len(ps) {
			if next := invoked[batchValues(ps[i+1].msg)[0]]; next < created+5*ms {
				t.Errorf("batch %d %v left without %v sent at %v", i, vals, batchValues(ps[i+1].msg)[0], next)
			}
		}
		if r.at != created+5*ms+ms {
			t.Errorf("batch %d %v created %v reached the broker at %v, want %v (linger 5ms + 1ms link)", i, vals, created, r.at, created+6*ms)
		}
	}
	if total != 30 {
		t.Errorf("%d records produced, want 30", total)
	}
	last := invoked[fmt.Sprintf("w%d", 30)]
	wakes := 0
	for _, e := range s.Trace() {
		if e.Node == clientID && e.Kind == "fire" && e.Detail == timerWake+"(0)" {
			wakes++
			if e.Time <= last {
				t.Errorf("wake timer fired at %v while the workload still ticked (last send %v)", e.Time, last)
			}
		}
	}
	if wakes == 0 {
		t.Errorf("no wake after the workload ended: the last batch should leave at its linger deadline")
	}
}
