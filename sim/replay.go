package sim

// CheckReplay runs a scenario twice with the same configuration and reports
// whether the two runs processed the same events. run must build a world
// from the given Config (seed, limits, recording options), run it, and
// return it.
//
// When the runs differ it names where: first by comparing hash checkpoints
// (taken every cfg.CheckpointEvery events, 1024 if unset), then by running
// both a second time while recording full trace events inside the first
// differing checkpoint window, so the report shows the first event that
// differs and what each run did there. A nondeterminism that does not
// recur in the second pair of runs is still reported, at checkpoint
// granularity.
func CheckReplay(cfg Config, run func(Config) *Sim) (Divergence, bool) {
	if cfg.CheckpointEvery == 0 {
		cfg.CheckpointEvery = 1024
	}
	cfg.Record = false
	a, b := run(cfg), run(cfg)
	if a.Hash() == b.Hash() && a.TraceEvents() == b.TraceEvents() {
		return Divergence{Checkpoint: -1}, true
	}
	d := Divergence{Checkpoint: FirstCheckpointDiff(a.Checkpoints(), b.Checkpoints())}
	if d.Checkpoint < 0 {
		// Every shared checkpoint agrees: the runs part after the last
		// one either has (or one run is longer).
		d.Checkpoint = min(len(a.Checkpoints()), len(b.Checkpoints()))
	}
	rc := cfg
	rc.Record = true
	rc.RecordFrom = uint64(d.Checkpoint)*cfg.CheckpointEvery + 1
	rc.RecordTo = uint64(d.Checkpoint+1) * cfg.CheckpointEvery
	rc.RecordLimit = int(cfg.CheckpointEvery)
	ra, rb := run(rc), run(rc)
	ta, tb := ra.Trace(), rb.Trace()
	if i, ok := FirstEventDiff(ta, tb); ok {
		d.Event = ta[i].Index
		d.A, d.B = &ta[i], &tb[i]
	} else if len(ta) != len(tb) {
		d.Event = rc.RecordFrom + uint64(i)
	}
	return d, false
}
