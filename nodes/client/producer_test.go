package client

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

const ms = time.Millisecond

// Records that arrive within linger.ms of the first go out as one batch,
// when the first has lingered linger.ms; each record's offset is the batch's
// base offset plus its index.
func TestProducerBatchesByLinger(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	w.producer(cfg(t, "linger.ms=10"), nil)
	for i, at := range []time.Duration{5 * ms, 6 * ms, 7 * ms} {
		w.send(at, msg("t", 0, fmt.Sprintf("v%d", i)))
	}
	w.send(40*ms, msg("t", 0, "v3"))
	w.run(time.Second)

	ps := w.c.produces()
	if len(ps) != 2 {
		t.Fatalf("got %d produce requests, want 2 (one per linger window)", len(ps))
	}
	if got := batchValues(ps[0].msg); !slices.Equal(got, []string{"v0", "v1", "v2"}) {
		t.Errorf("first batch %v, want [v0 v1 v2]", got)
	}
	// Created at 5 ms, it lingers until 15 ms, then 1 ms on the wire.
	if ps[0].at != 16*ms {
		t.Errorf("first batch reached the broker at %v, want 16ms (created 5ms + linger 10ms + 1ms link)", ps[0].at)
	}
	if ps[1].at != 51*ms {
		t.Errorf("second batch reached the broker at %v, want 51ms", ps[1].at)
	}
	for i := 0; i < 4; i++ {
		op := w.sendOp(fmt.Sprintf("v%d", i))
		if op.Type != model.OpOK || op.Offset != model.Offset(i) || op.TP != model.TP("t", 0) {
			t.Errorf("send v%d: %s, want ok at t/0 offset %d", i, op.String(), i)
		}
	}
	if op := w.sendOp("v0"); op.Time != 5*ms || op.End != 17*ms {
		t.Errorf("send v0 invoked %v completed %v, want 5ms and 17ms", op.Time, op.End)
	}
}

// A batch that cannot take the next record is full and leaves at once,
// without waiting for linger.ms.
func TestProducerBatchesByBatchSize(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	// 61 bytes of batch overhead + 10 bytes per record ("vN", no key):
	// three records fit in 100 bytes, the fourth starts a new batch.
	w.producer(cfg(t, "linger.ms=1000", "batch.size=100"), nil)
	for i := 0; i < 4; i++ {
		w.send(5*ms, msg("t", 0, fmt.Sprintf("v%d", i)))
	}
	w.run(3 * time.Second)

	ps := w.c.produces()
	if len(ps) != 2 {
		t.Fatalf("got %d produce requests, want 2", len(ps))
	}
	if got := batchValues(ps[0].msg); !slices.Equal(got, []string{"v0", "v1", "v2"}) || ps[0].at != 6*ms {
		t.Errorf("first batch %v at %v, want [v0 v1 v2] at 6ms (full, not lingering)", got, ps[0].at)
	}
	if got := batchValues(ps[1].msg); !slices.Equal(got, []string{"v3"}) || ps[1].at != 1006*ms {
		t.Errorf("second batch %v at %v, want [v3] at 1006ms (lingered)", got, ps[1].at)
	}
}

