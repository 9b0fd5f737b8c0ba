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

// The tests run the clients on a real sim.Sim against fake brokers: small
// scriptable nodes that answer Metadata, InitProducerId, Produce, Fetch,
// ListOffsets and OffsetsForLeaderEpoch from a shared fakeCluster. The
// cluster lives outside the broker nodes, so that a crashed fake broker
// keeps its "log", and a test can change leadership between events.

// fakePart is one partition of the fake cluster: who leads it, under which
// epoch, and its log.
type fakePart struct {
	leader   model.BrokerID
	epoch    model.Epoch
	log      []model.Batch // rebased, in offset order
	logStart model.Offset
	dedup    map[[3]int64]model.Offset // (pid, epoch, seq) → base offset
}

func (p *fakePart) end() model.Offset {
	if len(p.log) == 0 {
		return p.logStart
	}
	return p.log[len(p.log)-1].NextOffset()
}

// appendBatch appends b at the log end under the partition's epoch.
func (p *fakePart) appendBatch(b model.Batch) model.Offset {
	base := p.end()
	p.log = append(p.log, b.Rebase(base, p.epoch))
	return base
}

// appendValues appends one batch of records with the given values.
func (p *fakePart) appendValues(values ...string) {
	rs := make([]model.Record, len(values))
	for i, v := range values {
		rs[i] = model.Record{Value: v}
	}
	p.appendBatch(model.NewBatch(model.NoProducerID, model.NoEpoch, model.NoSequence, rs...))
}

// values lists the log's values in offset order.
func (p *fakePart) values() []string {
	var out []string
	for _, b := range p.log {
		for _, r := range b.Records {
			out = append(out, r.Value)
		}
	}
	return out
}

// truncate cuts the log at offset o (a divergent leader's log).
func (p *fakePart) truncate(o model.Offset) {
	var kept []model.Batch
	for _, b := range p.log {
		if b.NextOffset() <= o {
			kept = append(kept, b)
		} else if b.BaseOffset < o {
			c := b
			c.Records = b.Records[:o-b.BaseOffset]
			kept = append(kept, c)
		}
	}
	p.log = kept
}

// endOffsetFor is the leader's answer to OffsetsForLeaderEpoch: the largest
// epoch at or below e and where the next one starts (the log end for the
// latest).
func (p *fakePart) endOffsetFor(e model.Epoch) (model.Epoch, model.Offset) {
	if e >= p.epoch {
		return p.epoch, p.end()
	}
	found := model.NoEpoch
	for _, b := range p.log {
		if b.LeaderEpoch <= e {
			found = max(found, b.LeaderEpoch)
		}
	}
	if found == model.NoEpoch {
		return model.NoEpoch, model.NoOffset
	}
	for _, b := range p.log {
		if b.LeaderEpoch > found {
			return found, b.BaseOffset
		}
	}
	return found, p.end()
}

// action is what a fake broker does with one produce request.
type action int

const (
	actOK         action = iota // append and answer
	actError                    // answer with fakeCluster.err, append nothing
	actDrop                     // neither append nor answer: the request is lost
	actAppendDrop               // append, but the answer is lost
	actTwice                    // append and answer twice
	actHold                     // append and answer after fakeCluster.hold
)

// received is one request a fake broker got.
type received struct {
	at     time.Duration
	broker model.BrokerID
	msg    sim.Message
}

type fakeCluster struct {
	brokers  []model.BrokerID
	topics   map[string]int32
	parts    map[model.TopicPartition]*fakePart
	nextPID  model.ProducerID
	received []received
	// produce decides what to do with a produce request; nil means actOK.
	produce func(b model.BrokerID, r model.ProduceRequest) (action, model.ErrorCode)
	// metadata, if set, decides whether broker b answers metadata at all.
	metadataDown func(b model.BrokerID) bool
	// hold is how long actHold delays an answer.
	hold time.Duration
	// deaf makes brokers ignore disconnects: they still send what they owed
	// a crashed client, to its next incarnation (a broken broker).
	deaf bool
	// requestObjects are the distinct produce request objects received.
	requestObjects map[*model.ProduceRequest]bool
	// fetchObjects are the distinct fetch request objects received.
	fetchObjects map[*model.FetchRequest]bool
	// txnErr, if set, is what broker 1, the transaction coordinator,
	// answers a transactional request with (NONE otherwise); EndTxn
	// answers NONE with the epoch bumped, as transaction version 2 does.
	txnErr func(m sim.Message) model.ErrorCode
}

