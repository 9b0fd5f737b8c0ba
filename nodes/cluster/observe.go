package cluster

import (
	"iter"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// Observations are what the brokers did that the judges check after the
// run: who took leadership under which epoch, and how leaders moved their
// high watermarks, stamped with the true virtual time.
type Observations struct {
	Leaders        []LeaderObservation
	HighWatermarks HWObservations
	ISRs           []ISRObservation
	// Quorum is what the metadata quorum's nodes reported (quorum.go).
	Quorum QuorumObservations
}

// HWObservations is the list of high watermark observations, kept in
// fixed-size chunks: a leader reports every advance, several hundred a
// virtual second in a busy run, and one growing slice would be copied
// whole at every doubling (a tenth of a benchmark's time went there).
type HWObservations struct {
	chunks [][]HWObservation
	n      int
}

// hwChunk is how many observations one chunk holds.
const hwChunk = 4096

// Add appends an observation.
func (h *HWObservations) Add(o HWObservation) {
	if h.n%hwChunk == 0 {
		h.chunks = append(h.chunks, make([]HWObservation, 0, hwChunk))
	}
	c := &h.chunks[len(h.chunks)-1]
	*c = append(*c, o)
	h.n++
}

// Len is the number of observations.
func (h *HWObservations) Len() int { return h.n }

// All yields the observations in the order they were made.
func (h *HWObservations) All() iter.Seq[HWObservation] {
	return func(yield func(HWObservation) bool) {
		for _, c := range h.chunks {
			for _, o := range c {
				if !yield(o) {
					return
				}
			}
		}
	}
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
	o.obs.HighWatermarks.Add(HWObservation{Time: o.s.Now(), TP: tp, Broker: b, Epoch: epoch, HW: hw})
}

func (o observer) LeaderISR(b model.BrokerID, tp model.TopicPartition, epoch model.Epoch, isr []model.BrokerID) {
	o.obs.ISRs = append(o.obs.ISRs, ISRObservation{Time: o.s.Now(), TP: tp, Leader: b, Epoch: epoch, ISR: append([]model.BrokerID(nil), isr...)})
}
