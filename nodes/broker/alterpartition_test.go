package broker

import (
	"testing"
	"time"

	"kafkasim/model"
)

// A leader whose ISR expansion got no answer keeps the new member in its
// maximal ISR, because the controller may have committed it (here it did):
// an acks=all write is not acknowledged while that member lacks it, however
// long the answer takes, and the change is sent again. The nearby fine
// case: a controller that answers INELIGIBLE_REPLICA applied nothing, so
// the leader goes back to its committed ISR and the write is committed by
// the members it has (Partition.handleAlterPartitionError), once the
// crashed broker is no longer a caught-up replica about to join
// (replica.lag.time.max.ms, 30 s).
func TestAPendingISRExpansionHoldsTheHighWatermarkUntilSettled(t *testing.T) {
	for _, reject := range []model.ErrorCode{model.NoError, model.IneligibleReplica} {
		r := newRig(t, testConfig())
		// Broker 2 starts outside the ISR; once it fetches, the leader
		// asks to add it.
		r.ctl.state.ISR = []model.BrokerID{1, 3}
		r.ctl.silent = reject == model.NoError
		r.ctl.reject = reject
		r.s.At(time.Second, "crash b2", func() { r.s.Crash(2) })
		r.produce(2*time.Second, 1, model.AcksAll, "v0")
		r.s.Run(40 * time.Second)
		acked := len(*r.answers) == 1 && (*r.answers)[0].Error == model.NoError
		switch reject {
		case model.NoError:
			if acked || r.replica(1).HW != 0 {
				t.Fatalf("unanswered expansion: answers %v, leader HW %d; want no ack and HW 0: the controller counts b2, which has nothing, in the ISR %v", *r.answers, r.replica(1).HW, r.ctl.silentISR)
			}
			if r.ctl.alters < 3 {
				t.Fatalf("the unanswered change was sent %d times in 40 s, want it resent after each %v timeout", r.ctl.alters, controllerTimeout)
			}
		default:
			if !acked || r.replica(1).HW != 1 {
				t.Fatalf("expansion refused with %v: answers %v, leader HW %d ISR %v alters %d; want the write committed by b1 and b3", reject, *r.answers, r.replica(1).HW, r.replica(1).ISR, r.ctl.alters)
			}
		}
	}
}