func newFakeCluster(brokers ...model.BrokerID) *fakeCluster {
	return &fakeCluster{brokers: brokers, topics: map[string]int32{}, parts: map[model.TopicPartition]*fakePart{}, nextPID: 7,
		requestObjects: map[*model.ProduceRequest]bool{}, fetchObjects: map[*model.FetchRequest]bool{}}
}

// topic creates a topic whose partition i is led by leaders[i] at epoch 1.
func (c *fakeCluster) topic(name string, leaders ...model.BrokerID) {
	c.topics[name] = int32(len(leaders))
	for i, l := range leaders {
		c.parts[model.TP(name, int32(i))] = &fakePart{leader: l, epoch: 1, dedup: map[[3]int64]model.Offset{}}
	}
}

func (c *fakeCluster) part(tp model.TopicPartition) *fakePart { return c.parts[tp] }

// produces returns the produce requests received, in order.
func (c *fakeCluster) produces() []received {
	var out []received
	for _, r := range c.received {
		if _, ok := r.msg.(model.ProduceRequest); ok {
			out = append(out, r)
		}
	}
	return out
}

func (c *fakeCluster) count(pred func(sim.Message) bool) int {
	n := 0
	for _, r := range c.received {
		if pred(r.msg) {
			n++
		}
	}
	return n
}

// fakeBroker is one broker node of the fake cluster.
type fakeBroker struct {
	id      model.BrokerID
	c       *fakeCluster
	pending []pendingFetch
	held    []heldAnswer
}

type heldAnswer struct {
	to  sim.NodeID
	msg sim.Message
}

type pendingFetch struct {
	from sim.NodeID
	req  model.FetchRequest
}

func (b *fakeBroker) Start(env *sim.Env) {}

// Disconnected drops what the broker still owed the peer: its connection
// is gone, as a real broker's would be.
func (b *fakeBroker) Disconnected(env *sim.Env, peer sim.NodeID) {
	if b.c.deaf {
		return
	}
	for i := range b.held {
		if b.held[i].to == peer {
			b.held[i].msg = nil
		}
	}
	for i := range b.pending {
		if b.pending[i].from == peer {
			b.pending[i].req.CorrelationID = 0
		}
	}
}

func (b *fakeBroker) Fire(env *sim.Env, t sim.Timer) {
	if t.Kind == "answer" {
		if h := b.held[t.Arg]; h.msg != nil {
			env.Send(h.to, h.msg)
		}
		return
	}
	if t.Kind != "fetch" {
		return
	}
	// The long poll expired: answer what there is.
	i := int(t.Arg)
	if i < len(b.pending) && b.pending[i].req.CorrelationID != 0 {
		p := b.pending[i]
		b.pending[i].req.CorrelationID = 0
		env.Send(p.from, b.fetch(p.req))
	}
}

