package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"kafkasim/model"
	"kafkasim/scenarios"
)

// settingValue is one configuration value the checkers read, and where it
// came from: "given" (-set, or one of the older shorthand flags),
// "assumed" (a history alone does not say), "implied" (Kafka derives it
// from another given value) or "recorded" (a run directory's).
type settingValue struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Source string `json:"source"`
	Why    string `json:"why,omitempty"`
}

// assumedConfig is what check -history takes the recording cluster's
// configuration to be until told: Kafka's defaults (idempotence on,
// acks=all, max.in.flight 5, clean elections), except
// auto.offset.reset=earliest, Jepsen's setting, which skips nothing
// silently, and min.insync.replicas=2, so that the durability promise is
// assumed rather than waived.
func assumedConfig() model.Config {
	kc := model.DefaultConfig()
	kc.Consumer.AutoOffsetReset = model.ResetEarliest
	kc.Topic.MinInsyncReplicas = 2
	return kc
}

// shorthand maps check's older flags to the configuration name each
// stands for.
var shorthand = []struct{ flag, name string }{
	{"idempotent", "enable.idempotence"},
	{"acks", "acks"},
	{"reset", "auto.offset.reset"},
	{"min-isr", "min.insync.replicas"},
}

// historySettings applies the given settings (name=value pairs, as run's
// -set takes them) to the assumed configuration. It returns the
// configuration, what each setting the checkers read was taken to be,
// and the given names the checkers do not read.
func historySettings(pairs []string) (model.Config, []settingValue, []string, error) {
	kc := assumedConfig()
	given := map[string]string{}
	var unread []string
	// kafka.version first, as run's -set applies it (model.ReleaseFirst).
	for _, pair := range model.ReleaseFirst(pairs) {
		name, value, ok := strings.Cut(pair, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok {
			return kc, nil, nil, fmt.Errorf("-set %q: want name=value", pair)
		}
		if err := kc.Set(name, value); err != nil {
			return kc, nil, nil, fmt.Errorf("-set %s: %v", pair, err)
		}
		v := kc.Get(name)
		if prev, dup := given[name]; dup && prev != v {
			return kc, nil, nil, fmt.Errorf("%s given twice, as %s and %s", name, prev, v)
		}
		given[name] = v
		if !slices.Contains(scenarios.CheckSettings(), name) && !slices.Contains(unread, name+"="+v) {
			unread = append(unread, name+"="+v)
		}
	}
	implied := ""
	if _, ok := given["enable.idempotence"]; !ok && kc.Producer.Acks != model.AcksAll {
		// Kafka's producer turns idempotence off when acks is not all and
		// enable.idempotence was not set (ProducerConfig's
		// postProcessAndValidateIdempotenceConfigs).
		kc.Producer.Idempotence = false
		implied = "acks=" + kc.Producer.Acks.String() + ": Kafka's producer turns idempotence off unless it is set"
	}
	if kc.Producer.Idempotence && kc.Producer.Acks != model.AcksAll {
		return kc, nil, nil, fmt.Errorf("enable.idempotence=true requires acks=all, got acks=%s, as Kafka's producer does", kc.Producer.Acks)
	}
	var out []settingValue
	for _, name := range scenarios.CheckSettings() {
		sv := settingValue{Name: name, Value: kc.Get(name), Source: "assumed"}
		switch {
		case given[name] != "":
			sv.Source = "given"
		case name == "enable.idempotence" && implied != "":
			sv.Source, sv.Why = "implied", implied
		}
		out = append(out, sv)
	}
	return kc, out, unread, nil
}

// shorthandPairs turns the older flags a user set into name=value pairs.
func shorthandPairs(set map[string]bool, idempotent bool, acks, reset string, minISR int) []string {
	var out []string
	for _, s := range shorthand {
		if !set[s.flag] {
			continue
		}
		switch s.flag {
		case "idempotent":
			out = append(out, s.name+"="+strconv.FormatBool(idempotent))
		case "acks":
			out = append(out, s.name+"="+acks)
		case "reset":
			out = append(out, s.name+"="+reset)
		case "min-isr":
			if minISR != 0 { // 0 was the flag's "not stated"
				out = append(out, s.name+"="+strconv.Itoa(minISR))
			}
		}
	}
	return out
}

// recordedSettings are a saved run's values of what the checkers read.
func recordedSettings(config map[string]string) []settingValue {
	var out []settingValue
	for _, name := range scenarios.CheckSettings() {
		out = append(out, settingValue{Name: name, Value: config[name], Source: "recorded"})
	}
	return out
}
