package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/scenarios/fixture"
	"kafkasim/sim"
)

// membersCluster builds brokers brokers and spares spare ones, topic t of
// two partitions with three replicas, and arms a schedule.
func membersCluster(t *testing.T, brokers, spares int, lines string) (*Scripted, *faults.Nemesis) {
	t.Helper()
	s, err := NewScripted(fixture.Options{Seed: 7, Config: model.DefaultConfig(),
		Spec: fixture.Spec{Brokers: brokers, SpareBrokers: spares, Partitions: 2, ReplicationFactor: 3}})
	if err != nil {
		t.Fatal(err)
	}
	s.ready = s.Sim.Now()
	nem, err := faults.Apply(world{s}, faults.MustParse("members", lines))
	if err != nil {
		t.Fatal(err)
	}
	nem.SetOutside(s.Spares)
	return s, nem
}

// hosts lists the partitions whose replicas, as the controller has them,
// include id.
func hosts(s *Scripted, id model.BrokerID) []model.TopicPartition {
	var out []model.TopicPartition
	for _, ps := range s.ControllerNode().Partitions() {
		if slices.Contains(ps.Replicas, id) {
			out = append(out, ps.TP)
		}
	}
	return out
}

func isRegistered(s *Scripted, id model.BrokerID) (registered, fenced bool) {
	for _, b := range s.ControllerNode().Brokers() {
		if b.ID == id {
			return true, b.Fenced
		}
	}
	return false, false
}

// TestAddBrokerJoinsEmpty: a spare broker is down and unregistered until
// add-broker; then it registers, is unfenced and holds no replica until a
// reassignment puts one there, after which it is in that partition's ISR.
func TestAddBrokerJoinsEmpty(t *testing.T) {
	s, _ := membersCluster(t, 3, 1, "at 30s add-broker b4\nat 45s reassign t/0 to b4,b2,b3\n")
	s.Sim.Run(29 * time.Second)
	if s.Sim.IsUp(4) || slices.Contains(s.Brokers, 4) {
		t.Fatal("the spare b4 runs, or is a member, before add-broker")
	}
	if ok, _ := isRegistered(s, 4); ok {
		t.Fatal("the spare b4 is registered before add-broker")
	}
	s.Sim.Run(40 * time.Second)
	if ok, fenced := isRegistered(s, 4); !ok || fenced {
		t.Fatalf("b4 after add-broker: registered %v, fenced %v", ok, fenced)
	}
	if h := hosts(s, 4); len(h) != 0 || !slices.Contains(s.Brokers, 4) {
		t.Fatalf("b4 holds %v before any reassignment (members %v)", h, s.Brokers)
	}
	s.Sim.Run(70 * time.Second)
	ps, _ := s.Partition(model.TP("t", 0))
	if !slices.Equal(ps.Replicas, []model.BrokerID{4, 2, 3}) || !slices.Contains(ps.ISR, 4) {
		t.Fatalf("t/0 after the reassignment onto b4: %v", ps)
	}
}

