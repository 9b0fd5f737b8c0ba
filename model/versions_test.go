package model

import (
	"strings"
	"testing"
	"time"
)

// TestKafkaVersionTable pins what each release resolves to, as the
// settings table documents it: ELR from 4.1, the high-watermark freeze
// and the stray-log check at load (KAFKA-14616)
// from 3.7, linger.ms 5 ms and transaction.version 2 from 4.0; every other setting as DefaultConfig.
func TestKafkaVersionTable(t *testing.T) {
	want := map[KafkaVersion]map[string]string{
		"3.6": {"eligible.leader.replicas.enable": "false", "high.watermark.freeze.below.min.isr": "false", "stray.replica.check.at.load": "false", "linger.ms": "0s", "transaction.version": "0"},
		"3.7": {"eligible.leader.replicas.enable": "false", "high.watermark.freeze.below.min.isr": "true", "linger.ms": "0s", "transaction.version": "0"},
		"3.8": {"eligible.leader.replicas.enable": "false", "high.watermark.freeze.below.min.isr": "true", "linger.ms": "0s", "transaction.version": "0"},
		"3.9": {"eligible.leader.replicas.enable": "false", "high.watermark.freeze.below.min.isr": "true", "linger.ms": "0s", "transaction.version": "0"},
		"4.0": {"eligible.leader.replicas.enable": "false", "high.watermark.freeze.below.min.isr": "true", "linger.ms": "5ms"},
		"4.1": {"eligible.leader.replicas.enable": "true", "high.watermark.freeze.below.min.isr": "true", "linger.ms": "5ms"},
	}
	if len(want) != len(KafkaVersions) {
		t.Fatalf("the test covers %d releases, KafkaVersions has %d", len(want), len(KafkaVersions))
	}
	def := DefaultConfig()
	for _, v := range KafkaVersions {
		c, err := ConfigForVersion(v)
		if err != nil {
			t.Fatalf("ConfigForVersion(%s) = %v", v, err)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("release %s does not validate: %v", v, err)
		}
		if got := c.Get("kafka.version"); got != string(v) {
			t.Errorf("release %s: kafka.version reads %q", v, got)
		}
		for _, name := range c.Names() {
			w, versioned := want[v][name]
			if !versioned {
				w = def.Get(name)
			}
			if name == "kafka.version" {
				continue
			}
			if got := c.Get(name); got != w {
				t.Errorf("release %s: %s = %q, want %q", v, name, got, w)
			}
		}
	}
	if def.Get("kafka.version") != string(NewestKafkaVersion) || NewestKafkaVersion != KafkaVersions[len(KafkaVersions)-1] {
		t.Errorf("the default release is %s, the newest modelled %s", def.Get("kafka.version"), KafkaVersions[len(KafkaVersions)-1])
	}
}

// TestKafkaVersionExplicitSettingWins: a setting given beside kafka.version
// keeps its value whichever flag comes first, and a value a scenario set
// (differing from the release default) survives a release change, while
// the settings left at their defaults move.
func TestKafkaVersionExplicitSettingWins(t *testing.T) {
	for _, pairs := range [][]string{
		{"kafka.version=3.6", "linger.ms=20ms"},
		{"linger.ms=20ms", "kafka.version=3.6"},
	} {
		c := DefaultConfig()
		if err := c.SetAll(pairs); err != nil {
			t.Fatalf("SetAll(%q) = %v", pairs, err)
		}
		if c.Get("linger.ms") != "20ms" || c.Get("kafka.version") != "3.6" || c.Get("eligible.leader.replicas.enable") != "false" {
			t.Errorf("SetAll(%q): linger.ms=%s kafka.version=%s elr=%s, want 20ms, 3.6, false",
				pairs, c.Get("linger.ms"), c.Get("kafka.version"), c.Get("eligible.leader.replicas.enable"))
		}
	}

	// A scenario turned ELR off and linger.ms to 0 in a 4.1 configuration;
	// 3.6 has those values anyway.
	c := DefaultConfig()
	c.Controller.EligibleLeaderReplicas = false
	c.Producer.Linger = 0
	if err := c.Set("kafka.version", "3.6"); err != nil {
		t.Fatal(err)
	}
	if c.Broker.HighWatermarkFreezeBelowMinISR || c.Controller.EligibleLeaderReplicas || c.Producer.Linger != 0 {
		t.Errorf("at 3.6: %+v %+v %+v", c.Broker, c.Controller, c.Producer)
	}
	if err := c.Set("kafka.version", "4.1"); err != nil {
		t.Fatal(err)
	}
	// ELR and linger.ms now hold 3.6's defaults, so 4.1 moves them too:
	// going through a release is the same as starting from it.
	if !c.Broker.HighWatermarkFreezeBelowMinISR || !c.Controller.EligibleLeaderReplicas || c.Get("linger.ms") != "5ms" {
		t.Errorf("back at 4.1: %+v %+v %+v", c.Broker, c.Controller, c.Producer)
	}

	// A value no release has stays through every move.
	c = DefaultConfig()
	c.Producer.Linger = 7 * time.Millisecond
	for _, v := range KafkaVersions {
		if err := c.Set("kafka.version", string(v)); err != nil {
			t.Fatal(err)
		}
		if c.Get("linger.ms") != "7ms" {
			t.Errorf("at %s: linger.ms = %s, want the given 7ms", v, c.Get("linger.ms"))
		}
	}
}