// NOT_LEADER_OR_FOLLOWER makes the producer refresh metadata; the retry
// goes to the new leader, without waiting out its backoff because the
// leader epoch moved (KIP-951), and keeps its sequence.
func TestProducerRetryGoesToNewLeader(t *testing.T) {
	w := newWorld(t, 2)
	w.c.topic("t", 1)
	w.c.produce = func(b model.BrokerID, r model.ProduceRequest) (action, model.ErrorCode) {
		if b == 1 {
			// Leadership has moved to b2, as b1 says.
			p := w.c.part(r.TP)
			p.leader, p.epoch = 2, 2
			return actError, model.NotLeaderOrFollower
		}
		return actOK, 0
	}
	w.producer(cfg(t, "linger.ms=0", "retry.backoff.ms=100"), nil)
	w.send(500*ms, msg("t", 0, "v0"))
	w.run(2 * time.Second)

	ps := w.c.produces()
	if len(ps) != 2 || ps[0].broker != 1 || ps[1].broker != 2 {
		t.Fatalf("produce requests went to %v, want b1 then b2", brokersOf(ps))
	}
	r0, r1 := ps[0].msg.(model.ProduceRequest), ps[1].msg.(model.ProduceRequest)
	if r0.Batch.BaseSequence != 0 || r1.Batch.BaseSequence != 0 || r0.Batch.ProducerEpoch != r1.Batch.ProducerEpoch {
		t.Errorf("retry changed the batch's identity: %v then %v", r0, r1)
	}
	// Refused at 502 ms, refresh asked at 503 ms and answered at 504 ms;
	// the retry leaves at once instead of after ~100 ms of backoff.
	var refresh time.Duration
	for _, r := range w.c.received {
		if _, ok := r.msg.(model.MetadataRequest); ok && r.at > ps[0].at {
			refresh = r.at
			break
		}
	}
	if refresh == 0 || refresh > ps[1].at {
		t.Errorf("no metadata refresh between the refusal (%v) and the retry (%v)", ps[0].at, ps[1].at)
	}
	if ps[1].at != refresh+2*ms {
		t.Errorf("retry reached the new leader at %v, want %v (right after the refresh)", ps[1].at, refresh+2*ms)
	}
	if op := w.sendOp("v0"); op.Type != model.OpOK || op.Offset != 0 {
		t.Errorf("send: %s, want ok at offset 0", op.String())
	}
}

// A write whose requests time out may have been appended: when its
// delivery.timeout.ms passes it is info, not fail. One that never left the
// producer (no leader), or that every leader refused before appending, is
// fail.
func TestProducerDeliveryTimeoutOutcome(t *testing.T) {
	cases := []struct {
		name       string
		leader     model.BrokerID
		act        action
		code       model.ErrorCode
		want       model.OpType
		wantReason string
		minSends   int
	}{
		{"requests lost", 1, actDrop, 0, model.OpInfo, "timeout after REQUEST_TIMED_OUT", 2},
		{"no leader: never sent", model.NoBroker, actOK, 0, model.OpFail, "timeout", 0},
		{"refused before append", 1, actError, model.NotEnoughReplicas, model.OpFail, "timeout after NOT_ENOUGH_REPLICAS", 2},
		{"refused after append", 1, actError, model.NotEnoughReplicasAfterAppend, model.OpInfo, "timeout after NOT_ENOUGH_REPLICAS_AFTER_APPEND", 2},
		{"not leader under acks=all", 1, actError, model.NotLeaderOrFollower, model.OpInfo, "timeout after NOT_LEADER_OR_FOLLOWER", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 1)
			w.c.topic("t", tc.leader)
			w.c.produce = func(model.BrokerID, model.ProduceRequest) (action, model.ErrorCode) { return tc.act, tc.code }
			w.producer(cfg(t, "linger.ms=0", "request.timeout.ms=1000", "delivery.timeout.ms=3000"), nil)
			w.send(5*ms, msg("t", 0, "v0"))
			w.run(10 * time.Second)

			op := w.sendOp("v0")
			if op.Type != tc.want || op.Error != tc.wantReason {
				t.Errorf("send: %s (%q), want %s (%q)", op.String(), op.Error, tc.want, tc.wantReason)
			}
			if op.End != 3005*ms {
				t.Errorf("send completed at %v, want 3005ms (invoked at 5ms + delivery.timeout.ms)", op.End)
			}
			if n := len(w.c.produces()); n < tc.minSends || (tc.minSends == 0 && n != 0) {
				t.Errorf("%d produce requests, want at least %d", n, tc.minSends)
			}
		})
	}
}

