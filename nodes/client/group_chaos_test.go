package client_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/client"
	"kafkasim/scenarios/fixture"
	"kafkasim/sim"
)

// A seeded storm over a real cluster: members crash, restart and stop,
// brokers (coordinators among them) crash and come back, and members are
// cut off from single brokers, coordinators included, for up to 20 s. With
// kafkasim's consumer.self.fencing extension on (Kafka's consumers do not
// fence themselves; off, the cuts make zombies) no partition ever has two owners in
// the history, no member polls a partition after another member gained
// it, and once everything heals every acknowledged record has been polled
// and every partition has exactly one owner.
func TestGroupClusterChaos(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		for _, a := range []model.Assignor{model.AssignRange, model.AssignCooperativeSticky} {
			t.Run(fmt.Sprintf("seed=%d/%s", seed, a), func(t *testing.T) { chaosRun(t, seed, a) })
		}
	}
}

func chaosRun(t *testing.T, seed uint64, a model.Assignor) {
	kc := groupConfig(t, a)
	if err := kc.SetPair("consumer.self.fencing=true"); err != nil {
		t.Fatal(err)
	}
	c, err := fixture.NewCluster(fixture.ClusterOptions{Seed: seed, Config: kc, Topics: []model.TopicSpec{{Name: "t", Partitions: 6, ReplicationFactor: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	work := &fixture.Sequence{Topic: "t", Partitions: 6, Prefix: "v"}
	c.AddClient("producer", func() sim.Node {
		return client.NewProducer(client.ProducerOptions{
			Bootstrap: c.Brokers, Config: kc, Recorder: c.History, Topics: []string{"t"},
			Workload: work, SendInterval: 20 * time.Millisecond,
		})
	})
	var members []sim.NodeID
	for i := 0; i < 4; i++ {
		members = append(members, c.AddClient(fmt.Sprintf("member%d", i), func() sim.Node {
			return client.NewConsumer(client.ConsumerOptions{Bootstrap: c.Brokers, Config: kc, Recorder: c.History, GroupID: "g", Topics: []string{"t"}})
		}))
	}
	c.Start()
	if err := c.RunUntilReady(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 7))
	crashes := map[int][]time.Duration{}
	now := c.Sim.Now()
	for step := 0; step < 12; step++ {
		now += time.Duration(2+r.IntN(8)) * time.Second
		c.Sim.Run(now)
		m := members[r.IntN(len(members))]
		b := sim.NodeID(c.Brokers[r.IntN(len(c.Brokers))])
		switch r.IntN(4) {
		case 0:
			if c.Sim.IsUp(m) {
				c.Sim.Crash(m)
				crashes[int(m)] = append(crashes[int(m)], now)
			} else {
				c.Sim.Restart(m)
			}
		case 1:
			if c.Sim.IsUp(m) {
				c.Sim.Shutdown(m)
			} else {
				c.Sim.Restart(m)
			}
		case 2:
			if c.Sim.IsUp(b) {
				c.Sim.Crash(b)
				c.Sim.AfterFunc(time.Duration(1+r.IntN(10))*time.Second, "restart", func() {
					if !c.Sim.IsUp(b) {
						c.Sim.Restart(b)
					}
				})
			}
		case 3:
			c.Sim.Cut(m, b)
			c.Sim.Cut(b, m)
			c.Sim.AfterFunc(time.Duration(1+r.IntN(20))*time.Second, "heal", func() { c.Sim.Heal(m, b); c.Sim.Heal(b, m) })
		}
	}
	c.Sim.Run(now + 20*time.Second)
	c.Sim.HealAll()
	for _, id := range c.Sim.Nodes() {
		if !c.Sim.IsUp(id) {
			c.Sim.Restart(id)
		}
	}
	work.Stop()
	c.Sim.Run(now + 80*time.Second)

	h := c.History.History()
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	if o := overlapsAcrossRestarts(h, crashes); o != "" {
		t.Error(o)
	}
	if z := readAfterHandover(h); z != "" {
		t.Error(z)
	}
	if u := unownedPoll(h); u != "" {
		t.Error(u)
	}
	polled := map[string]bool{}
	for _, op := range h {
		for _, pr := range op.Records {
			for _, rec := range pr.Records {
				polled[rec.Value] = true
			}
		}
	}
	for _, op := range h {
		if op.F == model.FSend && op.Type == model.OpOK && !polled[op.Value] {
			t.Errorf("acknowledged %s never polled", op.String())
			break
		}
	}
	gc := &groupCluster{Cluster: c, t: t, members: members}
	if as := gc.assignments(); covered(as) != 6 {
		t.Errorf("after healing the members own %v, want the six partitions once each", as)
	}
}

// overlapsAcrossRestarts is overlaps for members that crash and restart:
// a restart's subscribe op ends the holds of the previous incarnation at
// its crash.
func overlapsAcrossRestarts(h model.History, crashes map[int][]time.Duration) string {
	holds := map[model.TopicPartition][]hold{}
	open := map[model.TopicPartition]map[int]int{}
	end := func(process int, at time.Duration) {
		for p := int32(0); p < 6; p++ {
			tp := model.TP("t", p)
			if j, ok := open[tp][process]; ok {
				holds[tp][j].to = at
				delete(open[tp], process)
			}
		}
	}
	for _, op := range h {
		switch op.F {
		case model.FSubscribe:
			crashed := op.Time
			for _, at := range crashes[op.Process] {
				if at <= op.Time {
					crashed = at
				}
			}
			end(op.Process, crashed)
		case model.FRebalance:
			for _, tp := range op.Lost {
				if j, ok := open[tp][op.Process]; ok {
					holds[tp][j].to = op.Time
					delete(open[tp], op.Process)
				}
			}
			for _, tp := range op.Gained {
				if open[tp] == nil {
					open[tp] = map[int]int{}
				}
				open[tp][op.Process] = len(holds[tp])
				holds[tp] = append(holds[tp], hold{process: op.Process, from: op.Time, to: model.Never})
			}
		}
	}
	return firstOverlap(holds, 6)
}

// readAfterHandover names the first poll of a partition by a member after
// another member gained it: the zombie consumer's read.
func readAfterHandover(h model.History) string {
	last := map[model.TopicPartition]int{}
	for _, op := range h {
		switch op.F {
		case model.FRebalance:
			for _, tp := range op.Gained {
				last[tp] = op.Process
			}
		case model.FPoll:
			for _, pr := range op.Records {
				if p, ok := last[pr.TP]; ok && p != op.Process {
					return fmt.Sprintf("%s read %v after p%d gained it", op.String(), pr.TP, p)
				}
			}
		}
	}
	return ""
}
