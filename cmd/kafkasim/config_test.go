package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"kafkasim/model"
	"kafkasim/scenarios"
)

// TestConfigListsEverySetting: the text listing has a block per setting
// within 100 columns, and -json one object per setting whose overrides
// are the scenarios' real values.
func TestConfigListsEverySetting(t *testing.T) {
	kc := model.DefaultConfig()
	names := kc.Names()
	var out, errb bytes.Buffer
	if code := dispatch([]string{"config"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	heads := 0
	for _, l := range strings.Split(out.String(), "\n") {
		if len(l) > 100 {
			t.Errorf("line of %d columns: %q", len(l), l)
		}
		if l != "" && !strings.HasPrefix(l, " ") {
			heads++
		}
	}
	if heads != len(names) {
		t.Fatalf("%d blocks for %d settings", heads, len(names))
	}
	out.Reset()
	if code := dispatch([]string{"config", "-json"}, &out, &errb); code != 0 {
		t.Fatalf("-json: exit %d: %s", code, errb.String())
	}
	var settings []scenarios.Setting
	if err := json.Unmarshal(out.Bytes(), &settings); err != nil {
		t.Fatal(err)
	}
	if len(settings) != len(names) {
		t.Fatalf("%d settings in JSON, %d names", len(settings), len(names))
	}
	overrides := 0
	for i, s := range settings {
		if s.Name != names[i] || s.Description == "" || s.Unit == "" || s.Default != kc.Get(s.Name) {
			t.Errorf("setting %d: %+v", i, s)
		}
		for _, o := range s.OverriddenBy {
			overrides++
			sc, ok := scenarios.Find(o.Scenario)
			if !ok {
				t.Fatalf("%s: override by unknown scenario %q", s.Name, o.Scenario)
			}
			cfg, err := scenarios.ConfigFor(sc, nil)
			if err != nil || cfg.Get(s.Name) != o.Value || o.Value == s.Base {
				t.Errorf("%s: %s overrides it with %q, its configuration has %q (base %q)", s.Name, o.Scenario, o.Value, cfg.Get(s.Name), s.Base)
			}
		}
	}
	if overrides == 0 {
		t.Fatal("no scenario overrides any setting: the catalog's historical bugs do")
	}
	out.Reset()
	if code := dispatch([]string{"config", "acks", "min.insync.replicas"}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "acks  (producer)") || !strings.Contains(out.String(), "\nmin.insync.replicas  (topic)") {
		t.Fatalf("config acks min.insync.replicas: exit %d\n%s", code, out.String())
	}
}

// TestUnknownSettingNamesTheNearest: a wrong name, in config or in a
// run's -set, is bad input naming the setting meant, and nothing runs;
// names are case-sensitive.
func TestUnknownSettingNamesTheNearest(t *testing.T) {
	for _, args := range [][]string{
		{"config", "Acks"},
		{"run", "-scenario", "baseline", "-set", "Acks=1"},
		{"sweep", "-scenario", "baseline", "-seeds", "1", "-set", "Acks=1"},
	} {
		var out, errb bytes.Buffer
		if code := dispatch(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), `unknown configuration "Acks" (did you mean acks?)`) || out.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, out.String(), errb.String())
		}
	}
}