// With idempotence a batch keeps its producer id, epoch and sequence across
// retries, so a leader that already appended it answers with the original
// offset: the lost answer costs no duplicate.
func TestProducerIdempotentRetryKeepsSequence(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	lost := false
	w.c.produce = func(_ model.BrokerID, r model.ProduceRequest) (action, model.ErrorCode) {
		if r.Batch.Records[0].Value == "v1" && !lost {
			lost = true
			return actAppendDrop, 0
		}
		return actOK, 0
	}
	w.producer(cfg(t, "linger.ms=0", "request.timeout.ms=1000"), nil)
	for i := 0; i < 3; i++ {
		w.send(time.Duration(5+i)*ms, msg("t", 0, fmt.Sprintf("v%d", i)))
	}
	w.run(5 * time.Second)

	var v1 []model.ProduceRequest
	for _, r := range w.c.produces() {
		pr := r.msg.(model.ProduceRequest)
		if pr.Batch.Records[0].Value == "v1" {
			v1 = append(v1, pr)
		}
	}
	if len(v1) != 2 {
		t.Fatalf("v1 sent %d times, want 2 (the first answer was lost)", len(v1))
	}
	for _, pr := range v1 {
		if pr.Batch.ProducerID != 7 || pr.Batch.ProducerEpoch != 0 || pr.Batch.BaseSequence != 1 {
			t.Errorf("v1 attempt %v, want pid=7:0 seq=1 on every attempt", pr)
		}
	}
	if got := w.c.part(model.TP("t", 0)).values(); !slices.Equal(got, []string{"v0", "v1", "v2"}) {
		t.Errorf("log %v, want [v0 v1 v2]: no duplicate", got)
	}
	for i := 0; i < 3; i++ {
		if op := w.sendOp(fmt.Sprintf("v%d", i)); op.Type != model.OpOK || op.Offset != model.Offset(i) {
			t.Errorf("send v%d: %s, want ok at %d", i, op.String(), i)
		}
	}
}

// An idempotent producer keeps at most max.in.flight.requests.per.connection
// (5) requests outstanding, with consecutive sequences.
func TestProducerIdempotentMaxInFlight(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	w.c.hold = time.Second
	w.c.produce = func(model.BrokerID, model.ProduceRequest) (action, model.ErrorCode) { return actHold, 0 }
	w.producer(cfg(t, "linger.ms=0"), nil)
	for i := 0; i < 12; i++ {
		w.send(time.Duration(5+i)*ms, msg("t", 0, fmt.Sprintf("v%d", i)))
	}
	w.run(10 * time.Second)

	ps := w.c.produces()
	early := 0
	for _, r := range ps {
		if r.at < time.Second {
			early++
		}
	}
	if early != 5 {
		t.Errorf("%d produce requests before the first answer, want 5", early)
	}
	seq := int32(0)
	for _, r := range ps {
		pr := r.msg.(model.ProduceRequest)
		if pr.Batch.BaseSequence != seq {
			t.Errorf("request %v has sequence %d, want %d", pr, pr.Batch.BaseSequence, seq)
		}
		seq += pr.Batch.Count()
	}
	if seq != 12 {
		t.Errorf("%d records sent, want 12", seq)
	}
	for _, op := range w.ops(model.FSend) {
		if op.Type != model.OpOK {
			t.Errorf("send %s, want ok", op.String())
		}
	}
}

