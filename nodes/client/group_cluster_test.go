package client_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/client"
	"kafkasim/scenarios/fixture"
	"kafkasim/sim"
)

// End to end over a real cluster: three brokers hosting the group
// coordinator, a topic of six partitions, a producer, and three members
// of group g.

type groupCluster struct {
	*fixture.Cluster
	t       *testing.T
	work    *fixture.Sequence
	members []sim.NodeID
}

func groupConfig(t *testing.T, assignor model.Assignor) model.Config {
	t.Helper()
	kc := model.DefaultConfig()
	for _, s := range []string{
		"default.replication.factor=3", "min.insync.replicas=2", "auto.offset.reset=earliest",
		"session.timeout.ms=10s", "heartbeat.interval.ms=1s", "auto.commit.interval.ms=1s",
		"offsets.topic.num.partitions=3", "partition.assignment.strategy=" + string(assignor),
	} {
		if err := kc.SetPair(s); err != nil {
			t.Fatal(err)
		}
	}
	return kc
}

func newGroupCluster(t *testing.T, kc model.Config, members int) *groupCluster {
	return newGroupClusterWith(t, kc, members, nil)
}

// newGroupClusterWith lets mod adjust member i's options.
func newGroupClusterWith(t *testing.T, kc model.Config, members int, mod func(i int, o *client.ConsumerOptions)) *groupCluster {
	t.Helper()
	return newGroupClusterOn(t, kc, members, mod, sim.Config{})
}

// newGroupClusterOn is newGroupClusterWith with the kernel's tracing
// settings of trace (fixture.ClusterOptions.Trace).
func newGroupClusterOn(t *testing.T, kc model.Config, members int, mod func(i int, o *client.ConsumerOptions), trace sim.Config) *groupCluster {
	t.Helper()
	c, err := fixture.NewCluster(fixture.ClusterOptions{
		Seed: 7, Config: kc, Trace: trace,
		Topics: []model.TopicSpec{{Name: "t", Partitions: 6, ReplicationFactor: 3}},
	})
	if err != nil {
		t.Fatal(err)
	}
	gc := &groupCluster{Cluster: c, t: t, work: &fixture.Sequence{Topic: "t", Partitions: 6, Prefix: "v"}}
	c.AddClient("producer", func() sim.Node {
		return client.NewProducer(client.ProducerOptions{
			Bootstrap: c.Brokers, Config: kc, Recorder: c.History, Topics: []string{"t"},
			Workload: gc.work, SendInterval: 20 * time.Millisecond,
		})
	})
	for i := 0; i < members; i++ {
		opts := client.ConsumerOptions{Bootstrap: c.Brokers, Config: kc, Recorder: c.History, GroupID: "g", Topics: []string{"t"}}
		if mod != nil {
			mod(i, &opts)
		}
		gc.members = append(gc.members, c.AddClient(fmt.Sprintf("member%d", i), func() sim.Node { return client.NewConsumer(opts) }))
	}
	c.Start()
	if err := c.RunUntilReady(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	return gc
}

func (gc *groupCluster) member(id sim.NodeID) *client.Consumer {
	return gc.Sim.Node(id).(*client.Consumer)
}

// assignments returns each live member's assignment, and fails the test
// unless they are disjoint.
func (gc *groupCluster) assignments() map[sim.NodeID][]model.TopicPartition {
	gc.t.Helper()
	out := map[sim.NodeID][]model.TopicPartition{}
	seen := map[model.TopicPartition]sim.NodeID{}
	for _, id := range gc.members {
		if !gc.Sim.IsUp(id) {
			continue
		}
		a := gc.member(id).Assignment()
		out[id] = a
		for _, tp := range a {
			if o, dup := seen[tp]; dup {
				gc.t.Errorf("at %v %v is assigned to both %v and %v", gc.Sim.Now(), tp, o, id)
			}
			seen[tp] = id
		}
	}
	return out
}

// covered counts the partitions the live members own.
func covered(as map[sim.NodeID][]model.TopicPartition) int {
	n := 0
	for _, a := range as {
		n += len(a)
	}
	return n
}

// hold is one member's ownership of a partition, from the rebalance that
// gave it to the one that took it (model.Never while it lasts).
type hold struct {
	process  int
	from, to time.Duration
}

// firstOverlap names the first partition of topic "t" (of parts) that a
// member gained while another member held it.
func firstOverlap(holds map[model.TopicPartition][]hold, parts int32) string {
	for p := int32(0); p < parts; p++ {
		tp := model.TP("t", p)
		hs := holds[tp]
		for i := range hs {
			for j := range hs {
				if i != j && hs[i].process != hs[j].process && hs[i].from <= hs[j].from && hs[j].from < hs[i].to {
					return fmt.Sprintf("%v: p%d gained it at %v while p%d held it since %v", tp, hs[j].process, hs[j].from, hs[i].process, hs[i].from)
				}
			}
		}
	}
	return ""
}

// overlaps replays the history's rebalance ops into ownership intervals
// per process and names the first partition gained by one member while
// another still owned it. A crashed member's hold ends at its crash.
func overlaps(h model.History, crashedAt map[int]time.Duration) string {
	holds := map[model.TopicPartition][]hold{}
	open := map[model.TopicPartition]map[int]int{}
	for _, op := range h {
		if op.F != model.FRebalance {
			continue
		}
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
			to := model.Never
			if c, ok := crashedAt[op.Process]; ok && c >= op.Time {
				to = c
			}
			open[tp][op.Process] = len(holds[tp])
			holds[tp] = append(holds[tp], hold{process: op.Process, from: op.Time, to: to})
		}
	}
	return firstOverlap(holds, 6)
}

