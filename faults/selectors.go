package faults

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"kafkasim/model"
)

// SelectorKind says how a Selector picks its node.
type SelectorKind uint8

const (
	selNone             SelectorKind = iota // the zero Selector: no node
	SelNode                                 // a fixed node: "b2" or "2"
	SelController                           // the active controller: "controller"
	SelRandomBroker                         // any broker, drawn from the fault's stream: "random-broker"
	SelLeaderOf                             // a partition's leader: "leader-of t/0"
	SelISRFollower                          // a follower in a partition's ISR, drawn: "isr-follower t/0"
	SelCoordinatorOf                        // a group's coordinator: "coordinator-of g"
	SelRandomController                     // any controller, drawn from the fault's stream: "random-controller"
	SelAllControllers                       // every controller at once: "all-controllers"
	SelMemberOf                             // a consumer group's member, drawn or the #k-th: "member-of g", "member-of g #2"
	SelFollowerOf                           // a partition's follower, drawn or the #k-th by assignment: "follower-of t/0 #1"
	SelOutOfISR                             // a replica of a partition outside its ISR, drawn: "out-of-isr t/0"
	SelRack                                 // every broker and controller of a rack at once: "rack r1"
)

// Selector names the node a fault acts on. All but SelNode are resolved
// when the fault fires, not when the schedule is written: "crash the
// leader" means whoever leads at that moment, which a schedule written
// before the run cannot know. A selector that resolves to nobody (no
// leader, no follower in the ISR) makes its fault a recorded no-op.
//
// SelAllControllers alone names several nodes: the whole metadata quorum,
// which a one-node fault (crash, pause, isolate, ...) then hits at once
// and a partition group holds together. The two-node faults (oneway,
// reset, clog) take single nodes only.
type Selector struct {
	Kind  SelectorKind
	Node  model.BrokerID       // SelNode
	TP    model.TopicPartition // SelLeaderOf, SelISRFollower, SelFollowerOf, SelOutOfISR
	Group string               // SelCoordinatorOf, SelMemberOf
	Rack  string               // SelRack
	// Index is #k of SelMemberOf and SelFollowerOf (from 1); 0 draws one
	// from the fault's stream.
	Index int
}

// MemberOf selects a consumer group's member node: the index-th in the
// order the world created them (from 1), or, for index 0, one drawn from
// the fault's stream.
func MemberOf(group string, index int) Selector {
	return Selector{Kind: SelMemberOf, Group: group, Index: index}
}

// FollowerOf selects, at fire time, a replica of a partition other than
// its leader: the index-th (from 1) in the partition's assignment order
// with the leader left out, or, for index 0, one drawn from the fault's
// stream. Unlike isr-follower it may name a follower out of the ISR.
func FollowerOf(tp model.TopicPartition, index int) Selector {
	return Selector{Kind: SelFollowerOf, TP: tp, Index: index}
}

// OutOfISR selects, at fire time, a replica of a partition that is not
// in its ISR, drawn from the fault's stream.
func OutOfISR(tp model.TopicPartition) Selector { return Selector{Kind: SelOutOfISR, TP: tp} }

// GroupWorld is a World with consumer groups: what member-of needs. A
// world without it has no members to select.
type GroupWorld interface {
	// MembersOf lists a group's member nodes in creation order.
	MembersOf(group string) []model.BrokerID
}

// ReplicaWorld is a World that knows partitions' assignments: what
// follower-of and out-of-isr need. A world without it has no followers
// to select.
type ReplicaWorld interface {
	// Replicas lists a partition's assigned replicas in preference order.
	Replicas(tp model.TopicPartition) []model.BrokerID
}

// Rack selects every broker and controller of a rack at once, as the
// world places them (RackWorld).
func Rack(name string) Selector { return Selector{Kind: SelRack, Rack: name} }

// RackWorld is a World whose nodes sit in racks: what "rack r1" needs. A
// world without it has no racks, and a rack selector names nobody.
type RackWorld interface {
	// RackNodes lists the brokers and controllers of a rack, sorted; nil
	// for a rack the world does not have.
	RackNodes(rack string) []model.BrokerID
}

// Node selects a fixed node.
func Node(id model.BrokerID) Selector { return Selector{Kind: SelNode, Node: id} }

