package broker

import (
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// A leader changes its partition's ISR by asking the controller
// (AlterPartition). Until the controller's answer or newer metadata settles
// the request, the leader cannot know whether the change was applied, so
// it keeps the change pending, as Kafka's Partition keeps a
// PendingPartitionChange: the high watermark waits for the maximal ISR
// (the committed ISR plus any replica the change adds, see maximalISR), and
// no other change is proposed. Dropping a pending expansion on a timeout or
// a broken connection would be unsafe: the controller may have committed
// the new member, the high watermark would then move past records that
// member lacks, and the member could be elected leader without them
// (chaos seed 91000354, the regression
// "expansion-lost-in-flight-keeps-the-maximal-isr").
//
// What settles a pending change, following Partition.submitAlterPartition,
// handleAlterPartitionUpdate and handleAlterPartitionError:
//   - success that matches our leader and partition epochs: the new ISR is
//     committed;
//   - INELIGIBLE_REPLICA: the controller states it applied nothing, so the
//     last committed ISR stands again;
//   - UNKNOWN_TOPIC_OR_PARTITION, FENCED_LEADER_EPOCH,
//     INVALID_UPDATE_VERSION, INVALID_REQUEST, NEW_LEADER_ELECTED, or a
//     success for another epoch: the request is not retried, and the change
//     stays pending until the metadata log brings the partition's newer
//     state (applyPartitionState, a new leader epoch);
//   - any other error (NOT_CONTROLLER, STALE_BROKER_EPOCH), no answer
//     within controllerTimeout, or a lost controller connection: the same
//     change is sent again, as Kafka's AlterPartitionManager re-queues it
//     and its controller channel resends it to the active controller.

// alterRetryBackoff is the pause before a pending change is sent again
// after an error or a broken controller connection (retry.backoff.ms's
// default, which the broker's controller channel also uses).
const alterRetryBackoff = 100 * time.Millisecond

// alterState is a partition's pending ISR change: one at a time.
type alterState struct {
	corr   int32
	newISR []model.BrokerID
	// members are the proposed ISR with the broker epochs the leader saw
	// (KIP-903); a resend carries them unchanged.
	members []model.ISRMember
	// inFlight: a request is out (timer is its timeout) or about to be
	// resent (timer is the backoff). Neither inFlight nor awaitMetadata:
	// the change waits for a controller to become known.
	inFlight bool
	// awaitMetadata: the controller's answer says only newer metadata
	// settles the change; it is not sent again.
	awaitMetadata bool
	timer         sim.TimerID
}

// alterISR proposes a new ISR to the controller; one change at a time.
func (b *Broker) alterISR(p *partition, newISR []model.BrokerID) {
	if b.controller() == model.NoBroker {
		return // nothing sent, nothing pending: the next check asks again
	}
	members := make([]model.ISRMember, 0, len(newISR))
	for _, r := range newISR {
		e := b.brokerEpoch
		if r != b.cfg.ID {
			if fs := p.follower(r); fs != nil {
				_, _, e = fs.fetchTimes()
			}
		}
		members = append(members, model.ISRMember{ID: r, BrokerEpoch: e})
	}
	p.alter = &alterState{newISR: newISR, members: members}
	b.sendAlter(p)
}

// sendAlter sends p's pending change under a new correlation id, so that an
// answer to an earlier attempt is told apart, and arms its timeout. With no
// controller known it waits for one (controllerChanged resends).
func (b *Broker) sendAlter(p *partition) {
	a := p.alter
	if b.controller() == model.NoBroker {
		a.inFlight = false
		return
	}
	a.corr = b.nextCorr()
	a.inFlight = true
	a.timer = b.env.After(controllerTimeout, timerAlterTimeout, int64(a.corr))
	b.sendController(model.AlterPartitionRequest{
		CorrelationID:  a.corr,
		BrokerID:       b.cfg.ID,
		BrokerEpoch:    b.brokerEpoch,
		TP:             p.tp,
		LeaderEpoch:    p.leaderEpoch,
		PartitionEpoch: p.partitionEpoch,
		NewISR:         a.members,
	})
}

// retryAlter sends p's pending change again after alterRetryBackoff. The
// correlation id stays until then, so a late answer to the last attempt
// still settles the change.
func (b *Broker) retryAlter(p *partition) {
	a := p.alter
	b.env.Cancel(a.timer)
	a.inFlight = true
	a.timer = b.env.After(alterRetryBackoff, timerAlterTimeout, int64(a.corr))
}

// handleAlterPartitionResponse settles, retries or keeps waiting on the
// partition's pending change, as the answer says (see above).
func (b *Broker) handleAlterPartitionResponse(_ model.BrokerID, m model.AlterPartitionResponse) {
	p := b.part(m.Partition.TP)
	if p == nil || p.alter == nil || !p.alter.inFlight || p.alter.corr != m.CorrelationID {
		return
	}
	b.env.Cancel(p.alter.timer)
	switch m.Error {
	case model.NoError:
		if m.Partition.LeaderEpoch != p.leaderEpoch || m.Partition.PartitionEpoch < p.partitionEpoch {
			b.awaitMetadata(p) // an answer for another epoch
			return
		}
		p.alter = nil
		// The committed state also arrives through the metadata log;
		// applying it here first lets the high watermark move without
		// waiting.
		b.applyPartitionState(m.Partition)
	case model.IneligibleReplica:
		p.alter = nil
	case model.UnknownTopicOrPartition, model.FencedLeaderEpoch, model.InvalidUpdateVersion, model.InvalidRequest, model.NewLeaderElected:
		b.awaitMetadata(p)
		return
	default:
		b.retryAlter(p)
		return
	}
	b.maybeIncrementHW(p)
}

// awaitMetadata stops sending p's pending change: only newer metadata
// settles it.
func (b *Broker) awaitMetadata(p *partition) {
	p.alter.inFlight, p.alter.awaitMetadata = false, true
}

// alterPartitionTimeout fires when an attempt got no answer in time, or when
// a backoff ends: either way the pending change is sent again.
func (b *Broker) alterPartitionTimeout(corr int64) {
	for _, tp := range b.tps {
		p := b.part(tp)
		if p.alter != nil && p.alter.inFlight && int64(p.alter.corr) == corr {
			b.sendAlter(p)
		}
	}
}

// retryAlterPartitions sends every pending change again, after
// alterRetryBackoff, once the controller connection broke or the active
// controller changed: an attempt in flight is lost with the connection, and
// a change that waited for a controller may now have one. A change waiting
// for the metadata log keeps waiting.
func (b *Broker) retryAlterPartitions() {
	for _, tp := range b.tps {
		if p := b.part(tp); p.alter != nil && !p.alter.awaitMetadata {
			b.retryAlter(p)
		}
	}
}
