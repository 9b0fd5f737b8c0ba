package scenarios

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"kafkasim/faults"
	"kafkasim/scenarios/fixture"
)

// Drawn is what a configuration swarm draws from a run's seed: the
// cluster's shape, and Kafka settings as "key=value" in the order drawn.
// The settings are carried as -set flags (Run records them in the
// result's Set, so the reproduce line spells them out and replays them);
// the shape follows from the seed alone.
type Drawn struct {
	Brokers     int
	Controllers int
	Partitions  int32 // of topic "t"
	Shape       *fixture.Shape
	Set         []string
}

// Draws are the configuration swarms a scenario may name (Scenario.Draw,
// an experiment file's draw): each draws a run's shape and settings from
// its seed.
var Draws = map[string]func(seed uint64) Drawn{"config": drawConfig}

// DrawNames are the names of Draws, sorted.
func DrawNames() []string { return sortedKeys(Draws) }

// drawnSetting is one setting the swarm may draw: its Kafka name and the
// values it draws from, every one inside the safe envelope (the
// durability and delivery promises the checkers hold the run to apply).
type drawnSetting struct {
	key    string
	values func(r *rand.Rand, rf int) string
}

// pick returns one of the values, drawn.
func pick(r *rand.Rand, vs ...string) string { return vs[r.IntN(len(vs))] }

// configSettings are the settings chaos-config draws, in a fixed order:
// what legal Kafka users set and the safe catalog never did. Sessions are
// short but legal (heartbeat below the session, the session above the
// broker's group.min.session.timeout.ms, as GroupCoordinator's
// validateSessionTimeout requires); min.insync.replicas is at most the
// replication factor and reaches it; rf=1 is drawn too, where the
// promise is that a partition survives what its one replica's disk keeps.
var configSettings = []drawnSetting{
	{"default.replication.factor", func(r *rand.Rand, _ int) string { return pick(r, "1", "2", "3", "3", "3") }},
	{"min.insync.replicas", func(r *rand.Rand, rf int) string {
		return fmt.Sprint(pick(r, fmt.Sprint(rf), fmt.Sprint(min(2, rf))))
	}},
	{"linger.ms", func(r *rand.Rand, _ int) string { return pick(r, "0", "5", "100", "1000") }},
	{"max.in.flight.requests.per.connection", func(r *rand.Rand, _ int) string { return pick(r, "1", "5") }},
	{"group.min.session.timeout.ms", func(r *rand.Rand, _ int) string { return pick(r, "500", "6000") }},
	{"session.timeout.ms", func(r *rand.Rand, _ int) string { return pick(r, "6000", "10000", "45000") }},
	{"heartbeat.interval.ms", func(r *rand.Rand, _ int) string { return pick(r, "300", "1000", "3000") }},
	{"replica.lag.time.max.ms", func(r *rand.Rand, _ int) string { return pick(r, "10000", "30000") }},
	{"broker.session.timeout.ms", func(r *rand.Rand, _ int) string { return pick(r, "6000", "9000") }},
}

// drawConfig is chaos-config's draw: brokers 3 to 7, a metadata quorum of
// 1, 3 or 5, topic "t" of 1 to 4 partitions and up to two more topics of
// 1 to 6 written by keyed and keyless producers, and every setting of configSettings. The draw has its own
// stream of the seed, so it changes nothing the run itself draws.
func drawConfig(seed uint64) Drawn {
	r := rand.New(rand.NewPCG(seed, 0x636f6e666967)) // "config"
	d := Drawn{
		Brokers:     3 + r.IntN(5),
		Controllers: []int{1, 3, 5}[r.IntN(3)],
		Partitions:  1 + r.Int32N(4),
	}
	sh := &fixture.Shape{}
	keyed := fixture.ProducerShape{Name: "keyed", Keys: fixture.KeysUniform, KeyCount: 16}
	keyless := fixture.ProducerShape{Name: "keyless", Keys: fixture.KeysNone}
	for i := range r.IntN(3) {
		name := []string{"orders", "events"}[i]
		sh.Topics = append(sh.Topics, fixture.TopicShape{Name: name, Partitions: 1 + r.Int32N(6)})
		if r.IntN(2) == 0 {
			keyed.Topics = append(keyed.Topics, name)
		} else {
			keyless.Topics = append(keyless.Topics, name)
		}
	}
	for _, p := range []fixture.ProducerShape{keyed, keyless} {
		if len(p.Topics) > 0 {
			sh.Producers = append(sh.Producers, p)
		}
	}
	// No consumer group: the swarm's overlapping power losses may take a
	// coordinator partition's data (see chaos in safe.go).
	if len(sh.Topics) > 0 {
		d.Shape = sh
	}
	rf := 3
	for _, s := range configSettings {
		v := s.values(r, rf)
		if s.key == "default.replication.factor" {
			fmt.Sscan(v, &rf)
		}
		d.Set = append(d.Set, s.key+"="+v)
	}
	// A session must hold at least three heartbeats and be at least the
	// broker's minimum: the drawn heartbeat and session are fixed up to
	// stay legal rather than drawn again, so the draw stays one pass.
	d.Set = legalSessions(d.Set)
	return d
}