// Controller selects the active controller.
func Controller() Selector { return Selector{Kind: SelController} }

// RandomBroker selects a broker drawn from the fault's random stream.
func RandomBroker() Selector { return Selector{Kind: SelRandomBroker} }

// LeaderOf selects a partition's leader at fire time.
func LeaderOf(tp model.TopicPartition) Selector { return Selector{Kind: SelLeaderOf, TP: tp} }

// ISRFollower selects, at fire time, a member of a partition's ISR other
// than its leader, drawn from the fault's random stream.
func ISRFollower(tp model.TopicPartition) Selector { return Selector{Kind: SelISRFollower, TP: tp} }

// CoordinatorOf selects a consumer group's coordinator at fire time.
func CoordinatorOf(group string) Selector { return Selector{Kind: SelCoordinatorOf, Group: group} }

// RandomController selects a controller (a quorum voter, active or not)
// drawn from the fault's random stream.
func RandomController() Selector { return Selector{Kind: SelRandomController} }

// AllControllers selects every controller at once.
func AllControllers() Selector { return Selector{Kind: SelAllControllers} }

// Several reports whether s may name more than one node.
func (s Selector) Several() bool { return s.Kind == SelAllControllers || s.Kind == SelRack }

// IsZero reports whether s is the zero Selector (no node).
func (s Selector) IsZero() bool { return s.Kind == selNone }

func (s Selector) String() string {
	switch s.Kind {
	case SelNode:
		return s.Node.String()
	case SelController:
		return "controller"
	case SelRandomBroker:
		return "random-broker"
	case SelLeaderOf:
		return "leader-of " + s.TP.String()
	case SelISRFollower:
		return "isr-follower " + s.TP.String()
	case SelCoordinatorOf:
		return "coordinator-of " + s.Group
	case SelRandomController:
		return "random-controller"
	case SelAllControllers:
		return "all-controllers"
	case SelMemberOf:
		return "member-of " + s.Group + indexSuffix(s.Index)
	case SelFollowerOf:
		return "follower-of " + s.TP.String() + indexSuffix(s.Index)
	case SelOutOfISR:
		return "out-of-isr " + s.TP.String()
	case SelRack:
		return "rack " + s.Rack
	}
	return "none"
}

// indexSuffix writes a selector's #k, nothing for 0.
func indexSuffix(k int) string {
	if k == 0 {
		return ""
	}
	return " #" + strconv.Itoa(k)
}

// indexMax bounds #k: no group or partition has more members or replicas.
const indexMax = 10_000

// parseIndex reads an optional "#k" at tok[i] and says how many tokens it
// took (0 or 1).
func parseIndex(tok []string, i int, what string) (int, int, error) {
	if i >= len(tok) || !strings.HasPrefix(tok[i], "#") {
		return 0, 0, nil
	}
	k, err := strconv.Atoi(tok[i][1:])
	if err != nil || k < 1 || k > indexMax || tok[i][1] == '+' {
		return 0, 0, fmt.Errorf("bad %s index %q: want #1 to #%d", what, tok[i], indexMax)
	}
	return k, 1, nil
}

// ParseSelector reads a selector's text: "b2", "2", "controller",
// "random-broker", "random-controller", "all-controllers", "leader-of t/0",
// "isr-follower t/0", "coordinator-of g", "member-of g #2",
// "follower-of t/0 #1", "out-of-isr t/0", "rack r1".
func ParseSelector(text string) (Selector, error) {
	tok := strings.Fields(text)
	if len(tok) == 0 {
		return Selector{}, fmt.Errorf("empty selector")
	}
	sel, n, err := parseSelectorTokens(tok)
	if err != nil {
		return Selector{}, err
	}
	if n != len(tok) {
		return Selector{}, fmt.Errorf("bad selector %q: unexpected %q", text, tok[n])
	}
	return sel, nil
}

