package model

import (
	"fmt"
	"slices"
	"strings"
)

// KafkaVersion is the kafka.version setting: the Kafka release whose
// defaults and behaviours a run follows where releases differ. Only the
// feature release counts ("3.7", not "3.7.1"): the changes kafkasim models
// all came with a feature release.
type KafkaVersion string

// KafkaVersions lists the releases kafka.version accepts, oldest first.
var KafkaVersions = []KafkaVersion{"3.6", "3.7", "3.8", "3.9", "4.0", "4.1"}

// NewestKafkaVersion is the default: the newest release whose behaviour
// kafkasim models. DefaultConfig holds its values.
const NewestKafkaVersion KafkaVersion = "4.1"

// UnmarshalText accepts one of KafkaVersions.
func (v *KafkaVersion) UnmarshalText(b []byte) error {
	k := KafkaVersion(b)
	if !k.valid() {
		return fmt.Errorf("%q is not a release kafkasim models (want one of %s)", b, kafkaVersionList())
	}
	*v = k
	return nil
}

func (v KafkaVersion) valid() bool { return slices.Contains(KafkaVersions, v) }

// before is whether release v came out before release w; both are in
// KafkaVersions, which is in release order.
func (v KafkaVersion) before(w KafkaVersion) bool {
	return slices.Index(KafkaVersions, v) < slices.Index(KafkaVersions, w)
}

func kafkaVersionList() string {
	names := make([]string, len(KafkaVersions))
	for i, v := range KafkaVersions {
		names[i] = string(v)
	}
	return strings.Join(names, ", ")
}

// versionChange is one change of a setting's default between releases:
// from release Since on the setting has DefaultConfig's value, in every
// modelled release before it the value Before. Behaviours that have no
// Kafka setting are behind a kafkasim switch (high.watermark.freeze.below.
// min.isr), so that a release is nothing but a set of values and every
// node reads settings, never the release.
type versionChange struct {
	Setting string
	Since   KafkaVersion
	Before  string
	// Why says what changed and where that is written down (release
	// notes, KIP, or Kafka's source at the release tag).
	Why string
}

// versionChanges are the changes kafka.version applies, newest first
// within a setting. A setting may change more than once; valueAt
// walks them in order, so the oldest change still after the release wins.
var versionChanges = []versionChange{
	{
		Setting: "eligible.leader.replicas.enable",
		Since:   "4.1",
		Before:  "false",
		// Kafka's operations guide for 4.1, "Eligible Leader Replicas":
		// available from 4.0 but off by default there
		// (eligible.leader.replicas.version=0), on for new clusters from
		// 4.1; no release before 4.0 has it.
		Why: "KIP-966 ELR: not in Kafka before 4.0, off by default in 4.0 (eligible.leader.replicas.version=0), on for new clusters since 4.1",
	},
	{
		Setting: "high.watermark.freeze.below.min.isr",
		Since:   "3.7",
		Before:  "false",
		// Partition.maybeIncrementLeaderHW at the 3.7.0 tag returns first
		// when isUnderMinIsr; at 3.6.0 it has no such check.
		Why: "KAFKA-15583 (3.7): the leader's high watermark stops while the ISR is below min.insync.replicas (Partition.maybeIncrementLeaderHW); 3.6 advances it",
	},
	{
		Setting: "stray.replica.check.at.load",
		Since:   "3.7",
		Before:  "false",
		// KAFKA-14616, fixed by apache/kafka PR #15230 in 3.7: LogManager
		// marks a log whose topic id the metadata image lacks as stray
		// while it loads logs (isStrayKraftReplica); 3.6 loads it and
		// ReplicaManager.applyDelta fails on it (InconsistentTopicIdException).
		Why: "KAFKA-14616 (3.7): a log left by a deleted topic is found stray as the broker loads logs (LogManager.isStrayKraftReplica) and the recreated topic's replica starts empty; 3.6 fails the replica with INCONSISTENT_TOPIC_ID and it never rejoins the ISR",
	},
	{
		Setting: "transaction.version",
		Since:   "4.0",
		Before:  "0",
		// TransactionVersion: TV_1 and TV_2 have bootstrap metadata
		// version IBP_4_0_IV2, so a 4.0 cluster is formatted at 2; 3.x
		// has no transaction.version feature (level 0).
		Why: "KIP-890 part 2 (4.0): TV_2 bootstraps with metadata version IBP_4_0_IV2, so new 4.0 clusters bump the producer epoch at every transaction end; 3.x runs level 0",
	},
	{
		Setting: "linger.ms",
		Since:   "4.0",
		Before:  "0s",
		// ProducerConfig at 3.9.0 defines linger.ms with default 0; KIP-1030
		// lists the new default 5 for 4.0.
		Why: "KIP-1030 (4.0) raised the producer's default from 0 to 5 ms",
	},
}

