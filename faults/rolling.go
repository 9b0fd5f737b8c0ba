package faults

import (
	"fmt"

	"kafkasim/model"
)

// A rolling restart as an operator's script runs it, written in a
// schedule as one line:
//
//	at 5s rolling-restart 2    # every broker in turn, twice round
//
// Each member broker in id order, rounds times: a clean stop (a
// controlled shutdown), 5 s down, a restart, and then a wait until the
// broker is back in the ISR of every partition it hosts, before the next
// broker stops (what an operator's script checks, for example with
// kafka-topics.sh --under-replicated-partitions, rather than sleeping a
// fixed time). The world runs it (RollingOperator); each broker's return
// is a line of the fault log.

// rollingRoundsMax bounds a rolling restart's rounds: a limit on everything.
const rollingRoundsMax = 10

// RollingOperator is a World that runs rolling restarts. RollingRestart
// starts the script and returns the node that answered (NoBroker when it
// cannot start) and its answer; the script tells the nemesis its steps
// through progress, each a line of the fault log.
type RollingOperator interface {
	RollingRestart(rounds int, progress func(step string)) (model.BrokerID, model.ErrorCode)
}

// rollingArgs reads the rounds.
func (c *cursor) rollingArgs(f *Fault) error {
	n, err := c.count("rounds")
	if err != nil {
		return err
	}
	f.Count = n
	return nil
}

// validateRolling checks a rolling restart's rounds, and that it names
// nothing else.
func (f Fault) validateRolling() error {
	if !f.Target.IsZero() || !f.Peer.IsZero() || f.Groups != nil || f.TP != (model.TopicPartition{}) || f.Replicas != nil {
		return fmt.Errorf("rolling-restart takes its rounds only, as in \"rolling-restart 2\"")
	}
	if f.Count < 1 || f.Count > rollingRoundsMax {
		return fmt.Errorf("rolling-restart %d: want 1 to %d rounds", f.Count, rollingRoundsMax)
	}
	return nil
}

// operateRolling starts a rolling restart.
func (n *Nemesis) operateRolling(a *armed) (model.BrokerID, model.ErrorCode) {
	op := n.w.(RollingOperator) // Apply refuses rolling restarts in a world without one
	f := a.f
	return op.RollingRestart(int(f.Count), func(step string) {
		n.log = append(n.log, Event{Time: n.s.Now(), Edge: EdgeAt, Fault: f, Nodes: []model.BrokerID{}, Note: step})
	})
}
