package client

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// Skipping the sender pass after a quiet append (appendQuiet) or a quiet
// answer (answerQuiet) must change nothing a run can show: the same
// messages at the same virtual times, the same timers firing, the same
// history. Each seed draws a configuration, a workload and a fault script
// (errors, lost requests and answers, held answers, leader moves, broker
// crashes, partitions, metadata outages, a producer crash), over links
// with sub-millisecond random latency so that deadlines fall between
// workload ticks; it runs once with a pass after every event and once
// without, and the two traces must be identical.
func TestQuietPassesChangeNothingARunShows(t *testing.T) {
	skipped, answers, sends, ok := 0, 0, 0, 0
	// Seeds past 150 are kept because they caught a broken condition of
	// answerQuiet: 620 (settled), 1110 (the request's deadline), 1156 (the
	// batch's delivery deadline).
	seeds := []uint64{620, 1110, 1156}
	for seed := uint64(1); seed <= 150; seed++ {
		seeds = append(seeds, seed)
	}
	for _, seed := range seeds {
		slow := runQuietWorld(t, seed, true)
		fast := runQuietWorld(t, seed, false)
		if slow.skipped+slow.answers != 0 {
			t.Fatalf("seed %d: passes skipped with runEveryEvent set", seed)
		}
		if fast.hash != slow.hash || fast.history != slow.history {
			t.Fatalf("seed %d (%s): the run differs without a pass after every event (%d appends, %d answers skipped)\n%s\nhistory with every pass:\n%s\nwithout:\n%s",
				seed, fast.desc, fast.skipped, fast.answers, firstDifference(slow.trace, fast.trace), slow.history, fast.history)
		}
		skipped += fast.skipped
		answers += fast.answers
		sends += fast.sends
		ok += fast.ok
	}
	// The comparison means something only if the skips happened, and they
	// should be most appends and many answers of a producer that sends
	// every few milliseconds.
	if skipped < sends/3 || answers < ok/10 {
		t.Errorf("%d of %d appends and %d answers (%d sends ok) skipped the sender pass, want at least a third of the appends and some answers", skipped, sends, answers, ok)
	}
}

// quietRun is what one run of runQuietWorld showed.
type quietRun struct {
	desc    string
	hash    uint64
	history string
	trace   []sim.TraceEvent
	skipped int // sender passes skipped after appends, over every incarnation
	answers int // and after answers
	sends   int
	ok      int // sends acknowledged
}