// While an idempotent producer retries, a partition has one request in
// flight: the lowest sequence goes first and the next waits for its answer
// (RecordAccumulator.shouldStopDrainBatchesForPartition), so retries keep
// the log in send order.
func TestProducerIdempotentRetriesOneAtATime(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	refused := map[string]bool{}
	w.c.produce = func(_ model.BrokerID, r model.ProduceRequest) (action, model.ErrorCode) {
		if v := r.Batch.Records[0].Value; !refused[v] {
			refused[v] = true
			return actError, model.NotEnoughReplicas
		}
		return actOK, 0
	}
	// No backoff: each batch is retried as soon as it is refused, while
	// the others are still in flight.
	w.producer(cfg(t, "linger.ms=0", "retry.backoff.ms=0", "retry.backoff.max.ms=0"), nil)
	for i := 0; i < 3; i++ {
		w.send(time.Duration(5+i)*ms, msg("t", 0, fmt.Sprintf("v%d", i)))
	}
	w.run(2 * time.Second)

	seen := map[string]bool{}
	var retries []received
	for _, r := range w.c.produces() {
		v := batchValues(r.msg)[0]
		if seen[v] {
			retries = append(retries, r)
		}
		seen[v] = true
	}
	if len(retries) != 3 {
		t.Fatalf("%d retries, want 3 (each batch refused once)", len(retries))
	}
	for i, r := range retries {
		if got := batchValues(r.msg); !slices.Equal(got, []string{fmt.Sprintf("v%d", i)}) {
			t.Errorf("retry %d carried %v, want v%d: retries go in sequence order", i, got, i)
		}
		if i > 0 && r.at < retries[i-1].at+2*ms {
			t.Errorf("retry of v%d arrived at %v, before the answer to v%d's (arrived %v) could return", i, r.at, i-1, retries[i-1].at)
		}
	}
	for i := 0; i < 3; i++ {
		if op := w.sendOp(fmt.Sprintf("v%d", i)); op.Type != model.OpOK || op.Offset != model.Offset(i) {
			t.Errorf("send v%d: %s, want ok at %d", i, op.String(), i)
		}
	}
}

// lostFirstAnswer loses the answer to the first attempt of v0 (the write
// is appended), and answers everything else.
func lostFirstAnswer() func(model.BrokerID, model.ProduceRequest) (action, model.ErrorCode) {
	lost := false
	return func(_ model.BrokerID, r model.ProduceRequest) (action, model.ErrorCode) {
		if r.Batch.Records[0].Value == "v0" && !lost {
			lost = true
			return actAppendDrop, 0
		}
		return actOK, 0
	}
}

// Without idempotence and with several requests in flight, a retry after a
// lost answer goes out after batches sent later: the leader appends the
// records out of send order, and the retried record twice. This is Kafka's
// documented behaviour, which the checkers must be able to see.
func TestProducerNonIdempotentRetryReorders(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	w.c.produce = lostFirstAnswer()
	w.producer(cfg(t, "enable.idempotence=false", "acks=1", "max.in.flight.requests.per.connection=5", "linger.ms=0", "request.timeout.ms=1000"), nil)
	for i := 0; i < 3; i++ {
		w.send(time.Duration(5+i)*ms, msg("t", 0, fmt.Sprintf("v%d", i)))
	}
	w.run(5 * time.Second)

	var order []string
	for _, r := range w.c.produces() {
		order = append(order, batchValues(r.msg)...)
		if pr := r.msg.(model.ProduceRequest); pr.Batch.ProducerID != model.NoProducerID || pr.Batch.BaseSequence != model.NoSequence {
			t.Errorf("non-idempotent request carries an identity: %v", pr)
		}
	}
	if want := []string{"v0", "v1", "v2", "v0"}; !slices.Equal(order, want) {
		t.Fatalf("broker received %v, want %v (the retry after the later batches)", order, want)
	}
	if got := w.c.part(model.TP("t", 0)).values(); !slices.Equal(got, []string{"v0", "v1", "v2", "v0"}) {
		t.Errorf("log %v, want v0 duplicated after v2", got)
	}
	v0, v1 := w.sendOp("v0"), w.sendOp("v1")
	if v0.Type != model.OpOK || v1.Type != model.OpOK || v0.Offset <= v1.Offset {
		t.Errorf("v0 %s, v1 %s: want v0 (sent first) acknowledged at a higher offset", v0.String(), v1.String())
	}
}