// unownedPoll names the first poll that returned records of a partition
// its member did not own at that instant according to its rebalance ops.
func unownedPoll(h model.History) string {
	owns := map[int]map[model.TopicPartition]bool{}
	for _, op := range h {
		if owns[op.Process] == nil {
			owns[op.Process] = map[model.TopicPartition]bool{}
		}
		switch op.F {
		case model.FRebalance:
			for _, tp := range op.Lost {
				delete(owns[op.Process], tp)
			}
			for _, tp := range op.Gained {
				owns[op.Process][tp] = true
			}
		case model.FSubscribe:
			owns[op.Process] = map[model.TopicPartition]bool{}
		case model.FPoll:
			for _, pr := range op.Records {
				if !owns[op.Process][pr.TP] {
					return fmt.Sprintf("%s returned %v, which p%d did not own", op.String(), pr.TP, op.Process)
				}
			}
		}
	}
	return ""
}

func forBoth(t *testing.T, f func(t *testing.T, kc model.Config)) {
	for _, a := range []model.Assignor{model.AssignRange, model.AssignCooperativeSticky} {
		t.Run(string(a), func(t *testing.T) { f(t, groupConfig(t, a)) })
	}
}

// Every partition is assigned to exactly one member, two each, and the
// members read what the producer wrote.
func TestGroupClusterEveryPartitionOneOwner(t *testing.T) {
	forBoth(t, func(t *testing.T, kc model.Config) {
		gc := newGroupCluster(t, kc, 3)
		gc.Sim.Run(gc.Sim.Now() + 20*time.Second)
		as := gc.assignments()
		for id, a := range as {
			if len(a) != 2 {
				t.Errorf("member %v owns %v, want two", id, a)
			}
		}
		if covered(as) != 6 {
			t.Errorf("members own %d partitions, want 6: %v", covered(as), as)
		}
		h := gc.History.History()
		if o := overlaps(h, nil); o != "" {
			t.Error(o)
		}
		if u := unownedPoll(h); u != "" {
			t.Error(u)
		}
		polls := 0
		for _, op := range h {
			if op.F == model.FPoll && op.Type == model.OpOK {
				polls++
			}
		}
		if polls == 0 {
			t.Error("no member polled anything")
		}
	})
}

// A crashed member's partitions stay unowned until the coordinator expires
// its session, then the others take them; a gracefully stopped member
// leaves the group, and the others take its partitions at once.
func TestGroupClusterCrashAndStop(t *testing.T) {
	forBoth(t, func(t *testing.T, kc model.Config) {
		gc := newGroupCluster(t, kc, 3)
		gc.Sim.Run(gc.Sim.Now() + 20*time.Second)
		crashed := gc.members[1]
		crashAt := gc.Sim.Now()
		gc.Sim.Crash(crashed)
		gc.Sim.Run(crashAt + 5*time.Second)
		if n := covered(gc.assignments()); n != 4 {
			t.Errorf("5s after the crash (session 10s) the others own %d partitions, want still 4", n)
		}
		gc.Sim.Run(crashAt + 20*time.Second)
		as := gc.assignments()
		if covered(as) != 6 {
			t.Fatalf("20s after the crash the others own %v, want all six", as)
		}
		stopped := gc.members[2]
		stopAt := gc.Sim.Now()
		gc.Sim.Shutdown(stopped)
		gc.Sim.Run(stopAt + 4*time.Second)
		if a := gc.assignments()[gc.members[0]]; len(a) != 6 {
			t.Errorf("4s after the stop (session 10s) the last member owns %v, want all six", a)
		}
		h := gc.History.History()
		if o := overlaps(h, map[int]time.Duration{int(crashed): crashAt}); o != "" {
			t.Error(o)
		}
		if u := unownedPoll(h); u != "" {
			t.Error(u)
		}
	})
}