// parseSelectorTokens reads one selector from the front of tok and says
// how many tokens it took.
func parseSelectorTokens(tok []string) (Selector, int, error) {
	head := tok[0]
	switch head {
	case "controller":
		return Controller(), 1, nil
	case "random-broker":
		return RandomBroker(), 1, nil
	case "random-controller":
		return RandomController(), 1, nil
	case "all-controllers":
		return AllControllers(), 1, nil
	case "leader-of", "isr-follower":
		if len(tok) < 2 || isPunct(tok[1]) {
			return Selector{}, 0, fmt.Errorf("bad selector: %s needs a topic-partition, as in %q", head, head+" t/0")
		}
		tp, err := parseTP(tok[1])
		if err != nil {
			return Selector{}, 0, fmt.Errorf("bad selector %q: %v", head+" "+tok[1], err)
		}
		if head == "leader-of" {
			return LeaderOf(tp), 2, nil
		}
		return ISRFollower(tp), 2, nil
	case "coordinator-of":
		if len(tok) < 2 || isPunct(tok[1]) {
			return Selector{}, 0, fmt.Errorf("bad selector: coordinator-of needs a group id, as in %q", "coordinator-of g")
		}
		if !legalName(tok[1]) {
			return Selector{}, 0, fmt.Errorf("bad selector %q: a group id here is letters, digits, '.', '_' and '-'", head+" "+tok[1])
		}
		return CoordinatorOf(tok[1]), 2, nil
	case "rack":
		if len(tok) < 2 || isPunct(tok[1]) || !legalName(tok[1]) {
			return Selector{}, 0, fmt.Errorf("bad selector: rack needs a rack name (letters, digits, '.', '_', '-'), as in %q", "rack r1")
		}
		return Rack(tok[1]), 2, nil
	case "member-of":
		if len(tok) < 2 || isPunct(tok[1]) || !legalName(tok[1]) {
			return Selector{}, 0, fmt.Errorf("bad selector: member-of needs a group id, as in %q or %q", "member-of g", "member-of g #2")
		}
		k, n, err := parseIndex(tok, 2, "member")
		if err != nil {
			return Selector{}, 0, err
		}
		return MemberOf(tok[1], k), 2 + n, nil
	case "follower-of", "out-of-isr":
		if len(tok) < 2 || isPunct(tok[1]) {
			return Selector{}, 0, fmt.Errorf("bad selector: %s needs a topic-partition, as in %q", head, head+" t/0")
		}
		tp, err := parseTP(tok[1])
		if err != nil {
			return Selector{}, 0, fmt.Errorf("bad selector %q: %v", head+" "+tok[1], err)
		}
		if head == "out-of-isr" {
			return OutOfISR(tp), 2, nil
		}
		k, n, err := parseIndex(tok, 2, "follower")
		if err != nil {
			return Selector{}, 0, err
		}
		return FollowerOf(tp, k), 2 + n, nil
	}
	if strings.HasPrefix(head, "#") {
		return Selector{}, 0, fmt.Errorf("bad selector %q: #k follows member-of G or follower-of T/P", head)
	}
	num := strings.TrimPrefix(head, "b")
	id, err := strconv.ParseInt(num, 10, 32)
	if err != nil || id < 0 || num == "" || num[0] == '+' {
		return Selector{}, 0, fmt.Errorf("bad selector %q: want a node id (b2 or 2), controller, random-broker, random-controller, all-controllers, leader-of T/P, isr-follower T/P, follower-of T/P [#k], out-of-isr T/P, coordinator-of G, member-of G [#k] or rack R", head)
	}
	return Node(model.BrokerID(id)), 1, nil
}

// parseTP reads "topic/partition" and keeps topic names to Kafka's legal
// characters, which also keeps them clear of the file format's own
// punctuation (',', '|', '#').
func parseTP(s string) (model.TopicPartition, error) {
	tp, err := model.ParseTopicPartition(s)
	if err != nil {
		return tp, err
	}
	if !legalName(tp.Topic) {
		return tp, fmt.Errorf("topic %q: a topic name is letters, digits, '.', '_' and '-'", tp.Topic)
	}
	return tp, nil
}

