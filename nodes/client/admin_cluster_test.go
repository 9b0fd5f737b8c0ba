package client_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/client"
	"kafkasim/scenarios/fixture"
	"kafkasim/sim"
)

// End to end over a real cluster: an admin client creates the topics
// through the brokers, which forward CreateTopics to the active
// controller; the harness creates none itself.

// newAdminCluster builds a cluster of three brokers and three controllers
// whose admin client starts at at and creates topics. The trace is
// recorded, for the tests to read the messages.
func newAdminCluster(t *testing.T, at time.Duration, topics ...model.TopicSpec) (*fixture.Cluster, *client.CreateTopicsResult) {
	t.Helper()
	kc := model.DefaultConfig()
	kc.Broker.DefaultReplicationFactor = 3
	c, err := fixture.NewCluster(fixture.ClusterOptions{Seed: 11, Config: kc, Trace: sim.Config{Record: true}})
	if err != nil {
		t.Fatal(err)
	}
	res := &client.CreateTopicsResult{}
	c.AddClientAt("adminclient-1", func() sim.Node {
		return client.NewAdmin(client.AdminOptions{Bootstrap: c.Brokers, Config: kc, Topics: topics, Result: res})
	}, at)
	c.Start()
	return c, res
}

// runUntilDone runs until the admin client's result is done, failing the
// test at deadline.
func runUntilDone(t *testing.T, c *fixture.Cluster, res *client.CreateTopicsResult, deadline time.Duration) {
	t.Helper()
	for !res.Done {
		if c.Sim.Now() >= deadline {
			t.Fatalf("createTopics not done at %v: %+v", c.Sim.Now(), *res)
		}
		c.Sim.Run(c.Sim.Now() + 10*time.Millisecond)
	}
}

// wantOutcomes checks each topic's outcome, in order.
func wantOutcomes(t *testing.T, res *client.CreateTopicsResult, want ...model.ErrorCode) {
	t.Helper()
	if len(res.Topics) != len(want) {
		t.Fatalf("outcomes %v, want %v", res.Topics, want)
	}
	for i, r := range res.Topics {
		if r.Error != want[i] {
			t.Fatalf("outcomes %v, want %v", res.Topics, want)
		}
	}
}

// wantLed checks that the controller has every partition of topic, each
// with a leader.
func wantLed(t *testing.T, c *fixture.Cluster, topic string, partitions int32) {
	t.Helper()
	for p := int32(0); p < partitions; p++ {
		if l := c.Leader(model.TP(topic, p)); l == model.NoBroker {
			t.Fatalf("%s-%d has no leader at the controller", topic, p)
		}
	}
	if _, ok := c.Partition(model.TP(topic, partitions)); ok {
		t.Fatalf("%s has more than %d partitions", topic, partitions)
	}
}

// delivered lists the messages delivered from one set of nodes to
// another whose text starts with prefix, as "from->to text".
func delivered(c *fixture.Cluster, from, to func(sim.NodeID) bool, prefix string) []string {
	var out []string
	for _, e := range c.Sim.Trace() {
		if e.Kind != "deliver" {
			continue
		}
		var src, dst int
		var text string
		arrow, space := strings.Index(e.Detail, "->"), strings.Index(e.Detail, " ")
		if arrow < 0 || space < arrow {
			continue
		}
		src, dst, text = nodeNum(e.Detail[:arrow]), nodeNum(e.Detail[arrow+2:space]), e.Detail[space+1:]
		if from(sim.NodeID(src)) && to(sim.NodeID(dst)) && strings.HasPrefix(text, prefix) {
			out = append(out, e.Detail)
		}
	}
	return out
}

// nodeNum reads a node's id from its trace name ("n12").
func nodeNum(s string) int {
	n := 0
	for _, ch := range strings.TrimPrefix(s, "n") {
		n = n*10 + int(ch-'0')
	}
	return n
}

func isAdmin(id sim.NodeID) bool  { return id == fixture.FirstClientID }
func isBroker(id sim.NodeID) bool { return id >= 1 && id < sim.NodeID(fixture.DefaultControllerID) }
func isController(id sim.NodeID) bool {
	return id >= sim.NodeID(fixture.DefaultControllerID) && id < fixture.FirstClientID
}

// The admin client starts with the cluster, so its first attempts meet
// brokers that have not caught up (their connections are refused); the
// topics are created through a broker, each with its own outcome.
func TestAdminCreatesTopicsThroughTheBrokers(t *testing.T) {
	c, res := newAdminCluster(t, 0,
		model.TopicSpec{Name: "t", Partitions: 6, ReplicationFactor: 3},
		model.TopicSpec{Name: "u", Partitions: 2, Configs: []model.ConfigEntry{{Name: "min.insync.replicas", Value: "2"}}},
		model.TopicSpec{Name: "wide", Partitions: 1, ReplicationFactor: 4},
		model.TopicSpec{Name: "bad name", Partitions: 1},
	)
	runUntilDone(t, c, res, 20*time.Second)
	wantOutcomes(t, res, model.NoError, model.NoError, model.InvalidReplicationFactor, model.InvalidTopicException)
	if err := res.Err(); err == nil || !strings.Contains(err.Error(), "wide: INVALID_REPLICATION_FACTOR") {
		t.Fatalf("Err() = %v, want it to name wide and bad name", err)
	}
	wantLed(t, c, "t", 6)
	wantLed(t, c, "u", 2)
	if sent := delivered(c, isAdmin, isController, ""); len(sent) > 0 {
		t.Fatalf("the admin client reached a controller: %v", sent)
	}
	if fwd := delivered(c, isBroker, isController, "CreateTopics "); len(fwd) == 0 {
		t.Fatal("no broker forwarded CreateTopics")
	}
}