// With max.in.flight.requests.per.connection=1 the same lost answer costs a
// duplicate but no reordering: nothing else leaves until v0 is resolved.
func TestProducerMaxInFlightOneKeepsOrder(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	w.c.produce = lostFirstAnswer()
	w.producer(cfg(t, "enable.idempotence=false", "acks=1", "max.in.flight.requests.per.connection=1", "linger.ms=0", "request.timeout.ms=1000"), nil)
	for i := 0; i < 3; i++ {
		w.send(time.Duration(5+i)*ms, msg("t", 0, fmt.Sprintf("v%d", i)))
	}
	w.run(5 * time.Second)

	var order []string
	for _, r := range w.c.produces() {
		order = append(order, batchValues(r.msg)...)
	}
	if want := []string{"v0", "v0", "v1", "v2"}; !slices.Equal(order, want) {
		t.Fatalf("broker received %v, want %v", order, want)
	}
	prev := model.NoOffset
	for i := 0; i < 3; i++ {
		op := w.sendOp(fmt.Sprintf("v%d", i))
		if op.Type != model.OpOK || op.Offset <= prev {
			t.Errorf("send v%d: %s, want ok after offset %d", i, op.String(), prev)
		}
		prev = op.Offset
	}
}

// OUT_OF_ORDER_SEQUENCE_NUMBER for the batch right after the last
// acknowledged one means the broker lost the producer's state: the producer
// bumps its epoch itself (KIP-360) and resends from sequence 0.
func TestProducerOutOfOrderSequenceBumpsEpoch(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	first := true
	w.c.produce = func(model.BrokerID, model.ProduceRequest) (action, model.ErrorCode) {
		if first {
			first = false
			return actError, model.OutOfOrderSequenceNumber
		}
		return actOK, 0
	}
	w.producer(cfg(t, "linger.ms=0"), nil)
	w.send(5*ms, msg("t", 0, "v0"))
	w.send(500*ms, msg("t", 0, "v1"))
	w.run(2 * time.Second)

	ps := w.c.produces()
	if len(ps) != 3 {
		t.Fatalf("%d produce requests, want 3", len(ps))
	}
	want := []string{"pid=7:0 seq=0", "pid=7:1 seq=0", "pid=7:1 seq=1"}
	for i, r := range ps {
		if got := r.msg.(model.ProduceRequest).String(); !strings.Contains(got, want[i]) {
			t.Errorf("request %d: %s, want %s", i, got, want[i])
		}
	}
	if w.c.count(func(m sim.Message) bool { _, ok := m.(model.InitProducerIDRequest); return ok }) != 1 {
		t.Errorf("the epoch bump sent an InitProducerId: an idempotent producer bumps locally")
	}
	if op := w.sendOp("v0"); op.Type != model.OpOK || op.Offset != 0 {
		t.Errorf("send v0: %s, want ok at 0", op.String())
	}
}

// UNKNOWN_PRODUCER_ID (the broker has no state for the producer) also
// bumps the epoch and restarts the partition's sequences at 0.
func TestProducerUnknownProducerIDBumpsEpoch(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	w.c.produce = func(_ model.BrokerID, r model.ProduceRequest) (action, model.ErrorCode) {
		if r.Batch.Records[0].Value == "v1" && r.Batch.ProducerEpoch == 0 {
			return actError, model.UnknownProducerID
		}
		return actOK, 0
	}
	w.producer(cfg(t, "linger.ms=0"), nil)
	w.send(5*ms, msg("t", 0, "v0"))
	w.send(500*ms, msg("t", 0, "v1"))
	w.run(2 * time.Second)

	ps := w.c.produces()
	last := ps[len(ps)-1].msg.(model.ProduceRequest)
	if len(ps) != 3 || last.Batch.ProducerEpoch != 1 || last.Batch.BaseSequence != 0 {
		t.Fatalf("requests %v, want v1 retried as pid=7:1 seq=0", ps)
	}
	if op := w.sendOp("v1"); op.Type != model.OpOK || op.Offset != 1 {
		t.Errorf("send v1: %s, want ok at 1", op.String())
	}
}

