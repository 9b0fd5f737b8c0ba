package controller

import (
	"slices"
	"testing"
	"time"

	"kafkasim/model"
)

// alterController is a controller without a node around it, holding
// testState's metadata, for testing AlterPartition's checks alone.
func alterController(t *testing.T, cfg model.Config) *Controller {
	return &Controller{cfg: Config{ID: ctrlID, Cluster: cfg}, state: testState(t, cfg)}
}

// shrink is the request leader 1 sends to drop 3 from t/0's ISR at the
// current epochs.
func shrink(c *Controller) model.AlterPartitionRequest {
	p := c.state.partition(model.TP("t", 0))
	return model.AlterPartitionRequest{
		BrokerID: 1, BrokerEpoch: c.state.brokers[1].Epoch, TP: p.TP,
		LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch,
		NewISR: []model.ISRMember{{ID: 1, BrokerEpoch: c.state.brokers[1].Epoch}, {ID: 2, BrokerEpoch: c.state.brokers[2].Epoch}},
	}
}

func TestAlterPartitionChecks(t *testing.T) {
	cases := []struct {
		name string
		edit func(c *Controller, m *model.AlterPartitionRequest)
		want model.ErrorCode
	}{
		{"accepted", func(*Controller, *model.AlterPartitionRequest) {}, model.NoError},
		{"stale broker epoch", func(_ *Controller, m *model.AlterPartitionRequest) { m.BrokerEpoch-- }, model.StaleBrokerEpoch},
		{"unregistered sender", func(_ *Controller, m *model.AlterPartitionRequest) { m.BrokerID = 7 }, model.StaleBrokerEpoch},
		{"unknown partition", func(_ *Controller, m *model.AlterPartitionRequest) { m.TP = model.TP("t", 1) }, model.UnknownTopicOrPartition},
		{"newer leader epoch", func(_ *Controller, m *model.AlterPartitionRequest) { m.LeaderEpoch++ }, model.NotController},
		{"newer partition epoch", func(_ *Controller, m *model.AlterPartitionRequest) { m.PartitionEpoch++ }, model.NotController},
		{"older leader epoch", func(_ *Controller, m *model.AlterPartitionRequest) { m.LeaderEpoch-- }, model.FencedLeaderEpoch},
		{"not the leader", func(c *Controller, m *model.AlterPartitionRequest) {
			m.BrokerID, m.BrokerEpoch = 2, c.state.brokers[2].Epoch
		}, model.InvalidRequest},
		{"older partition epoch (KIP-497)", func(_ *Controller, m *model.AlterPartitionRequest) { m.PartitionEpoch-- }, model.InvalidUpdateVersion},
		{"member not a replica", func(_ *Controller, m *model.AlterPartitionRequest) {
			m.NewISR = append(m.NewISR, model.ISRMember{ID: 4, BrokerEpoch: model.NoEpoch})
		}, model.InvalidRequest},
		{"member twice", func(_ *Controller, m *model.AlterPartitionRequest) { m.NewISR = append(m.NewISR, m.NewISR[1]) }, model.InvalidRequest},
		{"ISR without the leader", func(_ *Controller, m *model.AlterPartitionRequest) { m.NewISR = m.NewISR[1:] }, model.InvalidRequest},
		{"member restarted since (KIP-903)", func(_ *Controller, m *model.AlterPartitionRequest) { m.NewISR[1].BrokerEpoch-- }, model.IneligibleReplica},
		{"fenced member", func(c *Controller, m *model.AlterPartitionRequest) {
			applyAll(c.state, []Record{FenceBrokerRecord{ID: 2, Epoch: c.state.brokers[2].Epoch}})
		}, model.IneligibleReplica},
		{"member without epoch is not checked", func(_ *Controller, m *model.AlterPartitionRequest) {
			m.NewISR[1].BrokerEpoch = model.NoEpoch
		}, model.NoError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			c := alterController(t, cfg)
			m := shrink(c)
			tc.edit(c, &m)
			before := *c.state.partition(model.TP("t", 0))
			code, r, ok := c.alterPartition(m)
			if code != tc.want {
				t.Fatalf("got %v, want %v", code, tc.want)
			}
			if tc.want != model.NoError {
				if ok {
					t.Fatalf("a rejected request built a change %v", r)
				}
				if p := c.state.partition(model.TP("t", 0)); p.PartitionEpoch != before.PartitionEpoch {
					t.Fatalf("a rejected request changed the partition")
				}
				return
			}
			if !ok || !slices.Equal(r.ISR, ids(1, 2)) || r.Leader != 1 || r.LeaderEpoch != before.LeaderEpoch ||
				r.PartitionEpoch != before.PartitionEpoch+1 {
				t.Fatalf("accepted change %v (ok=%v), want isr=[b1 b2], same leader epoch, partition epoch +1", r, ok)
			}
		})
	}
}

func TestAlterPartitionStalePartitionEpochAfterChange(t *testing.T) {
	// KIP-497: once a change is committed, a request built on the state
	// before it is refused, even one identical to the accepted request.
	c := alterController(t, testConfig())
	m := shrink(c)
	code, r, ok := c.alterPartition(m)
	if code != model.NoError || !ok {
		t.Fatalf("first request: %v", code)
	}
	applyAll(c.state, []Record{r})
	if code, _, _ := c.alterPartition(m); code != model.InvalidUpdateVersion {
		t.Fatalf("replayed request: %v, want INVALID_UPDATE_VERSION", code)
	}
	// The leader's next request, at the new partition epoch, passes.
	m.PartitionEpoch = r.PartitionEpoch
	m.NewISR = m.NewISR[:1]
	if code, _, ok := c.alterPartition(m); code != model.NoError || !ok {
		t.Fatalf("request at the new epoch: %v", code)
	}
}

