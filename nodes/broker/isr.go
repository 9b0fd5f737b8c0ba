package broker

import (
	"time"

	"kafkasim/model"
)

func (b *Broker) now() time.Duration { return b.env.Now() }

// caughtUp is Kafka's ReplicaState.isCaughtUp: the follower's log end
// equals the leader's, or it reached the leader's end within the lag
// allowance.
func (fs *followerState) caughtUp(leaderLEO model.Offset, now, lagMax time.Duration) bool {
	if fs.leo == leaderLEO {
		return true
	}
	caughtUp, _, _ := fs.fetchTimes()
	return now-caughtUp <= lagMax
}

// updateFetchState records a follower fetch at offset off
// (Replica.updateFetchState): the follower is caught up to what the
// leader had at its previous fetch if it now asks from there.
func (fs *followerState) updateFetchState(off, leaderLEO model.Offset, now time.Duration, brokerEpoch model.Epoch) {
	fs.freeze()
	if off >= leaderLEO {
		fs.lastCaughtUpTime = max(fs.lastCaughtUpTime, now)
	} else if fs.lastFetchLeaderLEO >= 0 && off >= fs.lastFetchLeaderLEO {
		fs.lastCaughtUpTime = max(fs.lastCaughtUpTime, fs.lastFetchTime)
	}
	fs.leo = off
	fs.lastFetchLeaderLEO = leaderLEO
	fs.lastFetchTime = now
	fs.brokerEpoch = brokerEpoch
}

// maximalISR is the ISR the high watermark must wait for: the committed
// ISR plus any replica a pending expansion adds. A pending shrink does
// not count until the controller commits it (Kafka's maximalIsr).
func (p *partition) maximalISR() []model.BrokerID {
	if p.alter == nil {
		return p.isr
	}
	out := append([]model.BrokerID(nil), p.isr...)
	for _, r := range p.alter.newISR {
		if !containsBroker(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// maybeIncrementHW recomputes a leader's high watermark
// (Partition.maybeIncrementLeaderHW): the minimum log end over the leader
// and the maximal ISR, also waiting for a caught-up replica about to join.
// It never moves back, and does not move while the ISR is below the
// effective min.insync.replicas.
func (b *Broker) maybeIncrementHW(p *partition) {
	// The high watermark is at most the log end, so one already there has
	// nowhere to go: the answer for every idle partition of every follower
	// fetch (a follower fetches all it follows on this leader, with
	// consumer groups the fifty partitions of the offsets topic among
	// them), asked before anything else. Nothing below has another effect
	// when the high watermark does not move.
	leo := p.log.LEO()
	if !p.isLeader || p.hw >= leo {
		return
	}
	// Since Kafka 3.7 (KAFKA-15583) the high watermark stays put while the
	// ISR is below the effective min ISR, with ELR on or off
	// (Partition.maybeIncrementLeaderHW asks isUnderMinIsr first): an
	// acks=1 write taken then is not committed until the ISR recovers.
	// Kafka 3.6 has no such check: high.watermark.freeze.below.min.isr
	// (kafka.version=3.6 turns it off) brings that behaviour back.
	kc := &b.cfg.Kafka // not a copy of the whole configuration on every fetch
	if kc.Broker.HighWatermarkFreezeBelowMinISR && p.underMinISR() {
		return
	}
	hw := leo
	maximal := p.maximalISR()
	now := b.now()
	// The followers that are still replicas, walked in the followers'
	// order rather than looked up replica by replica: hw is a minimum,
	// which no order changes.
	for _, fs := range p.followers {
		// Only a follower behind hw can hold it back; whether it is about
		// to join (caught up and eligible, a map lookup) is asked last.
		if fs.leo >= hw || !containsBroker(p.replicas, fs.id) {
			continue
		}
		if containsBroker(maximal, fs.id) || (fs.caughtUp(leo, now, kc.Broker.ReplicaLagTimeMax) && b.isrEligible(fs)) {
			hw = fs.leo
		}
	}
	if hw > p.hw {
		p.hw = hw
		if o := b.cfg.Observer; o != nil {
			o.LeaderHighWatermark(b.cfg.ID, p.tp, p.leaderEpoch, hw)
		}
		b.completeProduces(p)
		b.wakeFetches(p)
		b.completeCoordinatorWrites(p)
		b.completeTxnWrites(p)
		b.checkMarkerWaits()
		b.observeOffsetsPartition(p)
	}
}

// maybeShrinkISRs runs every replica.lag.time.max.ms/2 (Kafka's
// isr-expiration task): a leader asks the controller to drop followers
// that have not caught up within the lag allowance.
func (b *Broker) maybeShrinkISRs() {
	now := b.now()
	lag := b.cfg.Kafka.Broker.ReplicaLagTimeMax
	for _, tp := range b.tps {
		p := b.part(tp)
		if !p.isLeader || p.alter != nil {
			continue
		}
		leo := p.log.LEO()
		var keep []model.BrokerID
		shrink := false
		for _, r := range p.isr {
			fs := p.follower(r)
			if r != b.cfg.ID && fs != nil && !fs.caughtUp(leo, now, lag) {
				shrink = true
				continue
			}
			keep = append(keep, r)
		}
		if shrink {
			b.env.Trace("isr-shrink", tp.String()+" "+brokerList(p.isr)+"->"+brokerList(keep))
			b.alterISR(p, keep)
		}
	}
}

// maybeExpandISR runs after a follower fetch: a follower outside the ISR
// rejoins once it has reached the high watermark and the start of the
// leader's epoch, and is eligible (Partition.maybeExpandIsr).
func (b *Broker) maybeExpandISR(p *partition, r model.BrokerID) {
	if p.alter != nil || containsBroker(p.isr, r) {
		return
	}
	fs := p.follower(r)
	if fs == nil || !b.isrEligible(fs) || fs.leo < p.hw || fs.leo < p.epochStartOffset {
		return
	}
	newISR := append(append([]model.BrokerID(nil), p.isr...), r)
	sortBrokers(newISR)
	b.env.Trace("isr-expand", p.tp.String()+" "+brokerList(p.isr)+"->"+brokerList(newISR)+" leo="+itoa(int64(fs.leo))+" hw="+itoa(int64(p.hw))+" start="+itoa(int64(p.epochStartOffset))+" myleo="+itoa(int64(p.log.LEO())))
	b.alterISR(p, newISR)
}