// TestKafkaVersionBadInput: an unknown release names the valid ones, and
// leaves the configuration as it was; so does one given among others.
func TestKafkaVersionBadInput(t *testing.T) {
	for _, bad := range []string{"3.5", "4.2", "4.1.0", "", "latest"} {
		c := DefaultConfig()
		err := c.Set("kafka.version", bad)
		if err == nil {
			t.Errorf("kafka.version=%q accepted", bad)
			continue
		}
		if !strings.Contains(err.Error(), "3.6, 3.7, 3.8, 3.9, 4.0, 4.1") {
			t.Errorf("kafka.version=%q: %v does not list the releases", bad, err)
		}
		if c != DefaultConfig() {
			t.Errorf("kafka.version=%q changed the configuration", bad)
		}
	}
	c := DefaultConfig()
	if err := c.SetAll([]string{"linger.ms=1ms", "kafka.version=3.0"}); err == nil {
		t.Error("SetAll with kafka.version=3.0 accepted")
	}
	// A zero Config (no release) is caught by Validate, not taken as one.
	var zero Config
	if err := zero.Validate(); err == nil || !strings.Contains(err.Error(), "kafka.version") {
		t.Errorf("Validate of a release-less config: %v", err)
	}
}

// TestELRNeedsHighWatermarkFreeze: ELR without the freeze is a
// combination no Kafka release has, and Validate says why; ELR off
// without the freeze (3.6) is fine.
func TestELRNeedsHighWatermarkFreeze(t *testing.T) {
	c := DefaultConfig()
	if err := c.SetAll([]string{"kafka.version=3.6", "eligible.leader.replicas.enable=true"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "high.watermark.freeze.below.min.isr") {
		t.Errorf("ELR at 3.6: Validate = %v", err)
	}
	c = DefaultConfig()
	c.Controller.EligibleLeaderReplicas = false
	c.Broker.HighWatermarkFreezeBelowMinISR = false
	if err := c.Validate(); err != nil {
		t.Errorf("no ELR, no freeze: %v", err)
	}
}

// TestReleaseNotesDocumentEveryChange: each setting kafka.version moves
// says in its table row which release changed it.
func TestReleaseNotesDocumentEveryChange(t *testing.T) {
	for _, ch := range versionChanges {
		note := ReleaseNotes(ch.Setting)
		if !strings.Contains(note, "before "+string(ch.Since)) || !strings.Contains(note, ch.Why) {
			t.Errorf("%s: release notes %q lack the change in %s", ch.Setting, note, ch.Since)
		}
		if !KafkaVersion(ch.Since).valid() {
			t.Errorf("%s changes in %s, not a modelled release", ch.Setting, ch.Since)
		}
		if _, ok := configFields[ch.Setting]; !ok {
			t.Errorf("version table names %s, not a setting", ch.Setting)
		}
	}
	if ReleaseNotes("acks") != "" {
		t.Errorf("acks has release notes: %q", ReleaseNotes("acks"))
	}
}