func (b *fakeBroker) Receive(env *sim.Env, from sim.NodeID, m sim.Message) {
	c := b.c
	if r, ok := m.(*model.ProduceRequest); ok {
		c.requestObjects[r] = true
		// A copy, records included: the producer reuses the request and
		// its records' memory once answered, as a broker keeps nothing
		// of a request it has answered.
		cp := *r
		cp.Batch.Records = slices.Clone(r.Batch.Records)
		m = cp
	}
	if r, ok := m.(*model.FetchRequest); ok {
		c.fetchObjects[r] = true
		// A copy, partitions included: the consumer reuses the request
		// once answered.
		cp := *r
		cp.Partitions = slices.Clone(r.Partitions)
		m = cp
	}
	c.received = append(c.received, received{at: env.ObserverNow(), broker: b.id, msg: m})
	switch r := m.(type) {
	case model.ApiVersionsRequest:
		env.Send(from, model.ApiVersionsResponse(r))
	case model.MetadataRequest:
		if c.metadataDown != nil && c.metadataDown(b.id) {
			return
		}
		resp := model.MetadataResponse{CorrelationID: r.CorrelationID, ControllerID: 100, Brokers: slices.Clone(c.brokers)}
		for _, t := range r.Topics {
			n, ok := c.topics[t]
			if !ok {
				resp.Topics = append(resp.Topics, model.TopicMetadata{Topic: t, Error: model.UnknownTopicOrPartition})
				continue
			}
			tm := model.TopicMetadata{Topic: t}
			for i := int32(0); i < n; i++ {
				p := c.parts[model.TP(t, i)]
				tm.Partitions = append(tm.Partitions, model.PartitionState{TP: model.TP(t, i), Leader: p.leader, LeaderEpoch: p.epoch})
			}
			resp.Topics = append(resp.Topics, tm)
		}
		env.Send(from, resp)
	case model.InitProducerIDRequest:
		if r.TransactionalID != "" {
			b.txnAnswer(env, from, m)
			return
		}
		pid := c.nextPID
		c.nextPID++
		env.Send(from, model.InitProducerIDResponse{CorrelationID: r.CorrelationID, ProducerID: pid, ProducerEpoch: 0})
	case model.FindCoordinatorRequest, model.AddPartitionsToTxnRequest, model.EndTxnRequest:
		b.txnAnswer(env, from, m)
	case model.ProduceRequest:
		b.produce(env, from, r)
	case model.FetchRequest:
		resp := b.fetch(r)
		empty := true
		for _, p := range resp.Partitions {
			if p.Error != model.NoError || len(p.Batches) > 0 {
				empty = false
			}
		}
		if empty && r.MaxWait > 0 {
			b.pending = append(b.pending, pendingFetch{from: from, req: r})
			env.After(r.MaxWait, "fetch", int64(len(b.pending)-1))
			return
		}
		env.Send(from, resp)
	case model.ListOffsetsRequest:
		p := c.parts[r.TP]
		resp := model.ListOffsetsResponse{CorrelationID: r.CorrelationID, TP: r.TP, Offset: model.NoOffset, LeaderEpoch: model.NoEpoch}
		switch {
		case p == nil:
			resp.Error = model.UnknownTopicOrPartition
		case p.leader != b.id:
			resp.Error = model.NotLeaderOrFollower
		case r.Spec == model.SpecEarliest:
			resp.Offset = p.logStart
		default:
			resp.Offset = p.end()
		}
		if resp.Error == model.NoError {
			resp.LeaderEpoch = p.epochBefore(resp.Offset)
		}
		env.Send(from, resp)
	case model.OffsetsForLeaderEpochRequest:
		resp := model.OffsetsForLeaderEpochResponse{CorrelationID: r.CorrelationID}
		for _, q := range r.Partitions {
			p := c.parts[q.TP]
			a := model.LeaderEpochAnswer{TP: q.TP, HasEpoch: true, LeaderEpoch: model.NoEpoch, EndOffset: model.NoOffset}
			switch {
			case p == nil || p.leader != b.id:
				a.Error = model.NotLeaderOrFollower
			case q.CurrentLeaderEpoch < p.epoch:
				a.Error = model.FencedLeaderEpoch
			case q.CurrentLeaderEpoch > p.epoch:
				a.Error = model.UnknownLeaderEpoch
			default:
				a.LeaderEpoch, a.EndOffset = p.endOffsetFor(q.LeaderEpoch)
			}
			resp.Partitions = append(resp.Partitions, a)
		}
		env.Send(from, resp)
	}
}

// txnAnswer is a fake transaction coordinator on broker 1: one producer
// id, 7, whose epoch InitProducerId and every EndTxn bump.
func (b *fakeBroker) txnAnswer(env *sim.Env, from sim.NodeID, m sim.Message) {
	c := b.c
	code := model.NoError
	if c.txnErr != nil {
		code = c.txnErr(m)
	}
	if _, ok := m.(model.FindCoordinatorRequest); !ok && b.id != 1 && code == model.NoError {
		code = model.NotCoordinator
	}
	switch r := m.(type) {
	case model.FindCoordinatorRequest:
		env.Send(from, model.FindCoordinatorResponse{CorrelationID: r.CorrelationID, Error: code, Coordinator: 1})
	case model.InitProducerIDRequest:
		resp := model.InitProducerIDResponse{CorrelationID: r.CorrelationID, Error: code, ProducerID: model.NoProducerID, ProducerEpoch: model.NoEpoch}
		if code == model.NoError {
			resp.ProducerID, resp.ProducerEpoch = 7, r.ProducerEpoch+1
			if r.ProducerEpoch == model.NoEpoch {
				resp.ProducerEpoch = 0
			}
		}
		env.Send(from, resp)
	case model.AddPartitionsToTxnRequest:
		resp := model.AddPartitionsToTxnResponse{CorrelationID: r.CorrelationID}
		for _, tp := range r.Partitions {
			resp.Results = append(resp.Results, model.TxnPartitionResult{TP: tp, Error: code})
		}
		env.Send(from, resp)
	case model.EndTxnRequest:
		resp := model.EndTxnResponse{CorrelationID: r.CorrelationID, Error: code, ProducerID: model.NoProducerID, ProducerEpoch: model.NoEpoch}
		if code == model.NoError {
			resp.ProducerID, resp.ProducerEpoch = r.ProducerID, r.ProducerEpoch+1
		}
		env.Send(from, resp)
	}
}

