package group

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"kafkasim/model"
)

// The helpers below set up Kafka's AbstractStickyAssignorTest cases in
// kafkasim's terms: the same topics, members, owned partitions,
// generations and racks, and the same checks (verifyValidityAndBalance,
// isFullyBalanced, partitionsTransferringOwnership, isSticky). Members are
// kept in the order the Kafka test puts them into its subscriptions map,
// which, with the Java HashMap walk the assignor follows, is what makes
// Kafka's exact expectations hold here.

// allRacks is AbstractPartitionAssignorTest.ALL_RACKS.
var allRacks = []string{"a", "b", "c", "d", "e", "f"}

// rackConfig is AbstractPartitionAssignorTest.RackConfig.
type rackConfig int

const (
	noBrokerRack rackConfig = iota
	noConsumerRack
	brokerAndConsumerRack
)

func (r rackConfig) String() string {
	return [...]string{"NO_BROKER_RACK", "NO_CONSUMER_RACK", "BROKER_AND_CONSUMER_RACK"}[r]
}

const generationID model.Epoch = 1 // the tests' generationId

// kafkaEnv is one parameterization of a Kafka test: which assignor, which
// racks, and the partitions created so far.
type kafkaEnv struct {
	t            *testing.T
	coop         bool
	brokerRacks  int  // numBrokerRacks
	consumerRack bool // hasConsumerRack
	rf           int  // replicationFactor
	prefer       bool // preferRackAwareLogic
	nextIndex    int  // nextPartitionIndex
	parts        map[string]int32
	racks        PartitionRacks
	// assignorGen is the CooperativeStickyAssignor's own generation, set
	// by onAssignment and written into its user data.
	assignorGen model.Epoch
	members     []Member // the subscriptions map, in put order
	last        stickyResult
}

func newEnv(t *testing.T, coop bool) *kafkaEnv {
	return &kafkaEnv{t: t, coop: coop, rf: 2, parts: map[string]int32{}, racks: PartitionRacks{}, assignorGen: model.NoEpoch}
}

// initializeRacks is AbstractStickyAssignorTest.initializeRacks.
func (e *kafkaEnv) initializeRacks(rc rackConfig) {
	e.rf = 3
	e.brokerRacks = 0
	if rc != noBrokerRack {
		e.brokerRacks = 3
	}
	e.consumerRack = rc != noConsumerRack
	e.prefer = true
}

func assignorName(coop bool) string {
	if coop {
		return "cooperative-sticky"
	}
	return "sticky"
}

// forBoth runs a case of AbstractStickyAssignorTest with both assignors,
// as Kafka runs it from StickyAssignorTest and
// CooperativeStickyAssignorTest.
func forBoth(t *testing.T, f func(e *kafkaEnv)) {
	for _, coop := range []bool{false, true} {
		t.Run(assignorName(coop), func(t *testing.T) { f(newEnv(t, coop)) })
	}
}

// forRacks runs a rack-parameterized case with both assignors and every
// RackConfig.
func forRacks(t *testing.T, f func(e *kafkaEnv)) {
	for _, coop := range []bool{false, true} {
		for _, rc := range []rackConfig{noBrokerRack, noConsumerRack, brokerAndConsumerRack} {
			t.Run(assignorName(coop)+"/"+rc.String(), func(t *testing.T) {
				e := newEnv(t, coop)
				e.initializeRacks(rc)
				f(e)
			})
		}
	}
}

// forOne runs a case of StickyAssignorTest or CooperativeStickyAssignorTest
// with every RackConfig.
func forOne(t *testing.T, coop bool, f func(e *kafkaEnv)) {
	for _, rc := range []rackConfig{noBrokerRack, noConsumerRack, brokerAndConsumerRack} {
		t.Run(rc.String(), func(t *testing.T) {
			e := newEnv(t, coop)
			e.initializeRacks(rc)
			f(e)
		})
	}
}

// topic is partitionInfos: n partitions whose replicas sit on brokers
// numbered round from the topic's own starting index, brokers on racks
// a, b, c, ... in turn when there are broker racks.
func (e *kafkaEnv) topic(name string, n int) {
	next := e.nextIndex
	e.nextIndex++
	e.parts[name] = int32(n)
	brokers := e.rf
	if e.brokerRacks > 0 {
		brokers = e.brokerRacks * e.rf
	}
	for p := range n {
		if e.brokerRacks == 0 {
			continue
		}
		var rs []string
		for j := range e.rf {
			rs = append(rs, allRacks[((p+j+next)%brokers)%e.brokerRacks])
		}
		e.racks[model.TP(name, int32(p))] = rs
	}
}

func (e *kafkaEnv) dropTopic(name string) {
	delete(e.parts, name)
	for tp := range e.racks {
		if tp.Topic == name {
			delete(e.racks, tp)
		}
	}
}

// rackOf is consumerRackId.
func (e *kafkaEnv) rackOf(idx int) string {
	if !e.consumerRack || idx < 0 {
		return ""
	}
	n := e.brokerRacks
	if n == 0 {
		n = len(allRacks)
	}
	return allRacks[idx%n]
}