func runQuietWorld(t *testing.T, seed uint64, everyEvent bool) quietRun {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0x717569)) // the scenario, drawn alike for both runs
	lat := sim.Latency{Min: time.Duration(50+r.IntN(500)) * time.Microsecond, TailProb: 0.03, Tail: 40 * ms}
	lat.Max = lat.Min + time.Duration(r.IntN(3000))*time.Microsecond
	if r.IntN(3) == 0 {
		// Whole milliseconds, as ticks and linger: answers and deadlines
		// at one instant.
		lat = sim.Fixed(time.Duration(1+r.IntN(2)) * ms)
	}
	s := sim.New(sim.Config{Seed: seed, EventLimit: 3_000_000, Record: true, Link: sim.LinkConfig{Latency: lat}})
	w := &world{t: t, s: s, c: newFakeCluster(1, 2, 3), rec: &model.Recorder{}}
	for _, id := range w.c.brokers {
		s.AddNode(sim.NodeID(id), fmt.Sprintf("b%d", id), func() sim.Node { return &fakeBroker{id: id, c: w.c} })
	}
	w.c.topic("t", 1, 2, 3)

	// Configuration.
	var settings []string
	pick := func(opts ...string) string { return opts[r.IntN(len(opts))] }
	linger := pick("0", "1", "3", "5", "20")
	settings = append(settings, "linger.ms="+linger, "batch.size="+pick("40", "100", "16384"),
		"retry.backoff.ms="+pick("5", "50"), "retry.backoff.max.ms=200")
	// delivery.timeout.ms at least linger.ms + request.timeout.ms, often
	// barely, so that batches expire after retries, in flight or not.
	reqTimeout := []int{40, 200, 1000}[r.IntN(3)]
	settings = append(settings, fmt.Sprintf("request.timeout.ms=%d", reqTimeout),
		fmt.Sprintf("delivery.timeout.ms=%d", reqTimeout+20+[]int{10, 100, 2000}[r.IntN(3)]),
		"metadata.max.age.ms="+pick("300", "300000"))
	switch r.IntN(4) {
	case 0:
		settings = append(settings, "enable.idempotence=false", "acks="+pick("0", "1", "all"),
			"max.in.flight.requests.per.connection="+pick("1", "5"))
	case 1:
		settings = append(settings, "max.in.flight.requests.per.connection=1")
	default: // idempotence, Kafka's default
	}
	kc := cfg(t, settings...)

	// Fake brokers: what each produce request meets.
	pOK := 0.6 + 0.4*r.Float64()
	codes := []model.ErrorCode{model.NotLeaderOrFollower, model.NotEnoughReplicas, model.NotEnoughReplicasAfterAppend,
		model.RequestTimedOut, model.OutOfOrderSequenceNumber, model.UnknownProducerID, model.MessageTooLarge}
	w.c.hold = time.Duration(1+r.IntN(300)) * ms
	br := rand.New(rand.NewPCG(seed, 2)) // drawn in request order, alike while the runs agree
	w.c.produce = func(model.BrokerID, model.ProduceRequest) (action, model.ErrorCode) {
		if br.Float64() < pOK {
			return actOK, 0
		}
		switch br.IntN(5) {
		case 0:
			return actError, codes[br.IntN(len(codes))]
		case 1:
			return actDrop, 0
		case 2:
			return actAppendDrop, 0
		case 3:
			return actTwice, 0
		}
		return actHold, 0
	}
	mdDown := false
	w.c.metadataDown = func(model.BrokerID) bool { return mdDown }

	// Workload: explicit partitions, keys and keyless records.
	n := 100 + r.IntN(400)
	msgs := make([]Message, n)
	for i := range msgs {
		m := Message{Topic: "t", Value: fmt.Sprintf("w%d", i)}
		switch r.IntN(3) {
		case 0:
			m.Partition, m.HasPartition = int32(r.IntN(3)), true
		case 1:
			m.Key = fmt.Sprintf("k%d", r.IntN(20))
		}
		msgs[i] = m
	}
	wl := &listWorkload{msgs: msgs}
	interval := []time.Duration{700 * time.Microsecond, ms, 2 * ms, 3 * ms}[r.IntN(4)]
	var incarnations []*Producer
	opts := ProducerOptions{Bootstrap: w.c.brokers, Config: kc, Recorder: w.rec, Topics: []string{"t"},
		Workload: wl, SendInterval: interval}
	s.AddNode(clientID, "producer", func() sim.Node {
		p := NewProducer(opts)
		p.fast.runEveryEvent = everyEvent
		incarnations = append(incarnations, p)
		return p
	})
	w.startBrokers()
	s.Start(clientID)

	// Faults, at times drawn within the workload's span.
	span := time.Duration(n) * interval
	at := func() time.Duration { return time.Duration(r.Int64N(int64(span))) }
	for k := r.IntN(6); k > 0; k-- {
		when, tp := at(), model.TP("t", int32(r.IntN(3)))
		switch r.IntN(7) {
		case 0, 1: // leadership moves
			to := model.BrokerID(1 + r.IntN(3))
			w.at(when, func() { p := w.c.part(tp); p.leader, p.epoch = to, p.epoch+1 })
		case 2: // no leader for a while
			d := time.Duration(1+r.IntN(200)) * ms
			w.at(when, func() { p := w.c.part(tp); p.leader, p.epoch = model.NoBroker, p.epoch+1 })
			w.at(when+d, func() { p := w.c.part(tp); p.leader, p.epoch = 1, p.epoch+1 })
		case 3: // a broker crashes
			b, d := sim.NodeID(1+r.IntN(3)), time.Duration(1+r.IntN(300))*ms
			w.at(when, func() { crash(s, b) })
			w.at(when+d, func() { restart(s, b) })
		case 4: // the producer is cut from a broker
			b, d := sim.NodeID(1+r.IntN(3)), time.Duration(1+r.IntN(300))*ms
			w.at(when, func() { s.Partition([]sim.NodeID{clientID}, []sim.NodeID{b}) })
			w.at(when+d, func() { s.HealAll() })
		case 5: // metadata goes unanswered
			d := time.Duration(1+r.IntN(500)) * ms
			w.at(when, func() { mdDown = true })
			w.at(when+d, func() { mdDown = false })
		case 6: // the producer crashes and restarts
			d := time.Duration(1+r.IntN(100)) * ms
			w.at(when, func() { crash(s, clientID) })
			w.at(when+d, func() { restart(s, clientID) })
		}
	}
	// Sends from the harness, between the workload's ticks.
	for k := r.IntN(20); k > 0; k-- {
		m := msg("t", int32(r.IntN(3)), fmt.Sprintf("h%d", k))
		w.at(at(), func() {
			if p, up := s.Node(clientID).(*Producer); up {
				p.Send(nil, m)
			}
		})
	}
	w.run(span + 10*time.Second)

	out := quietRun{
		desc:    fmt.Sprintf("%v interval=%v latency=%v..%v", settings, interval, lat.Min, lat.Max),
		hash:    s.Hash(),
		history: dump(w.history()),
		trace:   s.Trace(),
		sends:   len(w.ops(model.FSend)),
	}
	for _, p := range incarnations {
		out.skipped += p.fast.passesSkipped
		out.answers += p.fast.answersSkipped
	}
	for _, op := range w.ops(model.FSend) {
		if op.Type == model.OpOK {
			out.ok++
		}
	}
	return out
}

