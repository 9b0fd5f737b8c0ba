package faults

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// Heal undoes every fault at once, whoever made it and whatever window
// was still open, and faults due later do nothing.
func TestHealUndoesEverything(t *testing.T) {
	w := newToyWorld(t, 1)
	w.k.Disk(3).SetSyncLatency(2 * ms)
	n := w.apply(t, `at 1s crash b1
from 1s to 1m pause b2
at 1s partition halves
from 1s to 1m partition oneway b3 controller
from 1s to 1m clog 1000 b3 +300ms
from 1s to 1m drift b3 +0.2
at 1s skew controller -3s
from 1s to 1m sync-latency b3 900ms
at 30s crash b3`)
	w.k.Run(2 * time.Second)
	n.Heal()
	if !n.Healed() {
		t.Fatal("Healed false after Heal")
	}
	if got := w.cutSet(); len(got) != 0 {
		t.Errorf("cut after Heal: %v", got)
	}
	for _, id := range toyIDs {
		if !w.k.IsUp(id) || w.k.IsPaused(id) {
			t.Errorf("%v after Heal: up %v, paused %v", id, w.k.IsUp(id), w.k.IsPaused(id))
		}
		if got := w.k.LocalTime(id); got != w.k.Now() {
			t.Errorf("%v clock %v after Heal, want %v", id, got, w.k.Now())
		}
	}
	if got := w.k.Disk(3).SyncLatency(); got != 2*ms {
		t.Errorf("b3 sync latency %v after Heal, want 2ms back", got)
	}
	heal := n.Log()[len(n.Log())-1]
	if heal.Fault.Kind != KindHeal || heal.Time != 2*time.Second || !reflect.DeepEqual(heal.Nodes, []model.BrokerID{2, 1}) {
		t.Errorf("Heal logged %v, want b2 resumed and b1 restarted at 2s", heal)
	}
	w.k.Run(40 * time.Second)
	if !w.k.IsUp(3) {
		t.Error("a fault due after Heal crashed b3")
	}
	if got := w.o.maxLatency(client, 3, 2400*ms, 3*time.Second); got != ms {
		t.Errorf("client -> b3 latency %v after Heal, want 1ms", got)
	}
	last := n.Log()[len(n.Log())-1]
	if last.Fault.Kind != KindCrash || !last.NoOp() || !strings.Contains(last.Note, "liveness phase") {
		t.Errorf("last log entry %v, want the 30s crash skipped", last)
	}
	w.k.Run(61 * time.Second)
	if got := w.k.Incarnation(1); got != 2 {
		t.Errorf("b1 incarnation %d, want 2 (one restart by Heal, none by a window end after)", got)
	}
}

// Converge reports how long convergence took, to the slice.
func TestConvergeTimesConvergence(t *testing.T) {
	w := newToyWorld(t, 1)
	w.apply(t, "at 1s crash b2\nat 3s restart b2")
	w.k.Run(2 * time.Second)
	took, err := Converge(w, 10*time.Second, func() (bool, string) {
		return w.k.IsUp(2), "b2 is down"
	})
	if err != nil {
		t.Fatal(err)
	}
	if took != time.Second {
		t.Errorf("converged after %v, want 1s", took)
	}
	if now := w.k.Now(); now != 3*time.Second {
		t.Errorf("Converge ran on to %v, want it to stop at 3s", now)
	}
}

// A system that never converges is reported stuck at the bound, with the
// last description of what was stuck.
func TestConvergeReportsWhatWasStuck(t *testing.T) {
	w := newToyWorld(t, 1)
	w.leader = func() model.BrokerID { return model.NoBroker }
	looks := 0
	took, err := Converge(w, 2*time.Second, func() (bool, string) {
		looks++
		return false, "t/0 has no leader (look " + strconv.Itoa(looks) + ")"
	})
	var stuck *StuckError
	if !errors.As(err, &stuck) {
		t.Fatalf("error %v, want a *StuckError", err)
	}
	if took != 2*time.Second || stuck.Bound != 2*time.Second || stuck.Stop != sim.StopTimeLimit {
		t.Errorf("took %v, error %+v", took, stuck)
	}
	if want := "t/0 has no leader (look " + strconv.Itoa(looks) + ")"; stuck.State != want {
		t.Errorf("state %q, want the last look %q", stuck.State, want)
	}
	if looks != 41 {
		t.Errorf("looked %d times in 2s, want 41 (every 50ms and at both ends)", looks)
	}
	if w.k.Now() != 2*time.Second {
		t.Errorf("ran to %v, want exactly the bound", w.k.Now())
	}
	if !strings.Contains(err.Error(), "did not converge within 2s") {
		t.Errorf("error text %q", err)
	}
}

// A run with nothing left to do cannot converge later: stuck at once.
func TestConvergeStopsWhenTheRunDoes(t *testing.T) {
	k := sim.New(sim.Config{Seed: 1})
	w := &toyWorld{k: k}
	took, err := Converge(w, time.Hour, func() (bool, string) { return false, "nothing runs" })
	var stuck *StuckError
	if !errors.As(err, &stuck) || stuck.Stop != sim.StopIdle || took != 0 {
		t.Fatalf("took %v, error %v; want stuck at once, idle", took, err)
	}
}
