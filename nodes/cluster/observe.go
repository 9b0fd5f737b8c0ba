package cluster

import (
	"iter"
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// Observations records what the nodes reported over a run, in model's
// observation types, the ones the checkers read: the brokers' leaderships,
// ISRs and leader high watermarks (this file), the group coordinators'
// generations and committed offsets (observe_groups.go) and the metadata
// quorum's reports (quorum.go). The leaders' high watermarks, by far the
// most numerous, are kept compactly (HWObservations) and reach the
// embedded model.Observations only in Final: until then its
// HighWatermarks is empty.
type Observations struct {
	model.Observations
	hws HWObservations
	// Notify, if set, is told of each leadership ("election") and each
	// ISR a leader reports ("alter-partition") as it is observed: what a
	// fault waiting for one listens to.
	Notify func(event string, tp model.TopicPartition)
}

// Final returns every observation made so far, the high watermarks
// included, as the checkers read them. It shares the recorded slices.
func (o *Observations) Final() model.Observations {
	out := o.Observations
	out.HighWatermarks = slices.Collect(o.hws.All())
	return out
}

// HWObservations is the list of high watermark observations, kept in
// fixed-size chunks of a compact form: a leader reports every advance,
// several hundred a virtual second in a busy run, and one growing slice of
// model.HWObservation would be copied whole at every doubling (a tenth of a
// benchmark's time went there) and hold a topic name per entry.
type HWObservations struct {
	chunks [][]hwRec
	n      int
	tps    []model.TopicPartition // the partitions seen, by index
	tpIdx  map[model.TopicPartition]int32
}

// hwRec is a model.HWObservation with its partition as an index into tps.
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
func (h *HWObservations) Add(o model.HWObservation) {
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
func (h *HWObservations) All() iter.Seq[model.HWObservation] {
	return func(yield func(model.HWObservation) bool) {
		for _, c := range h.chunks {
			for _, r := range c {
				if !yield(model.HWObservation{Time: r.time, TP: h.tps[r.tp], Broker: r.broker, Epoch: r.epoch, HW: r.hw}) {
					return
				}
			}
		}
	}
}

// observer implements broker.Observer for every broker of a cluster.
type observer struct {
	s   *sim.Sim
	obs *Observations
}

func (o observer) BecameLeader(b model.BrokerID, tp model.TopicPartition, epoch model.Epoch) {
	o.obs.Leaders = append(o.obs.Leaders, model.LeaderObservation{Time: o.s.Now(), TP: tp, Epoch: epoch, Leader: b})
	if o.obs.Notify != nil {
		o.obs.Notify("election", tp)
	}
}

func (o observer) LeaderHighWatermark(b model.BrokerID, tp model.TopicPartition, epoch model.Epoch, hw model.Offset) {
	o.obs.hws.Add(model.HWObservation{Time: o.s.Now(), TP: tp, Broker: b, Epoch: epoch, HW: hw})
}

func (o observer) LeaderISR(b model.BrokerID, tp model.TopicPartition, epoch model.Epoch, isr []model.BrokerID) {
	o.obs.ISRs = append(o.obs.ISRs, model.ISRObservation{Time: o.s.Now(), TP: tp, Leader: b, Epoch: epoch, ISR: append([]model.BrokerID(nil), isr...)})
	if o.obs.Notify != nil {
		o.obs.Notify("alter-partition", tp)
	}
}