// crash and restart leave a node as it is when the windows of two faults
// overlap.
func crash(s *sim.Sim, id sim.NodeID) {
	if s.IsUp(id) {
		s.Crash(id)
	}
}

func restart(s *sim.Sim, id sim.NodeID) {
	if !s.IsUp(id) {
		s.Restart(id)
	}
}

// listWorkload hands out its messages in order.
type listWorkload struct {
	msgs []Message
	next int
}

func (l *listWorkload) Next(*sim.Env) (Message, bool) {
	if l.next >= len(l.msgs) {
		return Message{}, false
	}
	l.next++
	return l.msgs[l.next-1], true
}

// firstDifference describes where two traces part.
func firstDifference(a, b []sim.TraceEvent) string {
	for i := range min(len(a), len(b)) {
		if a[i].Hash != b[i].Hash {
			from := max(0, i-3)
			s := fmt.Sprintf("traces part at event %d:\n", i)
			for j := from; j <= i; j++ {
				s += fmt.Sprintf("  every pass: %v\n  quiet:      %v\n", a[j], b[j])
			}
			return s
		}
	}
	return fmt.Sprintf("one trace is a prefix of the other (%d and %d events)", len(a), len(b))
}

// A batch whose linger ends between two workload ticks leaves at its
// deadline, not at the next tick: the tick before the deadline, which was
// to run the sender then, moves the wake to the deadline when it arms the
// next tick, even when its own append needs no sender pass.
func TestProducerLingerBetweenTicks(t *testing.T) {
	s := sim.New(sim.Config{Seed: 1, EventLimit: 2_000_000, Link: sim.LinkConfig{Latency: sim.Fixed(ms)}})
	w := &world{t: t, s: s, c: newFakeCluster(1), rec: &model.Recorder{}}
	s.AddNode(1, "b1", func() sim.Node { return &fakeBroker{id: 1, c: w.c} })
	w.c.topic("t", 1)
	p := w.producer(cfg(t, "linger.ms=3"), func(o *ProducerOptions) {
		o.Workload, o.SendInterval = &countWorkload{n: 40}, 2*ms
	})
	w.run(time.Second)

	invoked := w.sendsOK()
	ps := w.c.produces()
	if len(ps) < 15 {
		t.Fatalf("%d produce requests for 40 records two ms apart with linger.ms=3, want about 20", len(ps))
	}
	for i, r := range ps[1:] { // the first waits for the producer id
		vals := batchValues(r.msg)
		created := invoked[vals[0]]
		if want := created + 3*ms + ms; r.at != want {
			t.Errorf("batch %d %v created at %v reached the broker at %v, want %v (linger 3ms + 1ms link)", i+1, vals, created, r.at, want)
		}
	}
	if p.fast.passesSkipped == 0 {
		t.Errorf("no append skipped the sender pass")
	}
}