// TestDecommissionMovesThenUnregisters: decommissioning b1 of four moves
// each of its replicas to the broker that has none of that partition,
// stops it and unregisters it; the writes acknowledged before and during
// it are all on the brokers that remain.
func TestDecommissionMovesThenUnregisters(t *testing.T) {
	s, nem := membersCluster(t, 4, 0, "at 30s decommission b1\n")
	hosted := hosts(s, 1)
	if len(hosted) == 0 {
		t.Fatal("b1 hosts nothing to move")
	}
	s.Sim.Run(80 * time.Second)
	// Each move off b1 is a replica-set change the reassignment checker
	// reads (checkers/reassignment.go), and each left the replicas that
	// stay in the ISR.
	var removedFrom []model.TopicPartition
	for _, o := range s.Observed.Assignments {
		if slices.Contains(o.Before, 1) && !slices.Contains(o.Replicas, 1) {
			removedFrom = append(removedFrom, o.TP)
			for _, r := range o.Replicas {
				if !slices.Contains(o.ISR, r) {
					t.Errorf("%v: b1 removed with %v outside the ISR %v", o.TP, r, o.ISR)
				}
			}
		}
	}
	if !slices.Equal(removedFrom, hosted) {
		t.Fatalf("removals of b1 observed on %v, want %v", removedFrom, hosted)
	}
	if rs := s.Replicas(hosted[0]); !slices.ContainsFunc(rs, func(r fixture.Replica) bool { return r.Broker == 1 }) {
		t.Fatalf("the decommissioned b1's log of %v is not read at the end: %v", hosted[0], rs)
	}
	if h := hosts(s, 1); len(h) != 0 {
		t.Fatalf("b1 still hosts %v", h)
	}
	if ok, _ := isRegistered(s, 1); ok || s.Sim.IsUp(1) {
		t.Fatalf("b1 after its decommission: registered %v, up %v", ok, s.Sim.IsUp(1))
	}
	if slices.Contains(s.Brokers, 1) || !slices.Equal(s.Retired, []model.BrokerID{1}) {
		t.Fatalf("members %v, retired %v", s.Brokers, s.Retired)
	}
	for _, ps := range s.ControllerNode().Partitions() {
		if len(ps.Replicas) != 3 || len(ps.ISR) != 3 {
			t.Errorf("%v after the decommission: %v", ps.TP, ps)
		}
	}
	nem.Heal()
	s.Sim.Run(s.Sim.Now() + 5*time.Second)
	if s.Sim.IsUp(1) {
		t.Fatal("the heal restarted the decommissioned b1")
	}
	log := fmt.Sprint(nem.Log())
	if !strings.Contains(log, "decommission b1 -> b10") || strings.Contains(log, "refused") {
		t.Fatalf("fault log: %s", log)
	}
}

// TestDecommissionRefusedBelowReplicationFactor: with as many brokers as
// replicas, a decommission is refused INVALID_REPLICATION_FACTOR and the
// broker keeps running and hosting its replicas.
func TestDecommissionRefusedBelowReplicationFactor(t *testing.T) {
	s, nem := membersCluster(t, 3, 0, "at 30s decommission b1\n")
	s.Sim.Run(60 * time.Second)
	if !s.Sim.IsUp(1) || len(hosts(s, 1)) == 0 || !slices.Contains(s.Brokers, 1) {
		t.Fatal("a refused decommission stopped b1 or moved its replicas")
	}
	if log := fmt.Sprint(nem.Log()); !strings.Contains(log, "INVALID_REPLICATION_FACTOR") {
		t.Fatalf("fault log: %s", log)
	}
}

// TestCrashedBrokerDecommissionedStaysDown: a broker decommissioned while
// a crash window holds it down is moved off from its replicas'
// followers, unregistered, and neither the window's end nor the heal
// restarts it.
func TestCrashedBrokerDecommissionedStaysDown(t *testing.T) {
	s, nem := membersCluster(t, 4, 0, "from 30s to 70s crash b2\nat 31s decommission b2\n")
	s.Sim.Run(90 * time.Second)
	if s.Sim.IsUp(2) {
		t.Fatal("the window's end restarted the decommissioned b2")
	}
	if ok, _ := isRegistered(s, 2); ok || len(hosts(s, 2)) != 0 {
		t.Fatalf("b2: registered %v, hosts %v", ok, hosts(s, 2))
	}
	nem.Heal()
	s.Sim.Run(s.Sim.Now() + 5*time.Second)
	if s.Sim.IsUp(sim.NodeID(2)) {
		t.Fatal("the heal restarted the decommissioned b2")
	}
}

