package client

import (
	"fmt"
	"strings"
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

// With SendBurst, each tick takes that many records from the workload, all
// invoked at the tick, and the ticks keep SendInterval apart. A workload
// that ends partway through a burst ends the ticking there: Next is not
// called again, and the last batch still leaves at its linger deadline.
func TestProducerSendsABurstEachTick(t *testing.T) {
	for _, n := range []int{30, 31} {
		t.Run(fmt.Sprintf("%d records", n), func(t *testing.T) {
			s := sim.New(sim.Config{Seed: 1, EventLimit: 2_000_000, Record: true,
				Link: sim.LinkConfig{Latency: sim.Fixed(time.Millisecond)}})
			w := &world{t: t, s: s, c: newFakeCluster(1), rec: &model.Recorder{}}
			s.AddNode(1, "b1", func() sim.Node { return &fakeBroker{id: 1, c: w.c} })
			w.c.topic("t", 1)
			wl := &countWorkload{n: n}
			w.producer(cfg(t, "linger.ms=5"), func(o *ProducerOptions) {
				o.Workload, o.SendInterval, o.SendBurst = wl, 2*ms, 2
			})
			w.run(time.Second)

			invoked := w.sendsOK()
			if len(invoked) != n {
				t.Fatalf("%d sends ok, want %d", len(invoked), n)
			}
			first := invoked["w1"]
			for i := 1; i <= n; i++ {
				want := first + time.Duration((i-1)/2)*2*ms
				if at := invoked[fmt.Sprintf("w%d", i)]; at != want {
					t.Errorf("w%d invoked at %v, want %v (two a tick, a tick every 2ms)", i, at, want)
				}
			}
			// The workload said no once, on the call after the last record
			// (within the last burst for an odd count), and was not asked again.
			if wl.calls != n+1 {
				t.Errorf("workload asked %d times for %d records, want %d", wl.calls, n, n+1)
			}
			produced := 0
			for _, r := range w.c.produces() {
				produced += len(batchValues(r.msg))
			}
			if produced != n {
				t.Errorf("%d records produced, want %d", produced, n)
			}
		})
	}
}

// NewProducer rejects a workload it cannot pace: no SendInterval, or a
// negative SendBurst, naming what is wrong.
func TestNewProducerRejectsABadPace(t *testing.T) {
	for _, c := range []struct {
		interval time.Duration
		burst    int
		want     string
	}{
		{0, 1, "positive SendInterval"},
		{ms, -1, "SendBurst -1 is negative"},
	} {
		func() {
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.Contains(msg, c.want) {
					t.Errorf("interval %v burst %d: panic %q, want one naming %q", c.interval, c.burst, msg, c.want)
				}
			}()
			NewProducer(ProducerOptions{Bootstrap: []model.BrokerID{1}, Config: model.DefaultConfig(),
				Workload: &countWorkload{n: 1}, SendInterval: c.interval, SendBurst: c.burst})
		}()
	}
}
