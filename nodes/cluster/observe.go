package cluster

import (
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// Observations are what the brokers did that the judges check after the
// run: who took leadership under which epoch, and how leaders moved their
// high watermarks, stamped with the true virtual time.
type Observations struct {
	Leaders        []LeaderObservation
	HighWatermarks []HWObservation
	ISRs           []ISRObservation
	// Quorum is what the metadata quorum's nodes reported (quorum.go).
	Quorum QuorumObservations
}

// ISRObservation: at Time, Leader, leading TP under Epoch, applied ISR.
type ISRObservation struct {
	Time   time.Duration
	TP     model.TopicPartition
	Leader model.BrokerID
	Epoch  model.Epoch
	ISR    []model.BrokerID
}

// LeaderObservation: at Time, Leader began leading TP under Epoch.
type LeaderObservation struct {
	Time   time.Duration
	TP     model.TopicPartition
	Epoch  model.Epoch
	Leader model.BrokerID
}

// HWObservation: at Time, Broker, leading TP under Epoch, had high
// watermark HW.
type HWObservation struct {
	Time   time.Duration
	TP     model.TopicPartition
	Broker model.BrokerID
	Epoch  model.Epoch
	HW     model.Offset
}

// observer implements broker.Observer for every broker of a cluster.
type observer struct {
	s   *sim.Sim
	obs *Observations
}

func (o observer) BecameLeader(b model.BrokerID, tp model.TopicPartition, epoch model.Epoch) {
	o.obs.Leaders = append(o.obs.Leaders, LeaderObservation{Time: o.s.Now(), TP: tp, Epoch: epoch, Leader: b})
}

func (o observer) LeaderHighWatermark(b model.BrokerID, tp model.TopicPartition, epoch model.Epoch, hw model.Offset) {
	o.obs.HighWatermarks = append(o.obs.HighWatermarks, HWObservation{Time: o.s.Now(), TP: tp, Broker: b, Epoch: epoch, HW: hw})
}

func (o observer) LeaderISR(b model.BrokerID, tp model.TopicPartition, epoch model.Epoch, isr []model.BrokerID) {
	o.obs.ISRs = append(o.obs.ISRs, ISRObservation{Time: o.s.Now(), TP: tp, Leader: b, Epoch: epoch, ISR: append([]model.BrokerID(nil), isr...)})
}