// The producer reuses a produce request once its answer is handled, over a
// connection and over links that deliver every message twice, where each
// delivery is the network's own clone (sim.Cloner). Every send is
// acknowledged either way, and every delivery of an attempt carries the
// same records.
func TestProducerReusesItsRequestAlsoOverALinkThatDuplicates(t *testing.T) {
	// dup: none, the requests' link, or the answers' link (an answer is
	// written into its request's room, so a duplicated answer must not
	// read the room reused either).
	for _, dup := range []string{"none", "requests", "answers"} {
		w := newWorld(t, 1)
		w.c.topic("t", 1)
		w.producer(cfg(t, "linger.ms=0", "enable.idempotence=true"), func(o *ProducerOptions) {
			o.Workload, o.SendInterval = &countWorkload{n: 40}, 5*ms
		})
		// Set before the first produce request, which waits for metadata.
		duplicating := sim.LinkConfig{Latency: sim.Latency{Min: ms, Max: 20 * ms}, Datagram: &sim.Datagram{DupProb: 1}}
		switch dup {
		case "requests":
			w.s.SetLink(clientID, 1, duplicating)
		case "answers":
			w.s.SetLink(1, clientID, duplicating)
		}
		w.run(2 * time.Second)
		if got := len(w.sendsOK()); got != 40 {
			t.Fatalf("dup=%v: %d sends ok, want 40", dup, got)
		}
		ps := w.c.produces()
		sameRecordsPerAttempt(t, ps)
		corrs := map[int32]int{}
		for _, r := range ps {
			corrs[r.msg.(model.ProduceRequest).CorrelationID]++
		}
		if dup == "requests" {
			// A duplicate sharing the reused request would arrive as a
			// third delivery of a later attempt.
			for corr, n := range corrs {
				if n != 2 {
					t.Errorf("over a duplicating link: produce corr=%d delivered %d times, want twice", corr, n)
				}
			}
		}
		// The broker sees the producer's own objects unless the requests'
		// link duplicates, which delivers clones only. Latency varies,
		// so a few attempts are in flight at once.
		if attempts, objects := len(corrs), len(w.c.requestObjects); dup != "requests" && (attempts < 30 || objects > 8) {
			t.Errorf("dup=%v: %d attempts in %d objects, want at least 30 in at most 8", dup, attempts, objects)
		}
	}
}

// sameRecordsPerAttempt checks that every delivery of one produce attempt
// (its broker and correlation id: a duplicate, or the original) and of one
// batch (its producer id, epoch and sequence: a retry, or a late first
// attempt) carried the same records, as the fake cluster copied them on
// delivery. It returns how many deliveries repeated an earlier one.
func sameRecordsPerAttempt(t *testing.T, ps []received) int {
	t.Helper()
	type attempt struct {
		broker model.BrokerID
		corr   int32
	}
	byAttempt := map[attempt][]string{}
	byBatch := map[[3]int64][]string{}
	repeats := 0
	for _, r := range ps {
		req := r.msg.(model.ProduceRequest)
		if req.Batch.ProducerID == model.NoProducerID {
			t.Fatalf("produce request %v without a producer id: the test needs idempotence", req)
		}
		vals := batchValues(r.msg)
		a := attempt{r.broker, req.CorrelationID}
		b := [3]int64{int64(req.Batch.ProducerID), int64(req.Batch.ProducerEpoch), int64(req.Batch.BaseSequence)}
		for _, prev := range [][]string{byAttempt[a], byBatch[b]} {
			if prev != nil {
				repeats++
				if !slices.Equal(prev, vals) {
					t.Errorf("b%d got %v at %v, an earlier delivery of the same attempt or batch carried %v", r.broker, vals, r.at, prev)
				}
			}
		}
		byAttempt[a], byBatch[b] = vals, vals
	}
	return repeats
}