// TestMembershipLinesCheckedAgainstTheCluster: schedule lines naming a
// spare the cluster lacks, a broker added twice, one decommissioned twice
// or a decommission below the replication factor are refused before the
// run, as file:line: reason; a good file passes.
func TestMembershipLinesCheckedAgainstTheCluster(t *testing.T) {
	sc := growAndShrink()
	for _, c := range []struct{ lines, want string }{
		{"at 20s add-broker b4\nat 30s decommission b1\nat 31s reassign t/0 to b4,b2,b3\n", ""},
		{"at 20s add-broker b5\n", "f:1: at 20s add-broker b5: no node b5 in this cluster"},
		{"at 20s add-broker b2\n", "f:1: at 20s add-broker b2: b2 is a broker of this cluster already"},
		{"at 20s add-broker b4\nat 21s add-broker b4\n", "f:2: at 21s add-broker b4: b4 is a broker of this cluster already"},
		{"at 20s decommission b4\n", "f:1: at 20s decommission b4: b4 is a spare not added yet"},
		{"at 20s decommission b1\n", "f:1: at 20s decommission b1: decommissioning b1 would leave 2 brokers, fewer than the 3 replicas"},
		{"at 20s add-broker b4\nat 30s decommission b1\nat 40s decommission b1\n", "f:3: at 40s decommission b1: b1 is decommissioned already"},
		{"at 20s reassign t/0 to b4,b2,b3\n", "f:1: at 20s reassign t/0 to b4,b2,b3: b4 is a spare not added yet"},
	} {
		s, lines, err := faults.ParseLines(strings.NewReader(c.lines), "f")
		if err != nil {
			t.Fatal(err)
		}
		_, err = CheckSchedule(sc, 1, nil, ScheduleFile{Name: "f", Schedule: s, Lines: lines})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q refused: %v", c.lines, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("%q: got %v, want %s...", c.lines, err, c.want)
		}
	}
}

// TestShrinkKeepsMembershipLinesValid: a shrink of a schedule with
// membership operations tries no candidate that run -schedule would
// refuse (a decommission left below the replication factor once its
// add-broker is dropped); one without them is not guarded.
func TestShrinkKeepsMembershipLinesValid(t *testing.T) {
	sc := growAndShrink()
	both := faults.MustParse("f", "at 20s add-broker b4\nat 30s decommission b1\n")
	valid, err := membersGuard(sc, 1, nil, both)
	if err != nil || valid == nil {
		t.Fatalf("guard: %v", err)
	}
	if !valid(both) || !valid(both[:1]) || valid(both[1:]) {
		t.Fatalf("guard: both %v, add only %v, decommission only %v", valid(both), valid(both[:1]), valid(both[1:]))
	}
	if g, _ := membersGuard(sc, 1, nil, faults.MustParse("f", "from 20s to 25s crash b1\n")); g != nil {
		t.Fatal("a schedule without membership operations is guarded")
	}
}

// TestLivenessWaitsForADecommission: a decommission script that has not
// finished keeps the cluster from counting as converged, and says where
// it stands; a finished one does not.
func TestLivenessWaitsForADecommission(t *testing.T) {
	s, _ := membersCluster(t, 3, 0, "")
	s.decommissions = []*decommission{{id: 2, step: stepDone}, {id: 3, step: stepMoving}}
	if got := s.decommissionStuck(); !strings.HasPrefix(got, "decommission of b3 not finished: its replicas still moving off (t/0 replicas [") {
		t.Fatalf("stuck: %q", got)
	}
	s.decommissions[1].step = stepDone
	if got := s.decommissionStuck(); got != "" {
		t.Fatalf("stuck after both finished: %q", got)
	}
}

// TestDecommissionDropsAReplicaNoBrokerCanTake: a reassignment replaced
// by another and then cancelled leaves t/0 with four replicas on four
// brokers (KIP-455 reverts only the last one). Moving b1 off it finds no
// broker that is not a replica already, so b1 goes without a
// replacement, down to the replication factor; before, the script waited
// for a broker that never came (members-under-chaos seeds 92400011,
// 92400034, 92400182, 92400191).
func TestDecommissionDropsAReplicaNoBrokerCanTake(t *testing.T) {
	s, _ := membersCluster(t, 4, 0, "from 29s to 32s crash b4\nat 30s reassign t/0 to b4,b2,b3\nat 30s reassign t/0 to b4,b2,b1\nat 30.5s cancel-reassign t/0\n")
	s.Sim.Run(35 * time.Second)
	ps, _ := s.Partition(model.TP("t", 0))
	if len(ps.Replicas) != 4 || len(s.ControllerNode().ListPartitionReassignments()) != 0 {
		t.Fatalf("t/0 after the cancel: %v", ps)
	}
	s.decommissioning = map[model.BrokerID]bool{1: true}
	s.moveOff(s.ControllerNode(), 1)
	s.Sim.Run(40 * time.Second)
	if ps, _ := s.Partition(model.TP("t", 0)); len(ps.Replicas) != 3 || slices.Contains(ps.Replicas, 1) {
		t.Fatalf("t/0 after moving b1 off: %v", ps)
	}
}

