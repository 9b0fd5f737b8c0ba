package broker

import (
	"time"

	"kafkasim/model"
)

// register sends a BrokerRegistration and arms a retry in case the answer
// never comes (the controller is down or cut off).
func (b *Broker) register() {
	b.registered = false
	b.acting = false
	b.registerCorr = b.nextCorr()
	sent := b.sendController(model.BrokerRegistrationRequest{
		CorrelationID: b.registerCorr,
		BrokerID:      b.cfg.ID,
		Incarnation:   b.incarnation,
		CleanShutdown: b.cleanStart,
		Rack:          b.cfg.Rack,
	})
	if !sent {
		// No active controller known yet: the observer's news of one
		// registers at once (controllerChanged); this is the fallback.
		b.env.After(controllerRediscover, timerRegister, int64(b.registerCorr))
		return
	}
	b.env.After(controllerTimeout, timerRegister, int64(b.registerCorr))
}

// controllerRediscover is how soon a broker that knows no active
// controller tries again.
const controllerRediscover = 100 * time.Millisecond

// handleRegistrationResponse takes the controller's answer to the broker's
// registration: the broker epoch, or a retry after the fetch backoff.
func (b *Broker) handleRegistrationResponse(_ model.BrokerID, m model.BrokerRegistrationResponse) {
	if m.CorrelationID != b.registerCorr || b.registered {
		return
	}
	if m.Error != model.NoError {
		b.env.After(b.cfg.Kafka.Broker.ReplicaFetchBackoff, timerRegister, int64(b.registerCorr))
		return
	}
	b.registered = true
	b.brokerEpoch = m.BrokerEpoch
	b.env.Trace("registered", "")
	b.maybeStartActing()
	b.heartbeat()
}

// maybeStartActing lets the broker act on the metadata it has cached once
// it is registered and has applied metadata up to its own registration
// (the broker epoch is that record's offset). Before that, what the
// metadata says about leadership may describe its previous incarnation:
// a broker restarted before the controller noticed would otherwise take
// back the leadership it had, with the high watermark of its checkpoint.
// KRaft brokers likewise act on partitions only once caught up.
func (b *Broker) maybeStartActing() {
	if b.acting || !b.registered || b.metadataOffset < int64(b.brokerEpoch) {
		return
	}
	b.acting = true
	b.serving = true
	for _, tp := range b.metaTPs {
		b.applyPartitionState(b.meta[tp])
	}
}

// heartbeat tells the controller the broker is alive and how far it has
// applied metadata; the controller answers whether it is fenced, and a
// broker that is behind gets a metadata snapshot.
func (b *Broker) heartbeat() {
	if !b.registered {
		return
	}
	b.sendHeartbeat()
	b.env.After(b.cfg.Kafka.Controller.BrokerHeartbeatInterval, timerHeartbeat, 0)
}

// sendHeartbeat sends one heartbeat, outside the periodic schedule.
func (b *Broker) sendHeartbeat() {
	b.heartbeatCorr = b.nextCorr()
	b.heartbeatOut = b.sendController(model.BrokerHeartbeatRequest{
		CorrelationID:  b.heartbeatCorr,
		BrokerID:       b.cfg.ID,
		BrokerEpoch:    b.brokerEpoch,
		MetadataOffset: b.metadataOffset,
		WantShutdown:   b.stopping,
	})
}

// handleHeartbeatResponse takes the controller's answer to a heartbeat:
// fenced or not, whether a stopping broker may shut down, or that the
// controller no longer knows this incarnation.
func (b *Broker) handleHeartbeatResponse(_ model.BrokerID, m model.BrokerHeartbeatResponse) {
	if m.CorrelationID == b.heartbeatCorr {
		b.heartbeatOut = false
	}
	switch m.Error {
	case model.NoError:
		b.fenced = m.Fenced
		b.running = b.running || !m.Fenced
		if b.stopping {
			b.shutdownAnswered(m.ShouldShutdown)
		}
	case model.StaleBrokerEpoch, model.BrokerIDNotRegistered:
		if b.stopping {
			// BrokerLifecycleManager never registers again: it retries
			// until the controller lets it go or its wait runs out.
			return
		}
		// The controller no longer knows this incarnation (it fenced and
		// forgot it, or lost it): register again.
		if b.registered {
			b.register()
		}
	}
}

// handleMetadataUpdate applies one push from the controller, once and in
// order: an update at or below the applied offset is stale, and a delta
// that skips ahead is ignored (the next heartbeat shows the gap and the
// controller answers with a snapshot).
func (b *Broker) handleMetadataUpdate(_ model.BrokerID, m model.MetadataUpdate) {
	if m.ControllerEpoch < b.controllerEpoch {
		return
	}
	if !m.Snapshot && m.MetadataOffset <= b.metadataOffset {
		return
	}
	if m.Snapshot && m.MetadataOffset < b.metadataOffset && m.ControllerEpoch == b.controllerEpoch {
		return
	}
	b.controllerEpoch = m.ControllerEpoch
	b.metadataOffset = m.MetadataOffset
	b.live = map[model.BrokerID]bool{}
	b.liveEpochs = map[model.BrokerID]model.Epoch{}
	b.brokers = b.brokers[:0]
	for _, id := range m.LiveBrokers {
		b.live[id] = true
		b.liveEpochs[id] = model.NoEpoch // a push carries no broker epochs
		b.brokers = append(b.brokers, id)
	}
	b.brokers = append(b.brokers, m.FencedBrokers...)
	sortBrokers(b.brokers)
	for _, ps := range m.Partitions {
		b.applyPartitionState(ps)
	}
	b.maybeStartActing()
}

// applyPartitionState records the controller's view of one partition and,
// if this broker hosts it, makes it leader or follower as that view says.
func (b *Broker) applyPartitionState(ps model.PartitionState) {
	if _, known := b.meta[ps.TP]; !known {
		b.metaTPs = insertSorted(b.metaTPs, ps.TP)
		b.topicsOf[ps.TP.Topic] = insertSorted(b.topicsOf[ps.TP.Topic], ps.TP)
	}
	b.meta[ps.TP] = ps
	if !b.acting {
		return
	}
	if !containsBroker(ps.Replicas, b.cfg.ID) {
		// A reassignment removed this replica: it stops leading or
		// fetching and keeps its log, idle (Kafka deletes it).
		if p := b.part(ps.TP); p != nil {
			gone := ps
			gone.Leader = model.NoBroker
			b.makeFollower(p, gone)
		}
		return
	}
	p := b.part(ps.TP)
	if p == nil {
		if p = b.openPartition(ps.TP); p == nil {
			return // a stray folder failed the replica (stray.go)
		}
	}
	switch {
	case ps.Leader == b.cfg.ID:
		b.makeLeader(p, ps)
	default:
		b.makeFollower(p, ps)
	}
}

func containsBroker(list []model.BrokerID, id model.BrokerID) bool {
	for _, x := range list {
		if x == id {
			return true
		}
	}
	return false
}

func sortBrokers(list []model.BrokerID) {
	for i := 1; i < len(list); i++ {
		for j := i; j > 0 && list[j] < list[j-1]; j-- {
			list[j], list[j-1] = list[j-1], list[j]
		}
	}
}

// Registration is the broker epoch this incarnation registered with; ok
// is false until the controller has accepted its registration. A
// controller may still hold a previous incarnation's registration, which
// it keeps (refusing the new one with DUPLICATE_BROKER_REGISTRATION) until
// that session expires: only the epochs matching says the broker the
// controller counts is this one.
func (b *Broker) Registration() (epoch model.Epoch, ok bool) {
	return b.brokerEpoch, b.registered
}