// A batch answered after its only attempt hands its records' memory to
// later batches, also over a link that delivers messages twice: a
// duplicate of its request, drawn a longer latency than the original and
// its answer, may still be on its way, and carries what the original did
// because each delivery is the network's own clone (sim.Cloner).
func TestProducerReusesRecordsAlsoOverALinkThatDuplicates(t *testing.T) {
	for _, dup := range []bool{false, true} {
		w := newWorld(t, 1)
		w.c.topic("t", 1)
		w.producer(cfg(t, "linger.ms=0"), func(o *ProducerOptions) {
			o.Workload, o.SendInterval = &countWorkload{n: 200}, ms
		})
		if dup { // before the first produce request, which waits for metadata
			w.s.SetLink(clientID, 1, sim.LinkConfig{Latency: sim.Latency{Min: ms, Max: 20 * ms}, Datagram: &sim.Datagram{DupProb: 1}})
		}
		w.run(2 * time.Second)
		if got := len(w.sendsOK()); got != 200 {
			t.Fatalf("dup=%v: %d sends ok, want 200", dup, got)
		}
		ps := w.c.produces()
		repeats := sameRecordsPerAttempt(t, ps)
		if dup && repeats < len(ps)/2 {
			t.Errorf("over a duplicating link: %d deliveries repeat another of %d, want every attempt twice", repeats, len(ps))
		}
		if reused := w.prod().acc.recsReused; reused == 0 {
			t.Errorf("dup=%v: no batch took a released batch's records", dup)
		}
	}
}

// A retried batch keeps its records to itself even once answered: its
// first attempt, clogged on the way to the old leader and given up after
// request.timeout.ms, still arrives there seconds after the retry was
// acknowledged by the new leader, and must carry the same records. The
// new leader holds its answers for a while, so that several batches are
// in flight at once and later batches take the released batches' records
// several deep, the retried ones' included were they free.
func TestProducerKeepsRecordsAnAttemptInFlightMayRead(t *testing.T) {
	w := newWorld(t, 2)
	w.c.topic("t", 1)
	w.c.hold = 20 * ms
	w.c.produce = func(b model.BrokerID, _ model.ProduceRequest) (action, model.ErrorCode) {
		if b == 2 {
			return actHold, 0
		}
		return actOK, 0
	}
	w.producer(cfg(t, "linger.ms=0", "request.timeout.ms=500", "retry.backoff.ms=10"), func(o *ProducerOptions) {
		o.Workload, o.SendInterval = &countWorkload{n: 200}, 5*ms
	})
	w.at(300*ms, func() {
		w.s.Clog(clientID, 1, 3*time.Second, 20*ms)
		p := w.c.part(model.TP("t", 0))
		p.leader, p.epoch = 2, 2
	})
	w.run(5 * time.Second)
	if got := len(w.sendsOK()); got != 200 {
		t.Fatalf("%d sends ok, want 200", got)
	}
	ps := w.c.produces()
	late := 0
	for _, r := range ps {
		if r.broker == 1 && r.at > 3*time.Second {
			late++
		}
	}
	repeats := sameRecordsPerAttempt(t, ps)
	if late == 0 || repeats < late {
		t.Errorf("%d attempts reached the old leader late, %d deliveries repeat a batch: the test needs late first attempts of batches retried on the new leader", late, repeats)
	}
	if w.prod().acc.recsReused == 0 {
		t.Errorf("no batch took a released batch's records")
	}
}