// plain is subscription(topics, consumerIndex): no owned partitions, no
// generation, no user data.
func (e *kafkaEnv) plain(id string, topics []string, idx int) Member {
	return Member{ID: id, Subscription: topics, Generation: model.NoEpoch, AssignedGeneration: model.NoEpoch, RackID: e.rackOf(idx)}
}

// v2 is buildSubscriptionV2Above: owned partitions and generation in the
// subscription; the sticky user data holds the same, the cooperative one
// the assignor's own generation. StickyAssignorTest leaves the rack out.
func (e *kafkaEnv) v2(id string, topics []string, owned []model.TopicPartition, gen model.Epoch, idx int) Member {
	if e.coop {
		return Member{ID: id, Subscription: topics, Owned: owned, Generation: gen, RackID: e.rackOf(idx), AssignedGeneration: e.assignorGen}
	}
	return Member{ID: id, Subscription: topics, Owned: owned, Generation: gen, Assigned: owned, AssignedGeneration: gen}
}

// v1 is buildSubscriptionV1: owned partitions without a generation; the
// generation is only in the user data.
func (e *kafkaEnv) v1(id string, topics []string, owned []model.TopicPartition, gen model.Epoch) Member {
	if e.coop {
		e.assignorGen = gen // onAssignment
		return Member{ID: id, Subscription: topics, Owned: owned, Generation: model.NoEpoch, AssignedGeneration: gen}
	}
	return Member{ID: id, Subscription: topics, Owned: owned, Generation: model.NoEpoch, Assigned: owned, AssignedGeneration: gen}
}

// v0 is StickyAssignorTest.buildSubscriptionV0: everything in the user
// data (the cooperative assignor does not support v0).
func (e *kafkaEnv) v0(id string, topics []string, owned []model.TopicPartition, gen model.Epoch, idx int) Member {
	return Member{ID: id, Subscription: topics, Generation: model.NoEpoch, Assigned: owned, AssignedGeneration: gen, RackID: e.rackOf(idx)}
}

// put is subscriptions.put: replace in place, or append.
func (e *kafkaEnv) put(m Member) {
	for i := range e.members {
		if e.members[i].ID == m.ID {
			e.members[i] = m
			return
		}
	}
	e.members = append(e.members, m)
}

func (e *kafkaEnv) remove(id string) {
	e.members = slices.DeleteFunc(e.members, func(m Member) bool { return m.ID == id })
}

func (e *kafkaEnv) member(id string) Member {
	for _, m := range e.members {
		if m.ID == id {
			return m
		}
	}
	e.t.Fatalf("no member %s", id)
	return Member{}
}

// assign is assignor.assignPartitions, the cooperative assignor's
// adjustment included; the result also keeps what the test inspects.
func (e *kafkaEnv) assign() Assignment {
	opt := stickyOptions{cooperative: e.coop, racks: e.racks, preferRackAware: e.prefer}
	e.last = stickyAssign(slices.Clone(e.members), e.parts, opt)
	if !e.coop {
		return e.last.assignment
	}
	transferring := e.last.transferring
	if e.last.general {
		transferring = transferringOwnership(e.last.assignment, e.members)
	}
	return withhold(e.last.assignment, transferring)
}

// transferring checks partitionsTransferringOwnership: want nil means
// Kafka's null (the general path).
func (e *kafkaEnv) transferring(want map[string]string) {
	e.t.Helper()
	if want == nil {
		if !e.last.general {
			e.t.Fatalf("partitionsTransferringOwnership: constrained path ran, want the general path (null)")
		}
		return
	}
	if e.last.general {
		e.t.Fatalf("partitionsTransferringOwnership is null (general path), want %v", want)
	}
	got := map[string]string{}
	for tp, id := range e.last.transferring {
		got[tp.String()] = id
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		e.t.Fatalf("partitionsTransferringOwnership %v, want %v", got, want)
	}
}

func (e *kafkaEnv) noneTransferring() { e.t.Helper(); e.transferring(map[string]string{}) }

// isSticky is assignor.isSticky, over the last general-path run; the
// constrained path records no movements, and Kafka's isSticky then reads
// the previous general run's, so a constrained run counts as sticky.
func (e *kafkaEnv) isSticky() {
	e.t.Helper()
	if e.last.general && !e.last.mv.sticky() {
		e.t.Fatal("a topic's partitions moved both ways between two members")
	}
}

// verify is verifyValidityAndBalance, and for the cooperative assignor
// CooperativeStickyAssignorTest's override: while a round revokes
// anything, check that nothing revoked is handed out in the same round,
// rebuild the subscriptions from the round (generation 1) and assign
// again, at most four times; then check the final assignment. It returns
// the final assignment, which Kafka's test keeps using.
func (e *kafkaEnv) verify(a Assignment) Assignment {
	e.t.Helper()
	if e.coop {
		for rounds := 0; e.cooperativeRevokes(a); rounds++ {
			if rounds >= 4 {
				e.t.Fatalf("still revoking after %d follow-up rebalances", rounds)
			}
			for i, m := range e.members {
				rack := m.RackID
				e.members[i] = e.v2(m.ID, m.Subscription, a[m.ID], generationID, 0)
				e.members[i].RackID = rack
			}
			a = e.assign()
		}
	}
	checkValidityAndBalance(e.t, e.members, a)
	return a
}

