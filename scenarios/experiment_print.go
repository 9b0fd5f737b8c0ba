package scenarios

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/scenarios/fixture"
)

// Format prints e as an experiment file: what DecodeExperiment reads back
// to e (TestExperimentRoundTrip), keys in a fixed order, maps sorted.
func Format(e Experiment) string {
	var b bytes.Buffer
	enc := toml.NewEncoder(&b)
	enc.Indent = ""
	if err := enc.Encode(e); err != nil {
		// Every field of Experiment has a TOML form; an error here is a
		// bug in the format, not in a file.
		panic(fmt.Sprintf("scenarios: cannot print an experiment: %v", err))
	}
	return b.String()
}

// ExperimentOf writes a scenario as an experiment: what kafkasim show
// prints for a catalog entry. A scenario whose faults only Go can write
// (a Schedule function) has no file form.
func ExperimentOf(sc Scenario) (Experiment, error) {
	if sc.Schedule != nil {
		return Experiment{}, fmt.Errorf("scenario %s writes its faults in Go (Schedule), which a file cannot say", sc.Name)
	}
	kc, err := ConfigFor(sc, nil)
	if err != nil {
		return Experiment{}, err
	}
	e := Experiment{Name: sc.Name, Description: sc.Description, Expect: sc.Expect.Word()}
	if sc.Seed != 0 {
		e.Seeds = []uint64{sc.Seed}
	}
	if e.Cluster, err = clusterOf(sc); err != nil {
		return Experiment{}, err
	}
	if sc.Draw != "" {
		// The draw gives the brokers, controllers and topics.
		e.Draw, e.Cluster.Brokers, e.Cluster.Controllers = sc.Draw, 0, 0
	}
	if nd := kc.NonDefault(); len(nd) > 0 {
		e.Config = map[string]SettingValue{}
		for _, kv := range nd {
			k, v, _ := strings.Cut(kv, "=")
			e.Config[k] = SettingValue(v)
		}
	}
	e.Topics = topicsOf(sc)
	e.Workload = workloadOf(sc)
	if e.Faults, err = faultsOf(sc); err != nil {
		return Experiment{}, err
	}
	e.Phases = ExperimentPhases{Safety: Duration(sc.Safety), Until: Duration(sc.Until), LivenessBound: Duration(sc.LivenessBound)}
	if sc.Until > 0 {
		e.Phases.Safety = 0 // Until replaces it (see play)
	}
	return e, nil
}

// clusterOf is sc's [cluster]: its sizes with the defaults written out,
// its racks and its link.
func clusterOf(sc Scenario) (ExperimentCluster, error) {
	c := ExperimentCluster{Brokers: cmp(sc.Brokers, 3), Controllers: cmp(sc.Controllers, 3), SpareBrokers: sc.SpareBrokers, DiskWriteback: Duration(sc.DiskWriteback),
		MetadataSnapshotEvery: sc.SnapshotEvery}
	if len(sc.Racks) > 0 {
		c.Racks = slices.Clone(sc.Racks)
		if sc.RackUnaware {
			no := false
			c.RackAwarePlacement = &no
		}
	}
	if l := sc.Link.Latency; l.Min > 0 || l.Max > 0 {
		c.Link = &ExperimentLink{Min: Duration(l.Min), Max: Duration(l.Max), TailProb: l.TailProb, Tail: Duration(l.Tail)}
		if d := sc.Link.Datagram; d != nil {
			c.Link.Datagram = &ExperimentDatagram{DupProb: d.DupProb, ReorderProb: d.ReorderProb, ReorderMax: Duration(d.ReorderMax)}
		}
	} else if sc.Link.Datagram != nil {
		return ExperimentCluster{}, fmt.Errorf("scenario %s runs datagram links on the default latency, which a file says only with a latency", sc.Name)
	}
	return c, nil
}

// topicsOf is sc's [[topics]]: t (unless a draw gives the topics), then
// the Shape's topics.
func topicsOf(sc Scenario) []ExperimentTopic {
	var topics []ExperimentTopic
	t := ExperimentTopic{Name: "t", Partitions: max(sc.Partitions, 1), ReplicationFactor: sc.ReplicationFactor}
	if len(sc.TopicConfigs) > 0 {
		t.Config = map[string]SettingValue{}
		for _, c := range sc.TopicConfigs {
			t.Config[c.Name] = SettingValue(c.Value)
		}
	}
	if sc.Draw == "" {
		topics = []ExperimentTopic{t}
	}
	if sh := sc.Shape; sh != nil {
		for _, st := range sh.Topics {
			topics = append(topics, ExperimentTopic{Name: st.Name, Partitions: st.Partitions, ReplicationFactor: st.ReplicationFactor, Config: settingMap(st.Configs)})
		}
	}
	return topics
}

