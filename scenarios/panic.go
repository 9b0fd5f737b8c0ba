package scenarios

import (
	"fmt"
	"runtime"
	"strings"

	"kafkasim/checkers"
)

// A panic in the simulated cluster's code (or in the harness) is a bug
// found, like any checker's error: the run stops there, and its result
// says where, with the seed and schedule that reproduce it. It must not
// end a sweep of thousands of seeds, nor leave the command line's exit
// code at Go's 2, which kafkasim gives bad input. The simulator's Run
// already adds the virtual time, the event count and the seed to the
// panic's message (sim.Sim.Run).

// panicFrames is how many frames of the panicking code a finding names.
const panicFrames = 8

// runCatching runs fn and, if it panics, returns what panicked and where;
// "" when fn returned.
func runCatching(fn func()) (panicked string) {
	defer func() {
		if r := recover(); r != nil {
			panicked = describePanic(r)
		}
	}()
	fn()
	return ""
}

// describePanic is the panic's value and the kafkasim frames it came
// from, innermost first, as "function (file:line)", up to the
// simulator's event loop. Called from the
// deferred recover, so the panicking frames are still on the stack; the
// runtime's own frames, the simulator's re-panic and runCatching are left
// out. Frames carry no addresses, so the text is the same on every replay
// of the run by the same build.
func describePanic(r any) string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var where []string
	for len(where) < panicFrames {
		f, more := frames.Next()
		if outerFrame(f.Function) {
			break
		}
		if keepFrame(f.Function) {
			file := f.File[strings.LastIndexByte(f.File, '/')+1:]
			where = append(where, fmt.Sprintf("%s (%s:%d)", strings.TrimPrefix(f.Function, "kafkasim/"), file, f.Line))
		}
		if !more {
			break
		}
	}
	msg := strings.ReplaceAll(fmt.Sprint(r), "\n", " ")
	if len(where) == 0 {
		return msg
	}
	return msg + "; at " + strings.Join(where, " <- ")
}

// outerFrame: the simulator's event loop or the scenario's play, which
// every run passes through; the frames that say where are inside them.
func outerFrame(fn string) bool {
	return strings.HasPrefix(fn, "kafkasim/sim.(*Sim).dispatch") || fn == "kafkasim/sim.(*Sim).Run" ||
		strings.HasPrefix(fn, "kafkasim/scenarios.play")
}

// keepFrame: a frame of kafkasim's own code other than the machinery that
// caught the panic.
func keepFrame(fn string) bool {
	return strings.HasPrefix(fn, "kafkasim/") &&
		!strings.HasPrefix(fn, "kafkasim/sim.(*Sim).Run.func") &&
		!strings.HasPrefix(fn, "kafkasim/scenarios.runCatching")
}

// panicDetailPrefix starts a panic finding's detail.
const panicDetailPrefix = "the run panicked: "

// panicResult is the checkers' result for a run that panicked: one error
// finding, and no checks, since the run did not finish (what it recorded
// up to the panic would read as writes lost and reads missing).
func panicResult(panicked string) checkers.Result {
	return checkers.Result{
		Valid: checkers.ValidViolation,
		Violations: []checkers.Violation{{
			Checker: checkers.CheckerSimulation, Anomaly: checkers.Panic, Error: true,
			Promise: checkers.PromiseNoPanic,
			Detail:  panicDetailPrefix + panicked,
		}},
	}
}
