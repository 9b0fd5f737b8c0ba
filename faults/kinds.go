package faults

// Kind names what a fault does. Its text is the word a schedule file uses
// for it (after "partition" for the partition shapes), so a Kind prints as
// a reader of the file knows it.
type Kind string

// The fault kinds. Those marked "at only" are instantaneous and take no
// window; those marked "window only" need one; the others may be either,
// and a window heals at its end what its start did.
const (
	KindCrash     Kind = "crash"      // process crash; a window restarts the node
	KindPowerLoss Kind = "power-loss" // crash that drops the page cache; a window restarts
	KindShutdown  Kind = "shutdown"   // clean stop (Stop runs); a window restarts
	KindRestart   Kind = "restart"    // at only: start a node that is down
	KindPause     Kind = "pause"      // freeze (long GC pause); a window resumes
	KindResume    Kind = "resume"     // at only: unfreeze
	KindIsolate   Kind = "isolate"    // partition: one node from the servers (or brokers, or all)
	KindHalves    Kind = "halves"     // partition: random halves of the servers
	KindBridge    Kind = "bridge"     // partition: two halves that share one node
	KindRing      Kind = "ring"       // partition: each server sees a different majority
	KindOneWay    Kind = "oneway"     // partition: A's messages to B are dropped, not B's to A
	KindSplit     Kind = "split"      // partition: explicit groups, "partition b1, b2 | b3"
	KindHeal      Kind = "heal"       // at only: remove every cut
	KindReset     Kind = "reset"      // at only: break the connection between A and B
	KindClog      Kind = "clog"       // window only: extra delay on the link A -> B
	KindLatency   Kind = "latency"    // window only: extra delay on every link to and from a node
	KindSkew      Kind = "skew"       // step a node's clock; a window resyncs it
	KindDrift     Kind = "drift"      // make a node's clock run fast or slow; a window resyncs
	KindResync    Kind = "resync"     // at only: a node's clock back to true time
	KindSyncLat   Kind = "sync-latency"

	// Operations: at only, an admin request to the active controller
	// (operations.go). Swarm draws some of them only when named (SwarmOperations).
	KindElectPreferred Kind = "elect-preferred" // ElectLeaders PREFERRED for T/P
	KindElectUnclean   Kind = "elect-unclean"   // ElectLeaders UNCLEAN for T/P
	KindReassign       Kind = "reassign"        // AlterPartitionReassignments T/P to b1,b2,b4
	KindCancelReassign Kind = "cancel-reassign" // AlterPartitionReassignments T/P with no target: cancel

	// Topic operations: at only, an admin request to the active
	// controller (topic_operations.go). Swarm draws them only when named
	// (SwarmTopicOperations).
	KindCreateTopic   Kind = "create-topic"   // CreateTopics: create-topic u 6 3
	KindDeleteTopic   Kind = "delete-topic"   // DeleteTopics: delete-topic u
	KindAddPartitions Kind = "add-partitions" // CreatePartitions: add-partitions t 12 (the new total)
	KindAlterConfig   Kind = "alter-config"   // IncrementalAlterConfigs: alter-config t min.insync.replicas=3

	// Membership operations: at only (members.go). Swarm draws them only
	// when named (SwarmMemberOperations).
	KindAddBroker    Kind = "add-broker"   // a spare broker joins: add-broker b4
	KindDecommission Kind = "decommission" // replicas moved off, controlled shutdown, UnregisterBroker: decommission b2

	// KindRollingRestart: at only, every broker stopped cleanly and
	// restarted in turn, each waited for until back in the ISR
	// (rolling.go).
	KindRollingRestart Kind = "rolling-restart"
)

// args says what a kind's text takes after its name.
type args uint8

const (
	argsNone     args = iota // heal, halves, bridge, ring
	argsNode                 // crash b2
	argsTwo                  // oneway b1 b2, reset b1 b2
	argsGroups               // partition b1, b2 | b3
	argsTP                   // elect-preferred t/0, cancel-reassign t/0
	argsReassign             // reassign t/0 to b1,b2,b4

	argsCreateTopic   // create-topic u 6 3
	argsTopic         // delete-topic u
	argsAddPartitions // add-partitions t 12
	argsAlterConfig   // alter-config t min.insync.replicas=3

	argsBroker // add-broker b4, decommission b2: one fixed broker id
	argsRounds // rolling-restart 2
)