// A non-retriable error fails the send at once (the leader refused it
// before appending); with idempotence the producer then bumps its epoch,
// so that the next batch does not leave a sequence gap
// (TransactionManager.handleFailedBatch).
func TestProducerNonRetriableErrorFails(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	w.c.produce = func(_ model.BrokerID, r model.ProduceRequest) (action, model.ErrorCode) {
		if r.Batch.Records[0].Value == "v0" {
			return actError, model.MessageTooLarge
		}
		return actOK, 0
	}
	w.producer(cfg(t, "linger.ms=0"), nil)
	w.send(5*ms, msg("t", 0, "v0"))
	w.send(100*ms, msg("t", 0, "v1"))
	w.run(time.Second)
	if op := w.sendOp("v0"); op.Type != model.OpFail || op.Error != "MESSAGE_TOO_LARGE" || op.End != 7*ms {
		t.Errorf("send v0: %s (%q), want fail MESSAGE_TOO_LARGE at 7ms", op.String(), op.Error)
	}
	ps := w.c.produces()
	if len(ps) != 2 || !strings.Contains(ps[1].msg.(model.ProduceRequest).String(), "pid=7:1 seq=0") {
		t.Errorf("requests %v, want v1 sent as pid=7:1 seq=0 after the bump", ps)
	}
	if op := w.sendOp("v1"); op.Type != model.OpOK || op.Offset != 0 {
		t.Errorf("send v1: %s, want ok at 0", op.String())
	}
}

// A broker that answers twice completes the send once; the duplicate
// answer matches no request in flight.
func TestProducerDuplicateAnswerIgnored(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	w.c.produce = func(model.BrokerID, model.ProduceRequest) (action, model.ErrorCode) { return actTwice, 0 }
	w.producer(cfg(t, "linger.ms=0"), nil)
	w.send(5*ms, msg("t", 0, "v0"))
	w.send(6*ms, msg("t", 0, "v1"))
	w.run(time.Second)
	for i := 0; i < 2; i++ {
		if op := w.sendOp(fmt.Sprintf("v%d", i)); op.Type != model.OpOK || op.Offset != model.Offset(i) {
			t.Errorf("send v%d: %s, want ok at %d", i, op.String(), i)
		}
	}
}

// The same scenario gives the same run, event for event.
func TestProducerDeterministic(t *testing.T) {
	run := func() (uint64, string) {
		w := newWorld(t, 2)
		w.c.topic("t", 1, 2)
		w.c.produce = lostFirstAnswer()
		w.producer(cfg(t, "enable.idempotence=false", "acks=1", "linger.ms=2", "request.timeout.ms=1000"), func(o *ProducerOptions) {
			o.Workload, o.SendInterval = &countWorkload{n: 50}, 3*ms
		})
		w.at(40*ms, func() { w.s.Crash(2) })
		w.at(90*ms, func() { w.s.Restart(2) })
		w.run(5 * time.Second)
		return w.s.Hash(), dump(w.history())
	}
	h1, d1 := run()
	h2, d2 := run()
	if h1 != h2 || d1 != d2 {
		t.Errorf("two runs differ: hash %x vs %x", h1, h2)
	}
}

// acks=0 gets no answer: the send's outcome is unknown at once.
func TestProducerAcksZeroIsInfo(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	w.producer(cfg(t, "enable.idempotence=false", "acks=0", "linger.ms=0"), nil)
	w.send(5*ms, msg("t", 0, "v0"))
	w.run(time.Second)
	if op := w.sendOp("v0"); op.Type != model.OpInfo || op.End != 5*ms {
		t.Errorf("send: %s, want info at 5ms", op.String())
	}
	if got := w.c.part(model.TP("t", 0)).values(); !slices.Equal(got, []string{"v0"}) {
		t.Errorf("log %v, want [v0]", got)
	}
}