// TestDecommissionMayKeepAReplicaBeingRemoved: with t/0 reassigned from
// b1 to b4 while b4 is down, moving b4 off it may put b1, which the
// reassignment is removing, in b4's place; before, the script counted b1
// as a replica already and found no broker (members-under-chaos seed
// 92400057, where reassignments named a broker being decommissioned).
func TestDecommissionMayKeepAReplicaBeingRemoved(t *testing.T) {
	s, _ := membersCluster(t, 4, 0, "from 29s to 60s crash b4\nat 30s reassign t/0 to b4,b2,b3\n")
	s.Sim.Run(32 * time.Second)
	if r := s.ControllerNode().ListPartitionReassignments(); len(r) != 1 || !slices.Equal(r[0].Removing, []model.BrokerID{1}) {
		t.Fatalf("reassignments: %v", r)
	}
	s.decommissioning = map[model.BrokerID]bool{4: true}
	s.moveOff(s.ControllerNode(), 4)
	s.Sim.Run(36 * time.Second)
	if ps, _ := s.Partition(model.TP("t", 0)); slices.Contains(ps.Replicas, 4) || len(ps.Replicas) != 3 {
		t.Fatalf("t/0 after moving b4 off: %v", ps)
	}
}

// TestRollingRestartWaitsForTheISR: a rolling restart stops each broker
// only once the one before it is back in the ISR of every partition it
// hosts, one broker down at a time, and logs each return.
func TestRollingRestartWaitsForTheISR(t *testing.T) {
	// Slow links make a restarted broker take several seconds to rejoin,
	// longer than the script's half-second look.
	s, nem := membersCluster(t, 3, 0, "at 30s rolling-restart 1\nfrom 30s to 90s latency b1 +300ms\nfrom 30s to 90s latency b2 +300ms\nfrom 30s to 90s latency b3 +300ms\n")
	s.Sim.Run(30 * time.Second)
	var stops []model.BrokerID
	wasUp := map[model.BrokerID]bool{1: true, 2: true, 3: true}
	for s.Sim.Now() < 90*time.Second {
		s.Sim.Run(s.Sim.Now() + 50*time.Millisecond)
		down := 0
		for _, id := range []model.BrokerID{1, 2, 3} {
			up := s.Sim.IsUp(sim.NodeID(id)) && !s.Sim.IsStopping(sim.NodeID(id))
			if !up {
				down++
			}
			if wasUp[id] && !up {
				if len(stops) > 0 {
					if _, back := s.backInISR(stops[len(stops)-1]); !back {
						t.Fatalf("%v stopped at %v before %v was back in the ISR", id, s.Sim.Now(), stops[len(stops)-1])
					}
				}
				stops = append(stops, id)
			}
			wasUp[id] = up
		}
		if down > 1 {
			t.Fatalf("%d brokers down at %v", down, s.Sim.Now())
		}
	}
	if !slices.Equal(stops, []model.BrokerID{1, 2, 3}) {
		t.Fatalf("stopped %v, want b1, b2, b3 in turn", stops)
	}
	if log := fmt.Sprint(nem.Log()); strings.Count(log, "back in the ISR") != 3 || !strings.Contains(log, "rolling restart done") {
		t.Fatalf("fault log: %s", log)
	}
	if s.rollingStuck() != "" {
		t.Fatal(s.rollingStuck())
	}
}

// TestDecommissionStopsABrokerAStopWindowRestarts: a shutdown window ends
// while b1's controlled shutdown is still under way, so the kernel
// restarts b1 once that stop is over; the decommission, which stopped b1
// for good meanwhile, stops the restarted incarnation again rather than
// waiting for ever for it to be down (members-under-chaos 92600208).
func TestDecommissionStopsABrokerAStopWindowRestarts(t *testing.T) {
	s, _ := membersCluster(t, 4, 0, "from 29s to 60s latency b1 +400ms\nfrom 30s to 30.1s shutdown b1\nat 30.1s decommission b1\n")
	s.Sim.Run(120 * time.Second)
	if ok, _ := isRegistered(s, 1); ok || s.Sim.IsUp(1) || s.decommissionStuck() != "" {
		t.Fatalf("b1: registered %v, up %v: %s", ok, s.Sim.IsUp(1), s.decommissionStuck())
	}
}
