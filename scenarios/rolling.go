package scenarios

import (
	"fmt"
	"slices"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/nodes/controller"
	"kafkasim/sim"
)

// The world runs a schedule's rolling-restart (faults/rolling.go) as an
// operator's upgrade script does: each member broker in id order, rounds
// times, stopped cleanly (a controlled shutdown), left down rollingDown
// once it is down, restarted, and waited for until the controller has it
// registered (its running incarnation), unfenced and in the ISR of every
// partition it hosts; only then does the next broker stop. The script
// looks every rollingPoll, goes on through the liveness phase (which
// waits for it to finish), and gives up on a broker that is not back
// within rollingWaitMax of its restart.

const (
	rollingPoll    = 500 * time.Millisecond
	rollingDown    = 5 * time.Second
	rollingWaitMax = 2 * time.Minute
)

// rollingStep is where a rolling restart stands with its current broker.
type rollingStep uint8

const (
	rollStop   rollingStep = iota // stop it
	rollDown                      // stopping: wait until it is down
	rollRest                      // down: wait rollingDown, then restart it
	rollRejoin                    // restarted: wait until it is back in the ISR
)

// rollingScript is one rolling restart script.
type rollingScript struct {
	order    []model.BrokerID // the brokers in turn, every round
	i        int
	step     rollingStep
	since    time.Duration // when the current step began (stop, down, restart)
	stopped  time.Duration // when the current broker was stopped
	done     bool
	progress func(string)
}

var _ faults.RollingOperator = world{}

// RollingRestart starts a rolling restart of the member brokers. It
// answers with the first broker it stops.
func (w world) RollingRestart(rounds int, progress func(string)) (model.BrokerID, model.ErrorCode) {
	s := w.s
	r := &rollingScript{progress: progress}
	for range rounds {
		r.order = append(r.order, s.Brokers...)
	}
	s.rollings = append(s.rollings, r)
	s.Sim.At(s.Sim.Now(), "rolling-restart", func() { s.rollingLook(r) })
	return r.order[0], model.NoError
}

// rollingLook is one look of the script; it schedules the next.
func (s *Scripted) rollingLook(r *rollingScript) {
	s.rollingStep(r)
	if !r.done {
		s.Sim.At(s.Sim.Now()+rollingPoll, "rolling-restart", func() { s.rollingLook(r) })
	}
}

// rollingStep does what the current broker's step calls for.
func (s *Scripted) rollingStep(r *rollingScript) {
	id := r.order[r.i]
	nid, now := sim.NodeID(id), s.Sim.Now()
	switch r.step {
	case rollStop:
		if !slices.Contains(s.Brokers, id) {
			r.progress(id.String() + " skipped: no longer a member")
			r.next()
			return
		}
		r.stopped, r.since, r.step = now, now, rollDown
		s.Sim.Shutdown(nid) // a broker a fault has down already stays so
	case rollDown:
		if !s.Sim.IsUp(nid) && !s.Sim.IsStopping(nid) {
			r.since, r.step = now, rollRest
		}
	case rollRest:
		if now-r.since >= rollingDown {
			if !s.Sim.IsUp(nid) {
				s.Sim.Restart(nid)
			}
			r.since, r.step = now, rollRejoin
		}
	case rollRejoin:
		if n, ok := s.backInISR(id); ok {
			r.progress(fmt.Sprintf("%v back in the ISR of its %d partitions, %v after its stop", id, n, now-r.stopped))
			r.next()
		} else if now-r.since > rollingWaitMax {
			r.progress(fmt.Sprintf("gave up: %v not back in the ISR %v after its restart", id, rollingWaitMax))
			r.done = true
		}
	}
}

// next moves the script to the next broker, or ends it.
func (r *rollingScript) next() {
	r.i++
	r.step = rollStop
	if r.i == len(r.order) {
		r.done = true
		r.progress("rolling restart done")
	}
}

// backInISR reports whether the active controller has id's running
// incarnation registered and unfenced and id in the ISR of every
// partition whose replicas include it, and how many those are.
func (s *Scripted) backInISR(id model.BrokerID) (int, bool) {
	c, b := s.ControllerNode(), s.Broker(id)
	if c == nil || b == nil {
		return 0, false
	}
	epoch, registered := b.Registration()
	i := slices.IndexFunc(c.Brokers(), func(st controller.BrokerState) bool { return st.ID == id })
	if !registered || i < 0 || c.Brokers()[i].Fenced || c.Brokers()[i].Epoch != epoch {
		return 0, false
	}
	n := 0
	for _, ps := range c.Partitions() {
		if !slices.Contains(ps.Replicas, id) {
			continue
		}
		if !slices.Contains(ps.ISR, id) {
			return 0, false
		}
		n++
	}
	return n, true
}

// rollingStuck is the liveness phase's look at the rolling restarts: one
// started before the heal must finish within the bound; "" when every
// one has.
func (s *Scripted) rollingStuck() string {
	for _, r := range s.rollings {
		if !r.done {
			return fmt.Sprintf("rolling restart not finished: %v of %v brokers done, %v at step %d", r.i, len(r.order), r.order[r.i], r.step)
		}
	}
	return ""
}