// cooperativeRevokes is verifyCooperativeValidity.
func (e *kafkaEnv) cooperativeRevokes(a Assignment) bool {
	e.t.Helper()
	added, revoked := map[model.TopicPartition]bool{}, map[model.TopicPartition]bool{}
	for _, m := range e.members {
		for _, tp := range m.Owned {
			if !slices.Contains(a[m.ID], tp) {
				revoked[tp] = true
			}
		}
		for _, tp := range a[m.ID] {
			if !slices.Contains(m.Owned, tp) {
				added[tp] = true
			}
		}
	}
	for tp := range added {
		if revoked[tp] {
			e.t.Fatalf("%v assigned to a new member in the round its owner revokes it: %v", tp, a)
		}
	}
	return len(revoked) > 0
}

// checkValidityAndBalance is AbstractStickyAssignorTest's
// verifyValidityAndBalance: every member has an entry, every partition is
// of a topic its member subscribes to and has one member, and two members
// whose counts differ by more than one hold no partitions of a common
// topic.
func checkValidityAndBalance(t *testing.T, members []Member, a Assignment) {
	t.Helper()
	if len(a) != len(members) {
		t.Fatalf("%d entries for %d members: %v", len(a), len(members), a)
	}
	ids := make([]string, 0, len(members))
	subs := map[string][]string{}
	for _, m := range members {
		ids = append(ids, m.ID)
		subs[m.ID] = m.Subscription
	}
	sort.Strings(ids)
	owner := map[model.TopicPartition]string{}
	for _, id := range ids {
		tps, ok := a[id]
		if !ok {
			t.Fatalf("no entry for %s: %v", id, a)
		}
		for _, tp := range tps {
			if !slices.Contains(subs[id], tp.Topic) {
				t.Fatalf("%v assigned to %s, not subscribed to %s", tp, id, tp.Topic)
			}
			if o, dup := owner[tp]; dup {
				t.Fatalf("%v assigned to both %s and %s", tp, o, id)
			}
			owner[tp] = id
		}
	}
	topicsOf := map[string]map[string]bool{}
	for _, id := range ids {
		topicsOf[id] = map[string]bool{}
		for _, tp := range a[id] {
			topicsOf[id][tp.Topic] = true
		}
	}
	for i, x := range ids {
		for _, y := range ids[i+1:] {
			if d := len(a[x]) - len(a[y]); d >= -1 && d <= 1 {
				continue
			}
			tx, ty := topicsOf[x], topicsOf[y]
			for topic := range tx {
				if ty[topic] {
					t.Fatalf("%s (%d) and %s (%d) share topic %s: a partition could move for a better balance: %v",
						x, len(a[x]), y, len(a[y]), topic, a)
				}
			}
		}
	}
}

// fullyBalanced is isFullyBalanced.
func fullyBalanced(t *testing.T, a Assignment) {
	t.Helper()
	if spread(a) > 1 {
		t.Fatalf("not fully balanced (spread %d): %v", spread(a), a)
	}
}

// tp and tpl build partitions for the tests.
func tp(topic string, p int32) model.TopicPartition { return model.TP(topic, p) }

func tpl(ps ...model.TopicPartition) []model.TopicPartition {
	return append([]model.TopicPartition{}, ps...)
}

// want checks one member's partitions as a set (Kafka compares lists in
// its own insertion order; kafkasim's lists are sorted).
func want(t *testing.T, a Assignment, id string, ps ...model.TopicPartition) {
	t.Helper()
	w := slices.Clone(ps)
	slices.SortFunc(w, model.TopicPartition.Compare)
	if w == nil {
		w = []model.TopicPartition{}
	}
	if !slices.Equal(a[id], w) {
		t.Fatalf("%s got %v, want %v (all: %v)", id, a[id], w, a)
	}
}

// parseTPs reads Kafka's "t1-0, t1-3" lists.
func parseTPs(t *testing.T, s string) []model.TopicPartition {
	t.Helper()
	out := []model.TopicPartition{}
	if s == "" {
		return out
	}
	for _, part := range strings.Split(s, ", ") {
		i := strings.LastIndex(part, "-")
		n, err := strconv.Atoi(part[i+1:])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, model.TP(part[:i], int32(n)))
	}
	slices.SortFunc(out, model.TopicPartition.Compare)
	return out
}

// canonical is getCanonicalName: str followed by i padded to the digits
// of maxNum.
func canonical(str string, i, maxNum int) string {
	return fmt.Sprintf("%s%0*d", str, len(strconv.Itoa(maxNum)), i)
}

func sizes(a Assignment, ids ...string) []int {
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = len(a[id])
	}
	return out
}

func containsAll(big, small []model.TopicPartition) bool {
	for _, tp := range small {
		if !slices.Contains(big, tp) {
			return false
		}
	}
	return true
}

func disjoint(x, y []model.TopicPartition) bool {
	for _, tp := range x {
		if slices.Contains(y, tp) {
			return false
		}
	}
	return true
}