// unchangedAcrossVersions are version-sensitive settings whose default the
// modelled releases share; `kafkasim config` says so, so that nobody has
// to wonder whether kafka.version forgot them.
var unchangedAcrossVersions = map[string]string{
	"unclean.leader.election.enable":            "false in every modelled release (3.6 to 4.1)",
	"consumer.self.fencing":                     "kafka.version does not set it: no release's consumer gives up its partitions on its own when its coordinator goes silent (the classic AbstractCoordinator.HeartbeatThread marks the coordinator unknown; the KIP-848 consumer, early access in 3.7 and generally available in 4.0, fences itself only on FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID), so it is false for all",
	"session.timeout.ms":                        "45 s in every modelled release (since 3.0, KIP-735)",
	"enable.idempotence":                        "true in every modelled release (since 3.0, KIP-679)",
	"transaction.partition.verification.enable": "true in every modelled release (KIP-890 part 1 shipped in 3.6, TransactionLogConfig's default true)",
}

// valueAt is the value of setting name in release v, and whether some
// change applies to it at all.
func valueAt(name string, v KafkaVersion) (string, bool) {
	def := DefaultConfig()
	value, versioned := def.Get(name), false
	for _, ch := range versionChanges {
		if ch.Setting != name {
			continue
		}
		versioned = true
		if v.before(ch.Since) {
			value = ch.Before
		}
	}
	return value, versioned
}

// setKafkaVersion moves c to release v: each setting that kafka.version
// governs and that still holds its value in c's current release takes its
// value in v; one changed from that value (by a scenario or by -set)
// stays, because an explicit setting wins over a release's default.
// setKafkaVersion moves c to release v: each setting that kafka.version
// governs and that still holds its value in c's current release takes its
// value in v; one changed from that value (by a scenario or by -set)
// stays, because an explicit setting wins over a release's default.
// SetAll applies kafka.version before every other setting, so the order
// of -set flags does not matter.
func (c *Config) setKafkaVersion(v KafkaVersion) error {
	if !v.valid() {
		return fmt.Errorf("kafka.version: %q is not a release kafkasim models (want one of %s)", string(v), kafkaVersionList())
	}
	from := c.Release.KafkaVersion
	if !from.valid() {
		from = NewestKafkaVersion
	}
	for _, name := range versionedSettings() {
		old, _ := valueAt(name, from)
		if c.Get(name) != old {
			continue
		}
		now, _ := valueAt(name, v)
		if err := c.Set(name, now); err != nil {
			panic("model: version table value " + name + "=" + now + ": " + err.Error())
		}
	}
	c.Release.KafkaVersion = v
	return nil
}

// versionedSettings lists the settings versionChanges touches, sorted and
// without repeats.
func versionedSettings() []string {
	var names []string
	for _, ch := range versionChanges {
		names = append(names, ch.Setting)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// ConfigForVersion is DefaultConfig as release v has it.
func ConfigForVersion(v KafkaVersion) (Config, error) {
	c := DefaultConfig()
	err := c.setKafkaVersion(v)
	return c, err
}

// SetAll applies "name=value" settings as -set flags give them:
// kafka.version first, then the others in order. A release thus never
// undoes a setting given beside it, whatever the flags' order.
func (c *Config) SetAll(pairs []string) error {
	for _, pair := range ReleaseFirst(pairs) {
		if err := c.SetPair(pair); err != nil {
			return err
		}
	}
	return nil
}

// ReleaseFirst orders settings for applying: the kafka.version ones first,
// then the others, each group in its given order.
func ReleaseFirst(pairs []string) []string {
	isRelease := func(pair string) bool {
		name, _, _ := strings.Cut(pair, "=")
		return strings.TrimSpace(name) == "kafka.version"
	}
	out := make([]string, 0, len(pairs))
	for _, pair := range pairs {
		if isRelease(pair) {
			out = append(out, pair)
		}
	}
	for _, pair := range pairs {
		if !isRelease(pair) {
			out = append(out, pair)
		}
	}
	return out
}

// ReleaseNotes says, for `kafkasim config`, how setting name differs
// between the modelled releases, or "" if kafka.version leaves it alone
// and nothing needs saying.
func ReleaseNotes(name string) string {
	def := DefaultConfig()
	var parts []string
	for _, ch := range versionChanges {
		if ch.Setting == name {
			parts = append(parts, fmt.Sprintf("%s before %s, %s from %s: %s", ch.Before, ch.Since, def.Get(name), ch.Since, ch.Why))
		}
	}
	if note, ok := unchangedAcrossVersions[name]; ok {
		parts = append(parts, note)
	}
	return strings.Join(parts, "; ")
}