// A member that crashes and restarts subscribes again and resumes every
// partition it gets from the group's committed offset: its first record
// of each is the one the last acknowledged commit pointed at.
func TestGroupClusterRestartResumesFromCommitted(t *testing.T) {
	forBoth(t, func(t *testing.T, kc model.Config) {
		gc := newGroupCluster(t, kc, 3)
		gc.Sim.Run(gc.Sim.Now() + 20*time.Second)
		m := gc.members[0]
		crashAt := gc.Sim.Now()
		gc.Sim.Crash(m)
		gc.Sim.Run(crashAt + time.Second)
		gc.Sim.Restart(m)
		gc.Sim.Run(crashAt + 40*time.Second)

		h := gc.History.History()
		subs := 0
		for _, op := range h {
			if op.F == model.FSubscribe && op.Process == int(m) {
				subs++
			}
		}
		if subs != 2 {
			t.Errorf("member subscribed %d times, want twice", subs)
		}
		// For each partition the restarted member gained, its first poll
		// starts at the latest acknowledged commit before the gain.
		gainedAt := map[model.TopicPartition]time.Duration{}
		for _, op := range h {
			if op.F == model.FRebalance && op.Process == int(m) && op.Time > crashAt {
				for _, tp := range op.Gained {
					if _, ok := gainedAt[tp]; !ok {
						gainedAt[tp] = op.Time
					}
				}
			}
		}
		if len(gainedAt) == 0 {
			t.Fatal("the restarted member gained nothing")
		}
		checked := 0
		for tp, at := range gainedAt {
			committed := model.NoOffset
			for _, op := range h {
				if op.F == model.FCommit && op.Type == model.OpOK && op.End < at {
					for _, o := range op.Offsets {
						if o.TP == tp {
							committed = o.Offset
						}
					}
				}
			}
			first := model.NoOffset
			for _, op := range h {
				if op.F != model.FPoll || op.Process != int(m) || op.Time < at || first != model.NoOffset {
					continue
				}
				for _, pr := range op.Records {
					if pr.TP == tp {
						first = pr.Records[0].Offset
					}
				}
			}
			if committed == model.NoOffset || first == model.NoOffset {
				continue
			}
			checked++
			if first != committed {
				t.Errorf("%v: the restarted member's first record is at %d, the committed offset at its gain was %d", tp, first, committed)
			}
		}
		if checked == 0 {
			t.Errorf("no gained partition had both a commit and a poll: %v", gainedAt)
		}
		if a := gc.assignments(); covered(a) != 6 {
			t.Errorf("after the restart the members own %v, want all six", a)
		}
		if u := unownedPoll(h); u != "" {
			t.Error(u)
		}
	})
}

// A static member (group.instance.id, KIP-345) that crashes and restarts
// within its session takes its old place back: the same partitions in the
// same generation, and nobody else rebalances.
func TestGroupClusterStaticMemberRestart(t *testing.T) {
	gc := newGroupClusterWith(t, groupConfig(t, model.AssignRange), 3, func(i int, o *client.ConsumerOptions) {
		o.GroupInstanceID = fmt.Sprintf("instance-%d", i)
	})
	gc.Sim.Run(gc.Sim.Now() + 20*time.Second)
	m := gc.members[1]
	before := gc.member(m).Assignment()
	gen := gc.member(m).Generation()
	crashAt := gc.Sim.Now()
	gc.Sim.Crash(m)
	gc.Sim.Run(crashAt + 2*time.Second)
	gc.Sim.Restart(m)
	gc.Sim.Run(crashAt + 30*time.Second)
	if a, g := gc.member(m).Assignment(), gc.member(m).Generation(); !slices.Equal(a, before) || g != gen || len(a) != 2 {
		t.Errorf("after the restart it owns %v in generation %d, want %v in %d", a, g, before, gen)
	}
	for _, op := range gc.History.History() {
		if op.F == model.FRebalance && op.Process != int(m) && op.Time > crashAt {
			t.Errorf("%s: another member rebalanced", op.String())
		}
	}
}

// When the coordinator's broker crashes, the members find the new leader
// of the group's __consumer_offsets partition, go on consuming, and a
// member that gains a partition afterwards starts from the offset last
// committed before the crash or after it.
func TestGroupClusterCoordinatorFailover(t *testing.T) {
	forBoth(t, func(t *testing.T, kc model.Config) {
		gc := newGroupCluster(t, kc, 3)
		gc.Sim.Run(gc.Sim.Now() + 20*time.Second)
		old := gc.member(gc.members[0]).Coordinator()
		if old == model.NoBroker {
			t.Fatal("no coordinator after 20s")
		}
		crashAt := gc.Sim.Now()
		gc.Sim.Crash(sim.NodeID(old))
		gc.Sim.Run(crashAt + 40*time.Second)
		for _, id := range gc.members {
			if c := gc.member(id).Coordinator(); c == old || c == model.NoBroker {
				t.Errorf("member %v's coordinator is %v, want the new one (the old was %v)", id, c, old)
			}
		}
		if a := gc.assignments(); covered(a) != 6 {
			t.Errorf("after the failover the members own %v, want all six", a)
		}
		h := gc.History.History()
		late := map[model.TopicPartition]bool{}
		commitsAfter := 0
		for _, op := range h {
			if op.F == model.FPoll && op.Time > crashAt+30*time.Second {
				for _, pr := range op.Records {
					late[pr.TP] = true
				}
			}
			if op.F == model.FCommit && op.Type == model.OpOK && op.Time > crashAt+20*time.Second {
				commitsAfter++
			}
		}
		if len(late) != 6 || commitsAfter == 0 {
			t.Errorf("after the failover polls read %d partitions and %d commits succeeded, want all six and some", len(late), commitsAfter)
		}
		if o := overlaps(h, nil); o != "" {
			t.Error(o)
		}
		if u := unownedPoll(h); u != "" {
			t.Error(u)
		}
	})
}
