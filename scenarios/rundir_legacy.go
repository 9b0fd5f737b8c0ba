package scenarios

import (
	"time"

	"kafkasim/model"
)

// Run directories written before the observation types moved into model
// spell two observations otherwise: a high_watermark line names the leader
// epoch "Incarnation" (the checkers' name for it then; model.HWObservation
// says why it is now Epoch), and a generation line names each member's id
// "Member" and has no "Broker". Their facts are the same, so the format
// keeps its version (RunFormat) and LoadRun still reads them: a line that
// does not decode as today's is tried as one of these before it is
// refused.

// legacyObservationLine is an observations.jsonl line in the older
// spelling; exactly one field is set.
type legacyObservationLine struct {
	HighWatermark *struct {
		Time        time.Duration
		TP          model.TopicPartition
		Broker      model.BrokerID
		Incarnation model.Epoch
		HW          model.Offset
	} `json:"high_watermark,omitempty"`
	Generation *struct {
		Time       time.Duration
		Group      string
		Generation model.Epoch
		Members    []struct {
			Member     string
			Partitions []model.TopicPartition
		}
	} `json:"generation,omitempty"`
}

// decodeLegacyObservation reads b as a line in the older spelling into l,
// and reports whether it was one.
func decodeLegacyObservation(b []byte, l *observationLine) bool {
	var old legacyObservationLine
	if decodeStrict(b, &old) != nil {
		return false
	}
	*l = observationLine{} // drop what the failed decoding of today's spelling left
	switch {
	case old.HighWatermark != nil && old.Generation == nil:
		o := old.HighWatermark
		l.HighWatermark = &model.HWObservation{Time: o.Time, TP: o.TP, Broker: o.Broker, Epoch: o.Incarnation, HW: o.HW}
	case old.Generation != nil && old.HighWatermark == nil:
		o := old.Generation
		g := &model.GenerationObservation{Time: o.Time, Group: o.Group, Generation: o.Generation}
		for _, m := range o.Members {
			g.Members = append(g.Members, model.MemberAssignment{MemberID: m.Member, Partitions: m.Partitions})
		}
		l.Generation = g
	default:
		return false
	}
	return true
}
