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
	// Notify, if set, is told of each leadership ("election") and each
	// ISR a leader reports ("alter-partition") as it is observed: what a
	// fault waiting for one listens to.
	Notify func(event string, tp model.TopicPartition)
}

// HWObservations is the list of high watermark observations, kept in
// fixed-size chunks of a compact form: a leader reports every advance,
// several hundred a virtual second in a busy run, and one growing slice of
// HWObservation would be copied whole at every doubling (a tenth of a
// benchmark's time went there) and hold a topic name per entry.
type HWObservations struct {
	chunks [][]hwRec
	n      int
	tps    []model.TopicPartition // the partitions seen, by index
	tpIdx  map[model.TopicPartition]int32
}

// hwRec is an HWObservation with its partition as an index into tps.
type hwRec struct {
	time   time.Duration
	hw     model.Offset
	tp     int32
	broker model.BrokerID
	epoch  model.Epoch
}

// hwChunk is how many observations one chunk holds.
const hwChunk = 4096

// Add appends an observation.
func (h *HWObservations) Add(o HWObservation) {
	if h.n%hwChunk == 0 {
		h.chunks = append(h.chunks, make([]hwRec, 0, hwChunk))
	}
	c := &h.chunks[len(h.chunks)-1]
	*c = append(*c, hwRec{time: o.Time, hw: o.HW, tp: h.index(o.TP), broker: o.Broker, epoch: o.Epoch})
	h.n++
}

// index returns tp's index in tps, adding it if new.
func (h *HWObservations) index(tp model.TopicPartition) int32 {
	i, ok := h.tpIdx[tp]
	if !ok {
		if h.tpIdx == nil {
			h.tpIdx = map[model.TopicPartition]int32{}
		}
		i = int32(len(h.tps))
		h.tps = append(h.tps, tp)
		h.tpIdx[tp] = i
	}
	return i
}

// Len is the number of observations.
func (h *HWObservations) Len() int { return h.n }

// All yields the observations in the order they were made.
func (h *HWObservations) All() iter.Seq[HWObservation] {
	return func(yield func(HWObservation) bool) {
		for _, c := range h.chunks {
			for _, r := range c {
				if !yield(HWObservation{Time: r.time, TP: h.tps[r.tp], Broker: r.broker, Epoch: r.epoch, HW: r.hw}) {
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
	if o.obs.Notify != nil {
		o.obs.Notify("election", tp)
	}
}

func (o observer) LeaderHighWatermark(b model.BrokerID, tp model.TopicPartition, epoch model.Epoch, hw model.Offset) {
	o.obs.HighWatermarks.Add(HWObservation{Time: o.s.Now(), TP: tp, Broker: b, Epoch: epoch, HW: hw})
}

func (o observer) LeaderISR(b model.BrokerID, tp model.TopicPartition, epoch model.Epoch, isr []model.BrokerID) {
	o.obs.ISRs = append(o.obs.ISRs, ISRObservation{Time: o.s.Now(), TP: tp, Leader: b, Epoch: epoch, ISR: append([]model.BrokerID(nil), isr...)})
	if o.obs.Notify != nil {
		o.obs.Notify("alter-partition", tp)
	}
}