// amount says which number a kind carries and how it is written.
type amount uint8

const (
	amountNone   amount = iota
	amountExtra         // a positive delay written "+200ms" (clog, latency)
	amountSigned        // a signed delay written "+5s" or "-5s" (skew)
	amountDelay         // a non-negative delay written "200ms" (sync-latency)
	amountRate          // a clock rate error written "+0.01" (drift)
)

// when says whether a kind may be instantaneous, windowed, or both.
type when uint8

const (
	whenEither when = iota
	whenAtOnly
	whenWindowOnly
)

type kindSpec struct {
	partition bool // written "partition <kind> ..." (split: "partition <groups>")
	args      args
	amount    amount
	when      when
	swarm     bool // Swarm may draw it, and SwarmKinds lists it
	// swarmOp: an operation Swarm may draw when the options name it
	// (SwarmOperations), beside the faults; SwarmKinds leaves it out,
	// so that what every existing swarm draws stays as it was.
	swarmOp bool
	scope   bool // takes an optional "from brokers|servers|all" (isolate)
	// swarmTopic: a topic operation Swarm may draw when the options name
	// it (SwarmTopicOperations); apart from swarmOp so that the swarms
	// that draw every SwarmOperations kind draw what they drew before.
	swarmTopic bool
	// swarmMember: a membership operation Swarm may draw when the
	// options name it (SwarmMemberOperations).
	swarmMember bool
}

// specs describes every kind. Parse, Format, Validate and Swarm all read
// this one table, so a new kind is added in one place.
var specs = map[Kind]kindSpec{
	KindCrash:     {args: argsNode, swarm: true},
	KindPowerLoss: {args: argsNode, swarm: true},
	KindShutdown:  {args: argsNode, swarm: true},
	KindRestart:   {args: argsNode, when: whenAtOnly},
	KindPause:     {args: argsNode, swarm: true},
	KindResume:    {args: argsNode, when: whenAtOnly},
	KindIsolate:   {partition: true, args: argsNode, swarm: true, scope: true},
	KindHalves:    {partition: true, swarm: true},
	KindBridge:    {partition: true, swarm: true},
	KindRing:      {partition: true, swarm: true},
	KindOneWay:    {partition: true, args: argsTwo, swarm: true},
	KindSplit:     {partition: true, args: argsGroups},
	KindHeal:      {when: whenAtOnly},
	KindReset:     {args: argsTwo, when: whenAtOnly, swarm: true},
	KindClog:      {args: argsTwo, amount: amountExtra, when: whenWindowOnly, swarm: true},
	KindLatency:   {args: argsNode, amount: amountExtra, when: whenWindowOnly, swarm: true},
	KindSkew:      {args: argsNode, amount: amountSigned, swarm: true},
	KindDrift:     {args: argsNode, amount: amountRate, swarm: true},
	KindResync:    {args: argsNode, when: whenAtOnly},
	KindSyncLat:   {args: argsNode, amount: amountDelay, swarm: true},

	KindElectPreferred: {args: argsTP, when: whenAtOnly, swarmOp: true},
	KindElectUnclean:   {args: argsTP, when: whenAtOnly},
	KindReassign:       {args: argsReassign, when: whenAtOnly, swarmOp: true},
	KindCancelReassign: {args: argsTP, when: whenAtOnly, swarmOp: true},

	KindCreateTopic:   {args: argsCreateTopic, when: whenAtOnly, swarmTopic: true},
	KindDeleteTopic:   {args: argsTopic, when: whenAtOnly, swarmTopic: true},
	KindAddPartitions: {args: argsAddPartitions, when: whenAtOnly, swarmTopic: true},
	KindAlterConfig:   {args: argsAlterConfig, when: whenAtOnly, swarmTopic: true},

	KindAddBroker:    {args: argsBroker, when: whenAtOnly, swarmMember: true},
	KindDecommission: {args: argsBroker, when: whenAtOnly, swarmMember: true},

	KindRollingRestart: {args: argsRounds, when: whenAtOnly},
}

