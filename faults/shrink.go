package faults

import "time"

// RunsDefault is Shrink's budget when the caller gives none: each run is a
// whole simulated run, so the budget is what bounds a shrink's cost.
const RunsDefault = 200

// roundsMax bounds the passes over a schedule; a pass that changes nothing
// ends the shrink sooner.
const roundsMax = 8

// Shrink reduces a failing schedule while fails still says it fails, and
// returns the smallest schedule it found and how many times it called
// fails. It drops faults (the whole schedule, then halves, quarters, ...,
// then single faults, as delta debugging does), shortens windows (an
// earlier end), and moves faults later (a later start, never past the
// next fault, so the order stays); windows and times are searched by
// bisection and rounded to the coarsest of 1s, 100ms, 10ms, 1ms that
// fits, so the result reads like a schedule a person wrote.
//
// fails must be deterministic: a run of a seed with a schedule. Shrink is
// then deterministic too: no map order or randomness enters it, and it
// never calls fails twice on the same schedule. It calls fails at most
// runsMax times (RunsDefault if runsMax <= 0); the first call checks s
// itself, and if s does not fail Shrink returns it unchanged.
func Shrink(s Schedule, fails func(Schedule) bool, runsMax int) (Schedule, int) {
	if runsMax <= 0 {
		runsMax = RunsDefault
	}
	sh := &shrinker{fails: fails, runsMax: runsMax, seen: map[string]bool{}}
	cur := s.clone()
	if !sh.try(cur) {
		return cur, sh.runs
	}
	for round := 0; round < roundsMax && sh.runs < sh.runsMax; round++ {
		var dropped, shortened, moved bool
		cur, dropped = sh.drop(cur)
		cur, shortened = sh.shorten(cur)
		cur, moved = sh.later(cur)
		if !dropped && !shortened && !moved {
			break
		}
	}
	return cur, sh.runs
}

type shrinker struct {
	fails   func(Schedule) bool
	runsMax int
	runs    int
	seen    map[string]bool // verdicts by schedule text; looked up, never walked
}

// try reports whether c fails, from memory when c was tried before, and
// as "does not fail" once the budget is spent (so nothing changes then).
func (sh *shrinker) try(c Schedule) bool {
	key := c.String()
	if v, ok := sh.seen[key]; ok {
		return v
	}
	if sh.runs >= sh.runsMax {
		return false
	}
	sh.runs++
	v := sh.fails(c.clone())
	sh.seen[key] = v
	return v
}

// drop removes runs of faults, largest first: the whole schedule (a
// failure that needs no fault at all), then halves, and so on down to
// single faults. A removal that still fails is kept and the same position
// is tried again with what slid into it.
func (sh *shrinker) drop(cur Schedule) (Schedule, bool) {
	changed := false
	for size := len(cur); size >= 1; size /= 2 {
		for i := 0; i < len(cur); {
			end := min(i+size, len(cur))
			cand := append(append(Schedule{}, cur[:i]...), cur[end:]...)
			if sh.try(cand) {
				cur, changed = cand, true
			} else {
				i += size
			}
		}
	}
	return cur, changed
}

// shorten bisects each window's end towards its start.
func (sh *shrinker) shorten(cur Schedule) (Schedule, bool) {
	changed := false
	for i := range cur {
		if !cur[i].Windowed() {
			continue
		}
		// lo does not fail (or is the start itself); hi fails.
		lo, hi := cur[i].At, cur[i].End
		for bisections(lo, hi, cur[i].End-cur[i].At) {
			mid, ok := midpoint(lo, hi)
			if !ok {
				break
			}
			cand := cur.clone()
			cand[i].End = mid
			if sh.try(cand) {
				hi = mid
			} else {
				lo = mid
			}
		}
		if hi != cur[i].End {
			cur = cur.clone()
			cur[i].End = hi
			changed = true
		}
	}
	return cur, changed
}

// later bisects each fault's start towards the latest time it can have:
// just before its window's end, or, for an instantaneous fault, the last
// moment the schedule mentions (the last fault that is last stays). A
// moved fault is sorted back into place. Faults are visited from the
// last to the first, so that one moved past others is never met again in
// the same pass.
func (sh *shrinker) later(cur Schedule) (Schedule, bool) {
	changed := false
	for i := len(cur) - 1; i >= 0; i-- {
		limit := cur[i].End - time.Millisecond
		if !cur[i].Windowed() {
			limit = horizon(cur)
		}
		if limit <= cur[i].At {
			continue
		}
		at := func(t time.Duration) Schedule {
			c := cur.clone()
			c[i].At = t
			return c.Sorted()
		}
		// lo fails; hi is not known to. hi is tried first: a fault that
		// still fails at its latest time needs no bisection.
		lo, hi := cur[i].At, limit
		if sh.try(at(hi)) {
			lo = hi
		}
		for lo < hi && bisections(lo, hi, limit-cur[i].At) {
			mid, ok := midpoint(lo, hi)
			if !ok {
				break
			}
			if sh.try(at(mid)) {
				lo = mid
			} else {
				hi = mid
			}
		}
		if lo != cur[i].At {
			cur = at(lo)
			changed = true
		}
	}
	return cur, changed
}

// horizon is the latest time a schedule mentions.
func horizon(s Schedule) time.Duration {
	var h time.Duration
	for _, f := range s {
		h = max(h, f.At, f.End)
	}
	return h
}

// bisections says whether a search of a span that has narrowed to
// [lo, hi] should go on: until it is within 1% of the span it started
// with, or 10ms, whichever is coarser.
func bisections(lo, hi, span time.Duration) bool {
	return hi-lo > max(10*time.Millisecond, span/100)
}

// midpoint returns a time strictly between lo and hi near their middle,
// rounded to the coarsest of 1s, 100ms, 10ms and 1ms that keeps it
// strictly between, or false when no millisecond is.
func midpoint(lo, hi time.Duration) (time.Duration, bool) {
	mid := lo + (hi-lo)/2
	for _, unit := range []time.Duration{time.Second, 100 * time.Millisecond, 10 * time.Millisecond, time.Millisecond} {
		if m := mid.Round(unit); m > lo && m < hi {
			return m, true
		}
	}
	return 0, false
}