// Keys choose partitions by Kafka's murmur2; keyless records stick to one
// partition; a send to a topic the producer does not know yet waits for
// metadata.
func TestProducerPartitioning(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1, 1, 1, 1, 1)
	w.producer(cfg(t, "linger.ms=0"), nil)
	keys := []string{"21", "foobar", "abc", "a-little-bit-long-string"}
	for i, k := range keys {
		w.send(5*ms, Message{Topic: "t", Key: k, Value: fmt.Sprintf("k%d", i)})
	}
	for i := 0; i < 5; i++ {
		w.send(6*ms, Message{Topic: "t", Value: fmt.Sprintf("n%d", i)})
	}
	w.run(time.Second)
	for i, k := range keys {
		op := w.sendOp(fmt.Sprintf("k%d", i))
		want := int32(uint32(murmur2(k))&0x7fffffff) % 5
		if op.Type != model.OpOK || op.TP != model.TP("t", want) || op.Key != k {
			t.Errorf("key %q: %s, want ok on t/%d", k, op.String(), want)
		}
	}
	var parts []int32
	for i := 0; i < 5; i++ {
		op := w.sendOp(fmt.Sprintf("n%d", i))
		parts = append(parts, op.TP.Partition)
		if op.Time != 6*ms || op.Type != model.OpOK {
			t.Errorf("keyless send %s", op.String())
		}
	}
	if len(slices.Compact(slices.Clone(parts))) != 1 {
		t.Errorf("keyless records went to partitions %v, want one sticky partition", parts)
	}
}

// Kafka's own murmur2 test vectors (UtilsTest.testMurmur2).
func TestMurmur2KafkaVectors(t *testing.T) {
	for k, want := range map[string]int32{
		"21":                         -973932308,
		"foobar":                     -790332482,
		"a-little-bit-long-string":   -985981536,
		"a-little-bit-longer-string": -1486304829,
		"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
		"abc": 479470107,
	} {
		if got := murmur2(k); got != want {
			t.Errorf("murmur2(%q) = %d, want %d", k, got, want)
		}
	}
}

// A leader that crashes is reported by a disconnect: the producer refreshes
// metadata and its retry reaches the new leader. The write that was in
// flight may have been appended, so it is retried, not failed.
func TestProducerLeaderCrashRetriesOnNewLeader(t *testing.T) {
	w := newWorld(t, 2)
	w.c.topic("t", 1)
	w.c.hold = 50 * ms
	w.c.produce = func(b model.BrokerID, _ model.ProduceRequest) (action, model.ErrorCode) {
		if b == 1 {
			return actHold, 0
		}
		return actOK, 0
	}
	w.producer(cfg(t, "linger.ms=0"), nil)
	w.send(5*ms, msg("t", 0, "v0"))
	w.at(10*ms, func() {
		w.s.Crash(1)
		p := w.c.part(model.TP("t", 0))
		p.leader, p.epoch = 2, 2
	})
	w.run(2 * time.Second)
	ps := w.c.produces()
	if len(ps) != 2 || ps[1].broker != 2 {
		t.Fatalf("produce requests to %v, want b1 then b2", brokersOf(ps))
	}
	if op := w.sendOp("v0"); op.Type != model.OpOK {
		t.Errorf("send %s, want ok", op.String())
	}
}

// A workload is polled every SendInterval until it says it is done.
func TestProducerWorkload(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	wl := &countWorkload{n: 5}
	w.producer(cfg(t, "linger.ms=0"), func(o *ProducerOptions) {
		o.Workload, o.SendInterval = wl, 10*ms
	})
	w.run(time.Second)
	sends := w.ops(model.FSend)
	if len(sends) != 5 {
		t.Fatalf("%d sends, want 5", len(sends))
	}
	for i, op := range sends {
		if op.Time != time.Duration(i+1)*10*ms || op.Type != model.OpOK || op.Process != int(clientID) {
			t.Errorf("send %d: %s (process %d), want ok invoked at %v by process %d", i, op.String(), op.Process, time.Duration(i+1)*10*ms, clientID)
		}
	}
	if wl.calls != 6 {
		t.Errorf("Next called %d times, want 6 (5 records, then done)", wl.calls)
	}
}

type countWorkload struct{ n, calls int }

func (c *countWorkload) Next(*sim.Env) (Message, bool) {
	c.calls++
	if c.calls > c.n {
		return Message{}, false
	}
	return msg("t", 0, fmt.Sprintf("w%d", c.calls)), true
}

