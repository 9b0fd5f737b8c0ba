package checkers

import "kafkasim/model"

// sightings maps an offset of one partition to the first value seen there
// and the op that saw it. A partition's observed offsets are nearly always
// 0, 1, 2, … with small gaps (transaction markers, unread records), so
// they live in a slice indexed by offset; a map holds only the offsets a
// slice would waste memory on (negative ones, or far beyond the rest). On
// a million-op history this replaces a few million map probes and a
// map's worth of garbage with slice indexing.
type sightings struct {
	dense  []sighting // by offset; op < 0 marks an offset not seen
	sparse map[model.Offset]sighting
}

// denseSlack is how far past the dense part an offset may land and still
// grow it rather than go to the map: offsets a little ahead of the rest
// are the common case (a poll that runs ahead of the sends' order).
const denseSlack = 1024

func (s *sightings) get(o model.Offset) (sighting, bool) {
	if o >= 0 && o < model.Offset(len(s.dense)) && s.dense[o].op >= 0 {
		return s.dense[o], true
	}
	sg, ok := s.sparse[o]
	return sg, ok
}

// put records sg at o, which get must have reported unseen.
func (s *sightings) put(o model.Offset, sg sighting) {
	n := model.Offset(len(s.dense))
	switch {
	case o >= 0 && o < n:
		s.dense[o] = sg
		return
	case o >= n && o < 2*n+denseSlack:
		for range o - n {
			s.dense = append(s.dense, sighting{op: -1})
		}
		s.dense = append(s.dense, sg)
		return
	}
	if s.sparse == nil {
		s.sparse = map[model.Offset]sighting{}
	}
	s.sparse[o] = sg
}
