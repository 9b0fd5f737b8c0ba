package client

import (
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// wake is a client's wake timer: armed for the earliest deadline of its
// background work, it calls run again then.
type wake struct {
	id sim.TimerID
	at time.Duration
}

// arm makes sure the wake fires no later than next (model.Never: no
// deadline). A wake already armed for no later than next stays: when it
// fires, run arms it again. Moving it for every later deadline would leave
// a cancelled timer in the kernel's queue per request.
func (w *wake) arm(env *sim.Env, next time.Duration) {
	if next == model.Never || (w.id != 0 && w.at <= next) {
		return
	}
	env.Cancel(w.id)
	w.at = next
	w.id = env.After(next-env.Now(), timerWake, 0)
}

// fired notes that timer t fired, if it is this wake.
func (w *wake) fired(t sim.Timer) {
	if t.ID == w.id {
		*w = wake{}
	}
}
