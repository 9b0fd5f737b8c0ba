package model

import "strings"

// The controller protocol (KRaft): brokers register and heartbeat to the
// controller, partition leaders ask it to change the ISR, and it tells the
// brokers what changed. In Kafka the last of these is the metadata log that
// brokers replay; here it is pushed as MetadataUpdate.

// BrokerRegistrationRequest is the first thing a (re)started broker sends.
// The answer's broker epoch names this incarnation: requests carrying an
// older one are from a broker that has restarted since, and are refused.
type BrokerRegistrationRequest struct {
	CorrelationID int32
	BrokerID      BrokerID
	// Incarnation distinguishes two starts of one broker (Kafka's
	// incarnation id, a UUID drawn at start).
	Incarnation uint64
	// CleanShutdown says the broker found its clean-shutdown marker on
	// disk. Without it (KIP-966) its log may have lost an unflushed tail,
	// so the controller removes it from every ISR and ELR.
	CleanShutdown bool
	// Rack is the broker's broker.rack, "" for none (the field of Kafka's
	// BrokerRegistrationRequest), which rack-aware placement reads.
	Rack string
}

// String reads "BrokerRegistration b1 inc=3 clean corr=1" (or "unclean"),
// with " rack=r1" after the broker when it has one.
func (m BrokerRegistrationRequest) String() string {
	var b strings.Builder
	b.WriteString("BrokerRegistration ")
	b.WriteString(m.BrokerID.String())
	if m.Rack != "" {
		kv(&b, "rack", m.Rack)
	}
	kv(&b, "inc", itoa(int64(m.Incarnation)))
	if m.CleanShutdown {
		word(&b, "clean")
	} else {
		word(&b, "unclean")
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field; a broker without a rack digests as it did
// before racks existed, so rackless runs keep their trace hashes.
func (m BrokerRegistrationRequest) Digest() uint64 {
	h := request(apiBrokerRegistration).Int32(m.CorrelationID).Broker(m.BrokerID).
		Uint64(m.Incarnation).Bool(m.CleanShutdown)
	if m.Rack != "" {
		h = h.Str(m.Rack)
	}
	return h.Sum()
}

// BrokerRegistrationResponse gives the broker its epoch. A registered
// broker starts fenced; heartbeats unfence it once it has caught up.
type BrokerRegistrationResponse struct {
	CorrelationID int32
	Error         ErrorCode
	BrokerEpoch   Epoch
}

// String reads "BrokerRegistrationResponse NONE brokerEpoch=12 corr=1".
func (m BrokerRegistrationResponse) String() string {
	var b strings.Builder
	b.WriteString("BrokerRegistrationResponse")
	errWord(&b, m.Error)
	kvInt(&b, "brokerEpoch", int64(m.BrokerEpoch))
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m BrokerRegistrationResponse) Digest() uint64 {
	return response(apiBrokerRegistration).Int32(m.CorrelationID).Error(m.Error).
		Epoch(m.BrokerEpoch).Sum()
}

// BrokerHeartbeatRequest keeps a broker's session alive
// (broker.heartbeat.interval.ms); a broker silent for
// broker.session.timeout.ms is fenced.
type BrokerHeartbeatRequest struct {
	CorrelationID int32
	BrokerID      BrokerID
	BrokerEpoch   Epoch
	// MetadataOffset is the last metadata update the broker applied; the
	// controller unfences a broker only once it has caught up.
	MetadataOffset int64
	// WantFence asks to stay fenced; WantShutdown announces a controlled
	// shutdown, so that leadership moves away before the broker stops.
	WantFence    bool
	WantShutdown bool
}

// String reads "BrokerHeartbeat b1 brokerEpoch=12 metadata=40 corr=2",
// with "wantFence" and "wantShutdown" when set.
func (m BrokerHeartbeatRequest) String() string {
	var b strings.Builder
	b.WriteString("BrokerHeartbeat ")
	b.WriteString(m.BrokerID.String())
	kvInt(&b, "brokerEpoch", int64(m.BrokerEpoch))
	kvInt(&b, "metadata", m.MetadataOffset)
	if m.WantFence {
		word(&b, "wantFence")
	}
	if m.WantShutdown {
		word(&b, "wantShutdown")
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m BrokerHeartbeatRequest) Digest() uint64 {
	return request(apiBrokerHeartbeat).Int32(m.CorrelationID).Broker(m.BrokerID).Epoch(m.BrokerEpoch).
		Int64(m.MetadataOffset).Bool(m.WantFence).Bool(m.WantShutdown).Sum()
}

// BrokerHeartbeatResponse tells the broker its state. STALE_BROKER_EPOCH
// means the broker must register again.
type BrokerHeartbeatResponse struct {
	CorrelationID int32
	Error         ErrorCode
	// CaughtUp says the broker has applied metadata up to the controller's
	// registration of it.
	CaughtUp bool
	// Fenced brokers lead nothing and are in no ISR.
	Fenced bool
	// ShouldShutdown answers WantShutdown once leadership has moved.
	ShouldShutdown bool
}

// String reads "BrokerHeartbeatResponse NONE fenced caughtUp corr=2" (or
// "unfenced"; "shutdown" when ShouldShutdown).
func (m BrokerHeartbeatResponse) String() string {
	var b strings.Builder
	b.WriteString("BrokerHeartbeatResponse")
	errWord(&b, m.Error)
	if m.Fenced {
		word(&b, "fenced")
	} else {
		word(&b, "unfenced")
	}
	if m.CaughtUp {
		word(&b, "caughtUp")
	}
	if m.ShouldShutdown {
		word(&b, "shutdown")
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m BrokerHeartbeatResponse) Digest() uint64 {
	return response(apiBrokerHeartbeat).Int32(m.CorrelationID).Error(m.Error).
		Bool(m.CaughtUp).Bool(m.Fenced).Bool(m.ShouldShutdown).Sum()
}

// ISRMember is a replica proposed for the ISR with the broker epoch the
// leader saw in its fetches (KIP-903): if the broker has restarted since,
// the epochs differ and the controller refuses it with
// INELIGIBLE_REPLICA, because the restart may have cost it records.
type ISRMember struct {
	ID          BrokerID
	BrokerEpoch Epoch
}

// AlterPartitionRequest is a leader's request to change a partition's ISR.
// It takes effect only when the controller accepts it: the leader keeps the
// old ISR (and, while expanding, counts the larger one for the high
// watermark) until the answer. Stale leader or partition epochs are
// refused (KIP-497), so a deposed leader cannot shrink the ISR.
type AlterPartitionRequest struct {
	CorrelationID int32
	// BrokerID and BrokerEpoch identify the leader.
	BrokerID       BrokerID
	BrokerEpoch    Epoch
	TP             TopicPartition
	LeaderEpoch    Epoch
	PartitionEpoch Epoch
	NewISR         []ISRMember
}

// String reads "AlterPartition t/0 leader=b1 brokerEpoch=12 epoch=3 pe=7
// isr=[b1:12 b2:5] corr=4".
func (m AlterPartitionRequest) String() string {
	var b strings.Builder
	b.WriteString("AlterPartition ")
	b.WriteString(m.TP.String())
	kv(&b, "leader", m.BrokerID.String())
	kvInt(&b, "brokerEpoch", int64(m.BrokerEpoch))
	kvInt(&b, "epoch", int64(m.LeaderEpoch))
	kvInt(&b, "pe", int64(m.PartitionEpoch))
	b.WriteString(" isr=[")
	for i, r := range m.NewISR {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(r.ID.String())
		b.WriteByte(':')
		b.WriteString(itoa(int64(r.BrokerEpoch)))
	}
	b.WriteByte(']')
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m AlterPartitionRequest) Digest() uint64 {
	h := request(apiAlterPartition).Int32(m.CorrelationID).Broker(m.BrokerID).Epoch(m.BrokerEpoch).
		TP(m.TP).Epoch(m.LeaderEpoch).Epoch(m.PartitionEpoch).Int(len(m.NewISR))
	for _, r := range m.NewISR {
		h = h.Broker(r.ID).Epoch(r.BrokerEpoch)
	}
	return h.Sum()
}

// AlterPartitionResponse gives the partition's state after the request:
// the new one if accepted, otherwise an error (FENCED_LEADER_EPOCH,
// INVALID_UPDATE_VERSION, INELIGIBLE_REPLICA, NEW_LEADER_ELECTED, ...) and
// the controller's current state where it has one.
type AlterPartitionResponse struct {
	CorrelationID int32
	Error         ErrorCode
	Partition     PartitionState
}

// String reads "AlterPartitionResponse NONE t/0 leader=b1 epoch=3 pe=8
// replicas=[b1 b2 b3] isr=[b1 b2] elr=[] corr=4".
func (m AlterPartitionResponse) String() string {
	var b strings.Builder
	b.WriteString("AlterPartitionResponse")
	errWord(&b, m.Error)
	word(&b, m.Partition.String())
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m AlterPartitionResponse) Digest() uint64 {
	return response(apiAlterPartition).Int32(m.CorrelationID).Error(m.Error).
		partitionState(&m.Partition).Sum()
}

// MetadataUpdate is the controller's push of committed metadata to a
// broker: partition leadership and ISR changes, and which brokers are
// live. It stands for the KRaft metadata log that Kafka brokers replay:
// updates carry increasing offsets, and a broker applies each once, in
// order, ignoring any at or below the offset it has (a stale or duplicate
// delivery). A broker becomes leader or follower of a partition from these
// updates alone.
type MetadataUpdate struct {
	CorrelationID int32
	// ControllerEpoch is the controller's term; an update from an older
	// one is ignored (STALE_CONTROLLER_EPOCH in Kafka's older design).
	ControllerEpoch Epoch
	// MetadataOffset orders updates.
	MetadataOffset int64
	// Snapshot says this update is the whole state, not a delta: partitions
	// not listed no longer exist. A controller sends one to a broker that
	// has just registered.
	Snapshot bool
	// LiveBrokers and FencedBrokers are the registered brokers by state,
	// sorted.
	LiveBrokers   []BrokerID
	FencedBrokers []BrokerID
	// Partitions are the changed partitions (all of them in a snapshot),
	// sorted.
	Partitions []PartitionState
}

// String reads "MetadataUpdate off=40 live=[b1 b2] fenced=[b3] t/0
// leader=b1 ..." with "snapshot" after the offset when it is one.
func (m MetadataUpdate) String() string {
	var b strings.Builder
	b.WriteString("MetadataUpdate")
	kvInt(&b, "off", m.MetadataOffset)
	kvInt(&b, "controllerEpoch", int64(m.ControllerEpoch))
	if m.Snapshot {
		word(&b, "snapshot")
	}
	kv(&b, "live", brokerList(m.LiveBrokers))
	kv(&b, "fenced", brokerList(m.FencedBrokers))
	for i := range m.Partitions {
		sep(&b, i)
		word(&b, m.Partitions[i].String())
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m MetadataUpdate) Digest() uint64 {
	return request(apiUpdateMetadata).Int32(m.CorrelationID).Epoch(m.ControllerEpoch).
		Int64(m.MetadataOffset).Bool(m.Snapshot).Brokers(m.LiveBrokers).Brokers(m.FencedBrokers).
		partitionStates(m.Partitions).Sum()
}