// legalName reports whether s is a non-empty name of Kafka's legal topic
// characters: ASCII letters and digits, '.', '_' and '-'.
func legalName(s string) bool {
	if s == "" || len(s) > 249 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// resolveAll picks the nodes s names now: one, or every controller for
// SelAllControllers (in id order, not leadership order, so the log reads
// the same whoever leads). It returns nil and the reason when s names
// nobody at this moment.
func (s Selector) resolveAll(w World, r *rand.Rand) ([]model.BrokerID, string) {
	if s.Kind == SelAllControllers {
		cs := slices.Sorted(slices.Values(w.Controllers()))
		if len(cs) == 0 {
			return nil, "no controller"
		}
		return slices.Compact(cs), ""
	}
	if s.Kind == SelRack {
		var ns []model.BrokerID
		if rw, ok := w.(RackWorld); ok {
			ns = slices.Compact(slices.Sorted(slices.Values(rw.RackNodes(s.Rack))))
		}
		if len(ns) == 0 {
			return nil, "no rack " + s.Rack
		}
		return ns, ""
	}
	id, why := s.resolve(w, r)
	if id == model.NoBroker {
		return nil, why
	}
	return []model.BrokerID{id}, ""
}

// resolve picks the node s names now. It returns model.NoBroker and the
// reason when s names nobody at this moment. r is the fault's own stream;
// it is drawn from only by the selectors that choose at random. A
// selector that names several nodes goes through resolveAll instead.
func (s Selector) resolve(w World, r *rand.Rand) (model.BrokerID, string) {
	switch s.Kind {
	case SelNode:
		return s.Node, ""
	case SelController:
		if cs := w.Controllers(); len(cs) > 0 {
			return cs[0], ""
		}
		return model.NoBroker, "no controller"
	case SelRandomBroker:
		bs := slices.Clone(w.Brokers())
		if len(bs) == 0 {
			return model.NoBroker, "no broker"
		}
		slices.Sort(bs)
		return bs[r.IntN(len(bs))], ""
	case SelLeaderOf:
		if l := w.LeaderOf(s.TP); l != model.NoBroker {
			return l, ""
		}
		return model.NoBroker, s.TP.String() + " has no leader"
	case SelISRFollower:
		leader := w.LeaderOf(s.TP)
		var fs []model.BrokerID
		for _, b := range w.ISR(s.TP) {
			if b != leader {
				fs = append(fs, b)
			}
		}
		if len(fs) == 0 {
			return model.NoBroker, s.TP.String() + " has no follower in its ISR"
		}
		slices.Sort(fs)
		return fs[r.IntN(len(fs))], ""
	case SelCoordinatorOf:
		if c := w.CoordinatorOf(s.Group); c != model.NoBroker {
			return c, ""
		}
		return model.NoBroker, "group " + s.Group + " has no coordinator"
	case SelRandomController:
		cs := slices.Sorted(slices.Values(w.Controllers()))
		if len(cs) == 0 {
			return model.NoBroker, "no controller"
		}
		return cs[r.IntN(len(cs))], ""
	case SelAllControllers, SelRack:
		panic("faults: " + s.String() + " resolved as one node")
	case SelMemberOf:
		var ms []model.BrokerID
		if gw, ok := w.(GroupWorld); ok {
			ms = gw.MembersOf(s.Group)
		}
		return pick(ms, s.Index, r, "group "+s.Group+" has no member", "group "+s.Group+" has no member"+indexSuffix(s.Index))
	case SelFollowerOf:
		var fs []model.BrokerID
		if rw, ok := w.(ReplicaWorld); ok {
			leader := w.LeaderOf(s.TP)
			for _, b := range rw.Replicas(s.TP) {
				if b != leader {
					fs = append(fs, b)
				}
			}
		}
		return pick(fs, s.Index, r, s.TP.String()+" has no follower", s.TP.String()+" has no follower"+indexSuffix(s.Index))
	case SelOutOfISR:
		var out []model.BrokerID
		if rw, ok := w.(ReplicaWorld); ok {
			isr := w.ISR(s.TP)
			for _, b := range rw.Replicas(s.TP) {
				if !slices.Contains(isr, b) {
					out = append(out, b)
				}
			}
		}
		slices.Sort(out)
		return pick(out, 0, r, s.TP.String()+" has every replica in its ISR", "")
	}
	return model.NoBroker, "no selector"
}

// pick is the k-th of ids (from 1), or for k 0 one drawn from r, with
// the reason when there is none: none when ids is empty, short when it
// has fewer than k.
func pick(ids []model.BrokerID, k int, r *rand.Rand, none, short string) (model.BrokerID, string) {
	switch {
	case len(ids) == 0:
		return model.NoBroker, none
	case k == 0:
		return ids[r.IntN(len(ids))], ""
	case k > len(ids):
		return model.NoBroker, short
	}
	return ids[k-1], ""
}