// A crashed producer's unfinished sends stay invoke; the restarted producer
// is a new session (a new producer id) and its sends complete. An answer
// meant for the crashed incarnation never completes a send of the new one,
// even from a broker that sends it anyway: correlation ids differ per
// incarnation, as separate connections would.
func TestProducerCrashLeavesSendsInvoked(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	w.c.deaf = true
	w.c.hold = 100 * ms
	w.c.produce = func(model.BrokerID, model.ProduceRequest) (action, model.ErrorCode) { return actHold, 0 }
	w.producer(cfg(t, "linger.ms=0"), nil)
	w.send(5*ms, msg("t", 0, "v0"))
	w.at(20*ms, func() { w.s.Crash(clientID) })
	w.at(30*ms, func() { w.s.Restart(clientID) })
	w.send(40*ms, msg("t", 0, "v1"))
	w.run(time.Second)
	if op := w.sendOp("v0"); op.Type != model.OpInvoke {
		t.Errorf("send v0 %s, want invoke (its producer crashed)", op.String())
	}
	if op := w.sendOp("v1"); op.Type != model.OpOK || op.Offset != 1 {
		t.Errorf("send v1 %s, want ok at 1", op.String())
	}
	if pid, _ := w.prod().ProducerID(); pid != 8 {
		t.Errorf("restarted producer has pid %d, want a new one (8)", pid)
	}
}

// A send to a topic whose metadata never comes fails after max.block.ms:
// it never reached a broker.
func TestProducerUnknownTopicFailsAfterMaxBlock(t *testing.T) {
	w := newWorld(t, 1)
	w.producer(cfg(t), func(o *ProducerOptions) { o.MaxBlock = 2 * time.Second })
	w.send(5*ms, Message{Topic: "nope", Value: "v0"})
	w.run(5 * time.Second)
	op := w.sendOp("v0")
	if op.Type != model.OpFail || op.End != 2005*ms || !strings.HasPrefix(op.Error, "timeout") {
		t.Errorf("send %s (%q), want fail at 2005ms", op.String(), op.Error)
	}
}

func brokersOf(rs []received) []model.BrokerID {
	var out []model.BrokerID
	for _, r := range rs {
		out = append(out, r.broker)
	}
	return out
}

// The producer keeps what it looks up by topic name for the last record's
// topic, and must look again when the topic changes or metadata moves on:
// keyed records to two topics of different sizes, sent in turn, each land
// on their own topic's murmur2 partition, and once a topic grows (and
// metadata.max.age.ms brought the news), on its new partition count.
func TestProducerTopicLookupsFollowTopicAndMetadata(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("a", 1)
	w.c.topic("b", 1, 1, 1, 1, 1)
	w.producer(cfg(t, "linger.ms=0", "metadata.max.age.ms=100"), nil)
	keys := []string{"21", "foobar", "abc", "a-little-bit-long-string", "k1", "k2", "k3"}
	want := map[string]model.TopicPartition{}
	for i, k := range keys {
		for _, topic := range []string{"b", "a"} { // a last, for the cache
			v := fmt.Sprintf("%s-before-%d", topic, i)
			w.send(5*ms, Message{Topic: topic, Key: k, Value: v})
			want[v] = model.TP(topic, keyPartition(k, w.c.topics[topic]))
		}
	}
	w.at(300*ms, func() { // a grows to 3 partitions
		w.c.topics["a"] = 3
		for i := int32(1); i < 3; i++ {
			w.c.parts[model.TP("a", i)] = &fakePart{leader: 1, epoch: 1, dedup: map[[3]int64]model.Offset{}}
		}
	})
	for i, k := range keys {
		v := fmt.Sprintf("a-after-%d", i)
		w.send(600*ms, Message{Topic: "a", Key: k, Value: v})
		want[v] = model.TP("a", keyPartition(k, 3))
	}
	w.run(time.Second)
	moved := 0
	for v, tp := range want {
		if op := w.sendOp(v); op.Type != model.OpOK || op.TP != tp {
			t.Errorf("send %s: %s, want ok on %v", v, op.String(), tp)
		}
		if tp.Topic == "a" && tp.Partition != 0 {
			moved++
		}
	}
	if moved == 0 {
		t.Fatalf("no key moves off a/0 when a grows: the test needs other keys")
	}
}
