package broker

import (
	"fmt"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// fakeController is the least controller a broker can run under: it
// registers brokers, publishes one partition's state, and accepts every
// AlterPartition whose epochs match. The real controller has its own
// package and tests; this one keeps the broker's tests about the broker.
type fakeController struct {
	offset  int64
	state   model.PartitionState
	brokers []model.BrokerID
	alters  int
	// silent commits every AlterPartition but answers none and publishes
	// nothing (the ISR it committed is in silentISR): the controller is
	// cut off from the leader just after it committed the change.
	silent    bool
	silentISR []model.BrokerID
	// reject answers every AlterPartition with this error, applying
	// nothing.
	reject model.ErrorCode
	// creates counts the CreateTopics requests received; each is answered
	// with the next of createAnswers for every topic (NONE once they run
	// out), or not at all while createSilent is set.
	creates       int
	createAnswers []model.ErrorCode
	createSilent  bool
}

func (c *fakeController) Start(env *sim.Env) {}
func (c *fakeController) Receive(env *sim.Env, from sim.NodeID, m sim.Message) {
	switch m := m.(type) {
	case model.BrokerRegistrationRequest:
		// As in KRaft, the broker epoch is a metadata offset: the broker
		// acts once it has metadata up to it.
		env.Send(from, model.BrokerRegistrationResponse{CorrelationID: m.CorrelationID, BrokerEpoch: model.Epoch(c.offset)})
	case model.BrokerHeartbeatRequest:
		env.Send(from, model.BrokerHeartbeatResponse{CorrelationID: m.CorrelationID, CaughtUp: true})
		if m.MetadataOffset < c.offset {
			env.Send(from, c.update(true))
		}
	case model.CreateTopicsRequest:
		c.creates++
		if c.createSilent {
			return
		}
		code := model.NoError
		if len(c.createAnswers) > 0 {
			code, c.createAnswers = c.createAnswers[0], c.createAnswers[1:]
		}
		resp := model.CreateTopicsResponse{CorrelationID: m.CorrelationID}
		for _, t := range m.Topics {
			resp.Topics = append(resp.Topics, model.TopicResult{Name: t.Name, Error: code})
		}
		env.Send(from, resp)
	case model.AlterPartitionRequest:
		c.alters++
		if c.reject != model.NoError {
			env.Send(from, model.AlterPartitionResponse{CorrelationID: m.CorrelationID, Error: c.reject, Partition: c.state})
			return
		}
		if c.silent {
			c.silentISR = nil
			for _, r := range m.NewISR {
				c.silentISR = append(c.silentISR, r.ID)
			}
			return
		}
		if m.LeaderEpoch != c.state.LeaderEpoch || m.PartitionEpoch != c.state.PartitionEpoch {
			env.Send(from, model.AlterPartitionResponse{CorrelationID: m.CorrelationID, Error: model.InvalidUpdateVersion, Partition: c.state})
			return
		}
		c.state.ISR = nil
		for _, r := range m.NewISR {
			c.state.ISR = append(c.state.ISR, r.ID)
		}
		c.state.PartitionEpoch++
		c.offset++
		env.Send(from, model.AlterPartitionResponse{CorrelationID: m.CorrelationID, Partition: c.state})
		for _, b := range c.brokers {
			env.Send(sim.NodeID(b), c.update(false))
		}
	}
}
func (c *fakeController) Fire(env *sim.Env, t sim.Timer)             {}
func (c *fakeController) Disconnected(env *sim.Env, peer sim.NodeID) {}

func (c *fakeController) update(snapshot bool) model.MetadataUpdate {
	return model.MetadataUpdate{MetadataOffset: c.offset, Snapshot: snapshot, LiveBrokers: c.brokers, Partitions: []model.PartitionState{c.state}}
}

// producerDouble sends produce requests (and CreateTopics) on command and
// logs the answers and broken connections.
type producerDouble struct {
	answers     *[]model.ProduceResponse
	created     *[]model.CreateTopicsResponse
	disconnects *int
}

func (p *producerDouble) Start(env *sim.Env) {}
func (p *producerDouble) Receive(env *sim.Env, from sim.NodeID, m sim.Message) {
	switch r := m.(type) {
	case model.ProduceResponse:
		*p.answers = append(*p.answers, r)
	case *model.ProduceResponse:
		*p.answers = append(*p.answers, *r)
	case model.CreateTopicsResponse:
		*p.created = append(*p.created, r)
	}
}
func (p *producerDouble) Fire(env *sim.Env, t sim.Timer)             {}
func (p *producerDouble) Disconnected(env *sim.Env, peer sim.NodeID) { *p.disconnects++ }

type rig struct {
	s       *sim.Sim
	ctl     *fakeController
	answers *[]model.ProduceResponse
	created *[]model.CreateTopicsResponse // CreateTopics answers the client double got
	// clientDisconnects counts the client double's broken connections.
	clientDisconnects *int
	fetched           *[]*model.FetchResponse // what the consumer double got
	listed            *[]model.ListOffsetsResponse
	// minBytes is the consumer double's fetch.min.bytes (Kafka's default 1).
	minBytes int32
	tp       model.TopicPartition
	envs     map[sim.NodeID]*sim.Env
}

const controllerID = 100
const clientID = 1000

func newRig(t *testing.T, kc model.Config) *rig {
	t.Helper()
	return newRigOn(t, kc, sim.Config{})
}

// newRigOn is newRig with the kernel's tracing settings of trace (its
// Record fields: the transcript tests read the recorded deliveries).
func newRigOn(t *testing.T, kc model.Config, trace sim.Config) *rig {
	t.Helper()
	trace.Seed, trace.EventLimit, trace.Link = 1, 10_000_000, sim.LinkConfig{Latency: sim.Fixed(time.Millisecond)}
	s := sim.New(trace)
	tp := model.TP("t", 0)
	ctl := &fakeController{
		brokers: []model.BrokerID{1, 2, 3},
		state:   model.PartitionState{TP: tp, Leader: 1, Replicas: []model.BrokerID{1, 2, 3}, ISR: []model.BrokerID{1, 2, 3}},
		offset:  1,
	}
	s.AddNode(controllerID, "controller", func() sim.Node { return ctl })
	for id := 1; id <= 3; id++ {
		s.AddNode(sim.NodeID(id), fmt.Sprintf("b%d", id), Factory(Config{ID: model.BrokerID(id), Controller: controllerID, Kafka: kc}))
	}
	answers := &[]model.ProduceResponse{}
	r := &rig{s: s, ctl: ctl, answers: answers, created: &[]model.CreateTopicsResponse{}, clientDisconnects: new(int),
		fetched: &[]*model.FetchResponse{}, listed: &[]model.ListOffsetsResponse{}, minBytes: 1, tp: tp, envs: map[sim.NodeID]*sim.Env{}}
	s.AddNode(clientID, "client", func() sim.Node {
		return &producerDouble{answers: answers, created: r.created, disconnects: r.clientDisconnects}
	})
	s.AddNode(consumerID, "consumer", func() sim.Node { return &fetchDouble{answers: r.fetched, listed: r.listed} })
	for _, id := range s.Nodes() {
		s.Start(id)
	}
	return r
}

// produce makes the client send one record to the broker that leads.
func (r *rig) produce(at time.Duration, to model.BrokerID, acks model.Acks, value string) {
	r.s.At(at, "produce "+value, func() {
		b := model.NewBatch(model.NoProducerID, model.NoEpoch, model.NoSequence, model.Record{Value: value})
		r.s.SendAs(clientID, sim.NodeID(to), model.ProduceRequest{CorrelationID: 1, Acks: acks, Timeout: 30 * time.Second, TP: r.tp, Batch: b})
	})
}

func (r *rig) replica(id model.BrokerID) ReplicaView {
	n := r.s.Node(sim.NodeID(id))
	if n == nil {
		return ReplicaView{}
	}
	v, _ := n.(*Broker).Partition(r.tp)
	return v
}

func testConfig() model.Config {
	kc := model.DefaultConfig()
	kc.Broker.DefaultReplicationFactor = 3
	kc.Topic.MinInsyncReplicas = 2
	return kc
}

func TestAcksAllWaitsForTheISRAndFollowersCopyTheLog(t *testing.T) {
	r := newRig(t, testConfig())
	for i := 0; i < 10; i++ {
		r.produce(time.Second+time.Duration(i)*10*time.Millisecond, 1, model.AcksAll, fmt.Sprintf("v%d", i))
	}
	r.s.Run(5 * time.Second)
	if len(*r.answers) != 10 {
		t.Fatalf("got %d answers, want 10: %v", len(*r.answers), *r.answers)
	}
	for i, a := range *r.answers {
		if a.Error != model.NoError || a.BaseOffset != model.Offset(i) {
			t.Fatalf("answer %d: %v", i, a)
		}
	}
	for id := model.BrokerID(1); id <= 3; id++ {
		v := r.replica(id)
		if v.LEO != 10 {
			t.Fatalf("b%d LEO %d, want 10", id, v.LEO)
		}
		b, ok := v.Log.BatchAt(7)
		if !ok || b.Records[0].Value != "v7" {
			t.Fatalf("b%d offset 7: %v", id, b)
		}
	}
	if hw := r.replica(1).HW; hw != 10 {
		t.Fatalf("leader HW %d, want 10", hw)
	}
}

func TestNotEnoughReplicasWhenTheISRIsBelowTheMinimum(t *testing.T) {
	r := newRig(t, testConfig())
	// Both followers stop. An idle partition keeps them in the ISR (they
	// are at the leader's log end), but once the leader appends, they lag,
	// and after replica.lag.time.max.ms the leader drops them, then
	// refuses acks=all writes.
	r.s.At(time.Second, "crash followers", func() { r.s.Crash(2); r.s.Crash(3) })
	r.produce(2*time.Second, 1, model.AcksLeader, "acks1")
	r.produce(50*time.Second, 1, model.AcksAll, "refused")
	r.s.Run(55 * time.Second)
	if isr := r.replica(1).ISR; len(isr) != 1 {
		t.Fatalf("ISR %v, want the leader alone", isr)
	}
	got := map[model.ErrorCode]int{}
	for _, a := range *r.answers {
		got[a.Error]++
	}
	if got[model.NotEnoughReplicas] != 1 || got[model.NoError] != 1 {
		t.Fatalf("answers %v: want one NOT_ENOUGH_REPLICAS and one OK (acks=1)", *r.answers)
	}
	if leo := r.replica(1).LEO; leo != 1 {
		t.Fatalf("LEO %d: the refused write must not be appended", leo)
	}
}