// kindOrder is the one fixed order of the kinds: Swarm draws them in it,
// and AllKinds lists them in it. A new kind goes at the end so that the
// order of the existing ones never changes.
var kindOrder = []Kind{
	KindCrash, KindPowerLoss, KindShutdown, KindRestart, KindPause, KindResume,
	KindIsolate, KindHalves, KindBridge, KindRing, KindOneWay, KindSplit, KindHeal,
	KindReset, KindClog, KindLatency, KindSkew, KindDrift, KindResync, KindSyncLat,
	KindElectPreferred, KindElectUnclean, KindReassign, KindCancelReassign,
	KindCreateTopic, KindDeleteTopic, KindAddPartitions, KindAlterConfig,
	KindAddBroker, KindDecommission, KindRollingRestart,
}

// AllKinds lists every fault kind in a fixed order.
func AllKinds() []Kind { return append([]Kind(nil), kindOrder...) }

// SwarmKinds lists the kinds Swarm can draw, in the same fixed order: every
// kind except the explicit ones (restart, resume, resync, heal, split),
// which only make sense in a script.
func SwarmKinds() []Kind {
	var out []Kind
	for _, k := range kindOrder {
		if specs[k].swarm {
			out = append(out, k)
		}
	}
	return out
}

// SwarmOperations lists the operations Swarm can draw beside the faults,
// in the same fixed order: elect-preferred, reassign and cancel-reassign,
// the ones an operator runs on a healthy cluster (not elect-unclean,
// which gives up the durability promise). A swarm draws them only when
// its Kinds name them.
func SwarmOperations() []Kind {
	var out []Kind
	for _, k := range kindOrder {
		if specs[k].swarmOp {
			out = append(out, k)
		}
	}
	return out
}

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool {
	_, ok := specs[k]
	return ok
}

func (k Kind) String() string { return string(k) }

// IsOperation reports whether k is an operation (an admin request) rather
// than a fault.
func (k Kind) IsOperation() bool {
	a := specs[k].args
	return a == argsTP || a == argsReassign || isTopicArgs(a) || isMemberArgs(a) || a == argsRounds
}

// SwarmMemberOperations lists the membership operations Swarm can draw
// beside the faults, in the fixed order: add-broker, decommission. A
// swarm draws them only when its Kinds name them.
func SwarmMemberOperations() []Kind {
	var out []Kind
	for _, k := range kindOrder {
		if specs[k].swarmMember {
			out = append(out, k)
		}
	}
	return out
}

// SwarmTopicOperations lists the topic operations Swarm can draw beside
// the faults, in the fixed order: create-topic, delete-topic,
// add-partitions, alter-config. A swarm draws them only when its Kinds
// name them.
func SwarmTopicOperations() []Kind {
	var out []Kind
	for _, k := range kindOrder {
		if specs[k].swarmTopic {
			out = append(out, k)
		}
	}
	return out
}

// isPartition reports whether k cuts links (and so heals by removing them).
func (k Kind) isPartition() bool { return specs[k].partition }

// Scope says whom an isolated node is cut off from.
type Scope uint8

const (
	// ScopeServers cuts the node from every other broker and controller;
	// clients keep their links, as when a broker loses the cluster network
	// but not the one its clients use. It is the default.
	ScopeServers Scope = iota
	// ScopeBrokers cuts it from the other brokers only: the controller
	// still hears it, so it stays registered and in the ISR while it
	// cannot replicate (the partition behind KIP-101 and Jepsen's 2013
	// Kafka test). A controller so isolated is cut from every broker but
	// keeps its quorum: it may stay the active controller while no broker
	// can reach it.
	ScopeBrokers
	// ScopeAll cuts it from every other node of the world, clients too.
	ScopeAll
	// ScopeControllers cuts it from the controllers only. A controller so
	// isolated is cut from its quorum but not from the brokers: it loses
	// (or never wins) the leadership while brokers still reach it and
	// must find the new active controller. A broker so isolated cannot
	// fetch metadata or heartbeat, yet still replicates with the other
	// brokers.
	ScopeControllers
)

var scopeNames = [...]string{ScopeServers: "servers", ScopeBrokers: "brokers", ScopeAll: "all", ScopeControllers: "controllers"}

func (s Scope) String() string {
	if int(s) < len(scopeNames) {
		return scopeNames[s]
	}
	return "scope?"
}

func parseScope(s string) (Scope, bool) {
	for i, n := range scopeNames {
		if n == s {
			return Scope(i), true
		}
	}
	return 0, false
}