// legalSessions raises a drawn session.timeout.ms to the drawn minimum
// and to three heartbeats (ConsumerConfig's documented advice: no more
// than a third of the session), the broker's session to three broker
// heartbeats (its default 2 s).
func legalSessions(set []string) []string {
	get := func(key string) int {
		for _, kv := range set {
			if k, v, _ := strings.Cut(kv, "="); k == key {
				var n int
				fmt.Sscan(v, &n)
				return n
			}
		}
		return 0
	}
	session := max(get("session.timeout.ms"), get("group.min.session.timeout.ms"), 3*get("heartbeat.interval.ms"))
	out := slices.Clone(set)
	for i, kv := range out {
		if k, _, _ := strings.Cut(kv, "="); k == "session.timeout.ms" {
			out[i] = fmt.Sprintf("%s=%d", k, session)
		}
	}
	return out
}

// chaosConfig is the configuration swarm: chaos's faults on a cluster and
// settings drawn from the seed (drawConfig).
func chaosConfig() Scenario {
	return Scenario{
		Name:          "chaos-config",
		Description:   "a swarm of every fault kind on a shape and Kafka settings drawn from the seed (brokers, controllers, topics, partitions, replication factor, sessions, linger, in-flight requests)",
		Config:        shaped,
		Swarm:         &faults.SwarmOptions{Kinds: faults.SwarmKinds()},
		Safety:        60 * time.Second,
		LivenessBound: 90 * time.Second,
		Draw:          "config",
	}
}

// resolve turns a scenario that draws its shape and settings from the
// seed into the scenario and settings of that seed: the drawn settings
// first, in their order, each replaced by the value set gives it, then
// the rest of set. Resolving what a resolved run records gives it back
// unchanged, so a reproduce line that spells out the drawn settings
// replays the same run.
func resolve(sc Scenario, seed uint64, set []string) (Scenario, []string) {
	if sc.Draw == "" {
		return sc, set
	}
	d := Draws[sc.Draw](seed)
	sc.Draw = ""
	sc.Brokers, sc.Controllers, sc.Partitions, sc.Shape = d.Brokers, d.Controllers, d.Partitions, d.Shape
	return sc, mergeSets(d.Set, set)
}

// mergeSets is drawn with each key that over also sets taking over's last
// value in place, followed by over's other settings in their order.
func mergeSets(drawn, over []string) []string {
	key := func(kv string) string { k, _, _ := strings.Cut(kv, "="); return k }
	out := slices.Clone(drawn)
	var rest []string
	for _, kv := range over {
		if i := slices.IndexFunc(out, func(d string) bool { return key(d) == key(kv) }); i >= 0 && slices.ContainsFunc(drawn, func(d string) bool { return key(d) == key(kv) }) {
			out[i] = kv
			continue
		}
		rest = append(rest, kv)
	}
	return append(out, rest...)
}

// settingDefault is the value key has in the scenario's own configuration
// (before any draw), in the form -set takes: what the shrinker moves a
// drawn setting to.
func settingDefault(sc Scenario, key string) (string, bool) {
	kc := safe()
	if sc.Config != nil {
		kc = sc.Config()
	}
	v := kc.Get(key)
	return v, v != ""
}
