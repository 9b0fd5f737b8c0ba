package model

import (
	"slices"
	"strings"
	"testing"
)

// TestEverySettingIsDocumented: every name has a description, and only
// names do; an integer says what it counts and nothing else carries a
// hand-written unit (theirs is read from the type); defaults are Kafka's.
func TestEverySettingIsDocumented(t *testing.T) {
	docs := SettingDocs()
	if len(docs) != len(configNames) || len(settingTexts) != len(configNames) {
		t.Fatalf("%d docs, %d texts, %d names", len(docs), len(settingTexts), len(configNames))
	}
	def := DefaultConfig()
	for i, d := range docs {
		if d.Name != configNames[i] {
			t.Fatalf("doc %d is %s, want %s (sorted by name)", i, d.Name, configNames[i])
		}
		text, ok := settingTexts[d.Name]
		if !ok || d.Description == "" || d.Group == "" {
			t.Errorf("%s: undocumented", d.Name)
		}
		integer := strings.HasPrefix(d.Unit, "integer")
		if integer != (text.unit != "") {
			t.Errorf("%s: unit %q, hand-written %q: an integer needs what it counts, nothing else does", d.Name, d.Unit, text.unit)
		}
		if d.Default != def.Get(d.Name) {
			t.Errorf("%s: default %q, DefaultConfig's %q", d.Name, d.Default, def.Get(d.Name))
		}
	}
	byName := func(n string) SettingDoc {
		i := slices.IndexFunc(docs, func(d SettingDoc) bool { return d.Name == n })
		return docs[i]
	}
	if d := byName("replica.lag.time.max.ms"); d.Default != "30s" || !strings.HasPrefix(d.Unit, "duration") || d.Group != "broker" || d.KafkasimOnly {
		t.Errorf("replica.lag.time.max.ms: %+v", d)
	}
	if d := byName("truncation"); !d.KafkasimOnly || d.Unit != "leader-epoch, leader-epoch-kip101, high-watermark" {
		t.Errorf("truncation: %+v", d)
	}
}

// TestUnknownSettingSuggestsNearestNames: a wrong case, a typo and a
// fragment each get the setting meant; nonsense gets a pointer to the
// list; names stay case-sensitive; a right name is not refused.
func TestUnknownSettingSuggestsNearestNames(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"Acks", "did you mean acks"},
		{"min.insync.replica", "did you mean min.insync.replicas"},
		{"min.isr.replicas", "min.insync.replicas"},
		{"idempotence", "did you mean enable.idempotence"},
		{"session.timeout", "session.timeout.ms"},
		{"zzzzzzzzzzzzzzz", "kafkasim config lists every setting"},
	} {
		kc := DefaultConfig()
		err := kc.Set(c.name, "1")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `unknown configuration "`+c.name+`"`) {
			t.Errorf("Set(%q): %v, want it to say %q", c.name, err, c.want)
		}
	}
	kc := DefaultConfig()
	if err := kc.Set("acks", "1"); err != nil || kc.Get("acks") != "1" {
		t.Fatalf("Set(acks): %v", err)
	}
	if got := SuggestSettings("retry.backoff"); len(got) > 3 || !slices.Contains(got, "retry.backoff.ms") {
		t.Fatalf("SuggestSettings(retry.backoff) = %q", got)
	}
}