func TestAlterPartitionNoChangeAnswersCurrentState(t *testing.T) {
	c := alterController(t, testConfig())
	m := shrink(c)
	m.NewISR = append(m.NewISR, model.ISRMember{ID: 3, BrokerEpoch: c.state.brokers[3].Epoch})
	if code, r, ok := c.alterPartition(m); code != model.NoError || ok {
		t.Fatalf("unchanged ISR: %v, change %v (ok=%v), want NONE and no record", code, r, ok)
	}
}

func TestAlterPartitionShrinkBelowMinISRFillsELR(t *testing.T) {
	cfg := testConfig()
	cfg.Topic.MinInsyncReplicas = 2
	c := alterController(t, cfg)
	m := shrink(c)
	m.NewISR = m.NewISR[:1]
	code, r, ok := c.alterPartition(m)
	if code != model.NoError || !ok || !slices.Equal(r.ISR, ids(1)) || !slices.Equal(r.ELR, ids(2, 3)) {
		t.Fatalf("shrink to [b1]: %v %v, want isr=[b1] elr=[b2 b3]", code, r)
	}
	applyAll(c.state, []Record{r})
	// Expanding back to the minimum empties the ELR.
	m = shrink(c)
	code, r, ok = c.alterPartition(m)
	if code != model.NoError || !ok || !slices.Equal(r.ISR, ids(1, 2)) || len(r.ELR) != 0 {
		t.Fatalf("expand to [b1 b2]: %v %v, want isr=[b1 b2] elr=[]", code, r)
	}

	// ELR off: the same shrink leaves the ELR empty.
	cfg.Controller.EligibleLeaderReplicas = false
	c = alterController(t, cfg)
	m = shrink(c)
	m.NewISR = m.NewISR[:1]
	if code, r, _ := c.alterPartition(m); code != model.NoError || len(r.ELR) != 0 {
		t.Fatalf("ELR off: %v %v, want elr=[]", code, r)
	}
}

// TestAlterPartitionOnCluster runs the checks over the network: answers,
// pushes to every broker, and nothing pushed for a refused request.
func TestAlterPartitionOnCluster(t *testing.T) {
	c := started(t, testConfig(), 3)
	c.createTopic(model.TopicSpec{Name: "t", Partitions: 1, ReplicationFactor: 3})
	c.runFor(10 * time.Millisecond)
	tp := model.TP("t", 0)
	p := c.partition(tp)
	leader := p.Leader
	var followers []model.BrokerID
	for _, r := range p.Replicas {
		if r != leader {
			followers = append(followers, r)
		}
	}
	req := model.AlterPartitionRequest{
		CorrelationID: injected, BrokerID: leader, BrokerEpoch: c.broker(leader).Epoch, TP: tp,
		LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch, NewISR: c.isr(leader, followers[0]),
	}
	replayed := func() int {
		n := 0
		for _, l := range c.logs {
			n += l.applied
		}
		return n
	}

	before := replayed()
	resp := c.alter(req)
	if resp.Error != model.NoError || resp.Partition.PartitionEpoch != p.PartitionEpoch+1 ||
		!slices.Equal(resp.Partition.ISR, ids(leader, followers[0])) {
		t.Fatalf("shrink: %v", resp)
	}
	if replayed() != before+3 {
		t.Fatalf("%d records replayed after an accepted change, want one by each of the 3 brokers", replayed()-before)
	}
	for id, l := range c.logs {
		if got := l.view[tp]; got.PartitionEpoch != resp.Partition.PartitionEpoch || !slices.Equal(got.ISR, resp.Partition.ISR) {
			t.Fatalf("%v sees %v, want %v", id, got, resp.Partition)
		}
	}

	// The same request again: its partition epoch is now stale (KIP-497).
	before = replayed()
	if resp := c.alter(req); resp.Error != model.InvalidUpdateVersion || resp.Partition.PartitionEpoch != p.PartitionEpoch+1 {
		t.Fatalf("replayed shrink: %v, want INVALID_UPDATE_VERSION with the current state", resp)
	}
	if replayed() != before {
		t.Fatalf("a refused request committed metadata")
	}

	// A follower is not the leader.
	req2 := req
	req2.BrokerID, req2.BrokerEpoch, req2.PartitionEpoch = followers[0], c.broker(followers[0]).Epoch, p.PartitionEpoch+1
	if resp := c.alter(req2); resp.Error != model.InvalidRequest {
		t.Fatalf("from a follower: %v, want INVALID_REQUEST", resp)
	}

	// The leader asks to be fenced; leadership moves and bumps the leader
	// epoch, and the old leader's request is fenced by its leader epoch.
	c.send(leader, model.BrokerHeartbeatRequest{
		CorrelationID: injected, BrokerID: leader, BrokerEpoch: c.broker(leader).Epoch,
		MetadataOffset: c.logs[leader].offset, WantFence: true,
	})
	c.runFor(10 * time.Millisecond)
	now := c.partition(tp)
	if now.Leader == leader || now.LeaderEpoch != p.LeaderEpoch+1 {
		t.Fatalf("after fencing the leader: %v", now)
	}
	req3 := req
	req3.PartitionEpoch = p.PartitionEpoch + 1
	if resp := c.alter(req3); resp.Error != model.FencedLeaderEpoch {
		t.Fatalf("deposed leader: %v, want FENCED_LEADER_EPOCH", resp)
	}
}