// The active controller is cut off from the other controllers just as the
// admin client asks: the request it was forwarded cannot commit, and when
// it resigns it answers NOT_CONTROLLER. The broker sends the request again
// until the new controller takes it; the admin client never sees
// NOT_CONTROLLER.
func TestAdminCreateTopicsAcrossAControllerChange(t *testing.T) {
	const at = 3 * time.Second
	c, res := newAdminCluster(t, at, model.TopicSpec{Name: "t", Partitions: 3, ReplicationFactor: 3})
	c.Sim.Run(at - time.Millisecond)
	old := c.ActiveController()
	if old == model.NoBroker {
		t.Fatal("no active controller")
	}
	for _, id := range c.Controllers {
		if id != old {
			c.Sim.Cut(sim.NodeID(old), sim.NodeID(id))
			c.Sim.Cut(sim.NodeID(id), sim.NodeID(old))
		}
	}
	runUntilDone(t, c, res, 30*time.Second)
	wantOutcomes(t, res, model.NoError)
	wantLed(t, c, "t", 3)
	if now := c.ActiveController(); now == old {
		t.Fatalf("controller %v is still active", old)
	}
	fromOld := func(id sim.NodeID) bool { return id == sim.NodeID(old) }
	refused := slices.ContainsFunc(delivered(c, fromOld, isBroker, "CreateTopicsResponse"), func(s string) bool {
		return strings.Contains(s, "NOT_CONTROLLER")
	})
	if !refused {
		t.Fatalf("the old controller never answered NOT_CONTROLLER: %v", delivered(c, isController, isBroker, "CreateTopicsResponse"))
	}
	for _, m := range delivered(c, isBroker, isAdmin, "CreateTopicsResponse") {
		if strings.Contains(m, "NOT_CONTROLLER") {
			t.Fatalf("the admin client saw %s", m)
		}
	}
}

// The broker the admin client asked crashes just after forwarding the
// request: the controller creates the topic, but the answer is lost with
// the broker. The admin client retries on another broker and learns that
// the topic exists (TOPIC_ALREADY_EXISTS), which leaves it usable.
func TestAdminCreateTopicsSurvivesABrokerCrash(t *testing.T) {
	const at = 3 * time.Second
	c, res := newAdminCluster(t, at, model.TopicSpec{Name: "t", Partitions: 3, ReplicationFactor: 3})
	c.Sim.Run(at)
	var fwd []string
	for len(fwd) == 0 {
		if c.Sim.Now() > at+time.Second {
			t.Fatal("no broker forwarded CreateTopics")
		}
		c.Sim.Run(c.Sim.Now() + 100*time.Microsecond)
		fwd = delivered(c, isBroker, isController, "CreateTopics ")
	}
	victim := sim.NodeID(nodeNum(fwd[0][:strings.Index(fwd[0], "->")]))
	c.Sim.Crash(victim)
	runUntilDone(t, c, res, 60*time.Second)
	wantOutcomes(t, res, model.TopicAlreadyExists)
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	wantLed(t, c, "t", 3)
	others := func(id sim.NodeID) bool { return isBroker(id) && id != victim }
	if len(delivered(c, isAdmin, others, "CreateTopics ")) == 0 {
		t.Fatal("the admin client did not retry on another broker")
	}
}

// With WaitForBrokers, the call waits until a Metadata answer lists that
// many live brokers, as a deployment script waits for its cluster: while
// one broker of three is down nothing is sent, and once it is back the
// replicas are placed over all three.
func TestAdminWaitsForEveryBrokerBeforeCreating(t *testing.T) {
	kc := model.DefaultConfig()
	kc.Broker.DefaultReplicationFactor = 1
	c, err := fixture.NewCluster(fixture.ClusterOptions{Seed: 5, Config: kc, Trace: sim.Config{Record: true}})
	if err != nil {
		t.Fatal(err)
	}
	res := &client.CreateTopicsResult{}
	c.AddClient("adminclient-1", func() sim.Node {
		return client.NewAdmin(client.AdminOptions{Bootstrap: c.Brokers, Config: kc, WaitForBrokers: 3, Result: res,
			Topics: []model.TopicSpec{{Name: "t", Partitions: 6, ReplicationFactor: 1}}})
	})
	c.Start()
	c.Sim.Crash(3)
	c.Sim.Run(5 * time.Second)
	if sent := delivered(c, isAdmin, isBroker, "CreateTopics "); len(sent) > 0 || len(res.Topics) > 0 {
		t.Fatalf("with broker 3 down the admin client sent %v (outcomes %v)", sent, res.Topics)
	}
	c.Sim.Restart(3)
	runUntilDone(t, c, res, 20*time.Second)
	wantOutcomes(t, res, model.NoError)
	hosts := map[model.BrokerID]bool{}
	for p := int32(0); p < 6; p++ {
		ps, _ := c.Partition(model.TP("t", p))
		hosts[ps.Replicas[0]] = true
	}
	if !hosts[3] {
		t.Fatalf("no partition of six placed on broker 3: %v", hosts)
	}
}