// epochBefore is the leader epoch of the record before offset o.
func (p *fakePart) epochBefore(o model.Offset) model.Epoch {
	for _, b := range p.log {
		if b.BaseOffset < o && o <= b.NextOffset() {
			return b.LeaderEpoch
		}
	}
	return model.NoEpoch
}

func (b *fakeBroker) produce(env *sim.Env, from sim.NodeID, r model.ProduceRequest) {
	c := b.c
	act, code := actOK, model.NoError
	if c.produce != nil {
		act, code = c.produce(b.id, r)
	}
	p := c.parts[r.TP]
	resp := model.ProduceResponse{CorrelationID: r.CorrelationID, TP: r.TP, BaseOffset: model.NoOffset, LogStartOffset: model.NoOffset}
	switch {
	case act == actDrop:
		return
	case act == actError:
		resp.Error = code
		if p != nil {
			resp.LogStartOffset = p.logStart
		}
	case p == nil:
		resp.Error = model.UnknownTopicOrPartition
	case p.leader != b.id:
		resp.Error = model.NotLeaderOrFollower
	default:
		key := [3]int64{int64(r.Batch.ProducerID), int64(r.Batch.ProducerEpoch), int64(r.Batch.BaseSequence)}
		if base, dup := p.dedup[key]; dup && r.Batch.ProducerID != model.NoProducerID {
			resp.BaseOffset = base // a retry of a batch it has: the original offsets
		} else {
			resp.BaseOffset = p.appendBatch(r.Batch)
			if r.Batch.ProducerID != model.NoProducerID {
				p.dedup[key] = resp.BaseOffset
			}
		}
		resp.LogStartOffset = p.logStart
	}
	if r.Acks == model.AcksNone {
		return
	}
	switch act {
	case actAppendDrop:
		return
	case actTwice:
		env.Send(from, resp)
	case actHold:
		b.held = append(b.held, heldAnswer{to: from, msg: resp})
		env.After(c.hold, "answer", int64(len(b.held)-1))
		return
	}
	env.Send(from, resp)
}

// fetch answers a consumer fetch from the shared logs: fenced epochs,
// out-of-range offsets, and records from the fetch offset to the log end.
func (b *fakeBroker) fetch(r model.FetchRequest) model.FetchResponse {
	resp := model.FetchResponse{CorrelationID: r.CorrelationID}
	for _, fp := range r.Partitions {
		p := b.c.parts[fp.TP]
		pr := model.FetchPartitionResponse{TP: fp.TP, HighWatermark: model.NoOffset, LogStartOffset: model.NoOffset}
		switch {
		case p == nil:
			pr.Error = model.UnknownTopicOrPartition
		case p.leader != b.id:
			pr.Error = model.NotLeaderOrFollower
		case fp.CurrentLeaderEpoch < p.epoch:
			pr.Error = model.FencedLeaderEpoch
		case fp.CurrentLeaderEpoch > p.epoch:
			pr.Error = model.UnknownLeaderEpoch
		case fp.FetchOffset < p.logStart || fp.FetchOffset > p.end():
			pr.Error = model.OffsetOutOfRange
			pr.LogStartOffset, pr.HighWatermark = p.logStart, p.end()
		default:
			pr.LogStartOffset, pr.HighWatermark = p.logStart, p.end()
			for _, bt := range p.log {
				if bt.NextOffset() > fp.FetchOffset {
					// A copy: the fake's log slots are rewritten on
					// truncation, and an answer in flight must not change.
					pr.Batches = append(pr.Batches, &bt)
				}
			}
		}
		resp.Partitions = append(resp.Partitions, pr)
	}
	return resp
}

// world is a simulation with fake brokers 1..n and one client at 1000.
type world struct {
	t   *testing.T
	s   *sim.Sim
	c   *fakeCluster
	rec *model.Recorder
}

const clientID sim.NodeID = 1000