// workloadOf is sc's [workload]: t's producer, the Shape's producers and
// the groups.
func workloadOf(sc Scenario) ExperimentWorkload {
	interval := sc.Interval
	if interval == 0 {
		interval = 20 * time.Millisecond
	}
	w := ExperimentWorkload{Interval: Duration(interval), Burst: sc.Burst, ProduceUntil: Duration(sc.ProduceUntil)}
	if sc.NoAssignConsumer {
		no := false
		w.AssignConsumer = &no
	}
	if sh := sc.Shape; sh != nil {
		for _, p := range sh.Producers {
			ep := ExperimentProducer{Name: p.Name, Count: p.Count, Topics: slices.Clone(p.Topics), KeyCount: p.KeyCount, ZipfExponent: p.ZipfExponent,
				Interval: Duration(p.Interval), Burst: p.Burst, ValueBytes: p.ValueBytes, Settings: settingMap(p.Settings), Start: Duration(p.Start), Stop: Duration(p.Stop)}
			if p.Keys != fixture.KeysNone && p.Keys != "" {
				ep.Keys = string(p.Keys)
			}
			w.Producers = append(w.Producers, ep)
		}
	}
	for _, g := range sc.Groups {
		w.Groups = append(w.Groups, ExperimentGroup{Name: g.Name, Members: g.Members, Assignor: string(g.Assignor), Start: Duration(g.Start), Stop: Duration(g.Stop)})
	}
	if t := sc.Txn; t != nil {
		d := t.WithDefaults()
		w.Transactions = &ExperimentTransactions{Topic: d.Topic, Partitions: d.Partitions, Producers: d.Producers,
			Records: d.Records, AbortEvery: d.AbortEvery, Interval: Duration(d.Interval), Stop: Duration(d.Stop)}
	}
	if p := sc.EOS; p != nil {
		d := p.WithDefaults()
		w.Pipeline = &ExperimentPipeline{Input: d.Input, Output: d.Output, Group: d.Group, Partitions: d.Partitions,
			Workers: d.Workers, Interval: Duration(d.Interval)}
	}
	return w
}

// faultsOf is sc's [faults]: its schedule, writer and swarm.
func faultsOf(sc Scenario) (ExperimentFaults, error) {
	var f ExperimentFaults
	if len(sc.Faults) > 0 {
		f.Schedule = sc.Faults.String()
	}
	if w := sc.Writer; w != nil {
		f.Writer = &ExperimentWriter{Kind: w.Kind, Stream: w.Stream, GapMin: Duration(w.GapMin), GapMax: Duration(w.GapMax), Faults: w.Faults, Script: w.Script,
			Start: Duration(w.Start), Spread: Duration(w.Spread), WindowMin: Duration(w.WindowMin), WindowMax: Duration(w.WindowMax)}
	}
	if o := sc.Swarm; o != nil {
		sw, err := swarmOf(sc.Name, o)
		if err != nil {
			return ExperimentFaults{}, err
		}
		f.Swarm = sw
	}
	return f, nil
}

// swarmOf is a swarm's [faults.swarm]; a window fixed in Go has no file
// form, since the run sets it.
func swarmOf(name string, o *faults.SwarmOptions) (*ExperimentSwarm, error) {
	sw := &ExperimentSwarm{Controllers: o.Controllers, MeanInterval: Duration(o.MeanInterval), WindowMin: Duration(o.WindowMin),
		WindowMax: Duration(o.WindowMax), SkewMax: Duration(o.SkewMax), DriftMax: o.DriftMax, DelayMax: Duration(o.DelayMax),
		SyncLatencyMax: Duration(o.SyncLatencyMax)}
	for _, t := range o.Targets {
		sw.Targets = append(sw.Targets, t.String())
	}
	sw.Triggers, sw.TriggerProb, sw.MaxPerKind = slices.Clone(o.Triggers), o.TriggerProb, o.MaxPerKind
	sw.Topics = slices.Clone(o.Topics)
	if o.Start != 0 || o.End != 0 {
		return nil, fmt.Errorf("scenario %s fixes its swarm's window, which the run sets", name)
	}
	if slices.Equal(o.Kinds, faults.SwarmKinds()) {
		sw.Kinds = []string{"all"}
	} else {
		for _, k := range o.Kinds {
			sw.Kinds = append(sw.Kinds, string(k))
		}
	}
	return sw, nil
}

// settingMap is settings by name as a file writes them (nil for none).
func settingMap(entries []model.ConfigEntry) map[string]SettingValue {
	if len(entries) == 0 {
		return nil
	}
	out := map[string]SettingValue{}
	for _, c := range entries {
		out[c.Name] = SettingValue(c.Value)
	}
	return out
}