func newWorld(t *testing.T, brokers int) *world {
	t.Helper()
	s := sim.New(sim.Config{Seed: 1, EventLimit: 2_000_000, Link: sim.LinkConfig{Latency: sim.Fixed(time.Millisecond)}})
	var ids []model.BrokerID
	for i := 1; i <= brokers; i++ {
		ids = append(ids, model.BrokerID(i))
	}
	w := &world{t: t, s: s, c: newFakeCluster(ids...), rec: &model.Recorder{}}
	for _, id := range ids {
		id := id
		s.AddNode(sim.NodeID(id), fmt.Sprintf("b%d", id), func() sim.Node { return &fakeBroker{id: id, c: w.c} })
	}
	return w
}

func (w *world) startBrokers() {
	for _, id := range w.c.brokers {
		w.s.Start(sim.NodeID(id))
	}
}

// producer adds and starts a producer with cfg.
func (w *world) producer(cfg model.Config, mod func(*ProducerOptions)) *Producer {
	opts := ProducerOptions{Bootstrap: w.c.brokers, Config: cfg, Recorder: w.rec}
	for t := range w.c.topics {
		opts.Topics = append(opts.Topics, t)
	}
	slices.Sort(opts.Topics)
	if mod != nil {
		mod(&opts)
	}
	w.s.AddNode(clientID, "producer", func() sim.Node { return NewProducer(opts) })
	w.startBrokers()
	w.s.Start(clientID)
	return w.prod()
}

func (w *world) prod() *Producer { return w.s.Node(clientID).(*Producer) }

func (w *world) consumer(cfg model.Config, mod func(*ConsumerOptions)) *Consumer {
	opts := ConsumerOptions{Bootstrap: w.c.brokers, Config: cfg, Recorder: w.rec}
	if mod != nil {
		mod(&opts)
	}
	w.s.AddNode(clientID, "consumer", func() sim.Node { return NewConsumer(opts) })
	w.startBrokers()
	w.s.Start(clientID)
	return w.cons()
}

func (w *world) cons() *Consumer { return w.s.Node(clientID).(*Consumer) }

// at runs fn at true time t.
func (w *world) at(t time.Duration, fn func()) { w.s.At(t, "test", fn) }

func (w *world) run(until time.Duration) { w.s.Run(until) }

// send sends one record from the harness at time t.
func (w *world) send(t time.Duration, m Message) {
	w.at(t, func() { w.prod().Send(nil, m) })
}

func (w *world) history() model.History {
	h := w.rec.History()
	if err := h.Validate(); err != nil {
		w.t.Fatalf("invalid history: %v", err)
	}
	return h
}

// sendOp returns the send op with the value.
func (w *world) sendOp(value string) model.Op {
	w.t.Helper()
	for _, op := range w.history() {
		if op.F == model.FSend && op.Value == value {
			return op
		}
	}
	w.t.Fatalf("no send of %q in\n%s", value, dump(w.history()))
	return model.Op{}
}

func (w *world) ops(f model.OpF) []model.Op {
	var out []model.Op
	for _, op := range w.history() {
		if op.F == f {
			out = append(out, op)
		}
	}
	return out
}

// sendsOK returns when each send was invoked, by value, and reports any
// send that did not end ok.
func (w *world) sendsOK() map[string]time.Duration {
	w.t.Helper()
	invoked := map[string]time.Duration{}
	for _, op := range w.ops(model.FSend) {
		if op.Type != model.OpOK {
			w.t.Errorf("send %s, want ok", op.String())
		}
		invoked[op.Value] = op.Time
	}
	return invoked
}

func dump(h model.History) string {
	var b strings.Builder
	for i := range h {
		b.WriteString(h[i].String())
		if h[i].Error != "" {
			b.WriteString(" err=" + h[i].Error)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// cfg returns Kafka's defaults with the given settings applied.
func cfg(t *testing.T, settings ...string) model.Config {
	t.Helper()
	c := model.DefaultConfig()
	for _, s := range settings {
		if err := c.SetPair(s); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// batchValues lists the values of a produce request's batch.
func batchValues(m sim.Message) []string {
	r := m.(model.ProduceRequest)
	var out []string
	for _, rec := range r.Batch.Records {
		out = append(out, rec.Value)
	}
	return out
}

func msg(topic string, partition int32, value string) Message {
	return Message{Topic: topic, Value: value, Partition: partition, HasPartition: true}
}
