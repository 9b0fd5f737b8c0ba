package checkers

import "kafkasim/model"

// sightings maps an offset of one partition to the first value seen there
// and the op that saw it. A partition's observed offsets are nearly always
// 0, 1, 2, … with small gaps (transaction markers, unread records), so
// they live in a slice indexed by offset; a map holds only the offsets a
// slice would waste memory on (negative ones, or far beyond the rest). On
// a million-op history this replaces a few million map probes and a
// map's worth of garbage with slice indexing.
//
// A slot holds the op and the record only (8 bytes, no pointers for the
// garbage collector to scan); the value is the record's name, which
// names holds (analysis.names): a sighting's value is always its
// record's.
type sightings struct {
	dense  []seen // by offset; op < 0 marks an offset not seen
	sparse map[model.Offset]seen
	names  *[]string
}

// seen is a sighting without its value.
type seen struct{ op, id int32 }

// denseSlack is how far past the dense part an offset may land and still
// grow it rather than go to the map: offsets a little ahead of the rest
// are the common case (a poll that runs ahead of the sends' order).
const denseSlack = 1024

func (s *sightings) get(o model.Offset) (sighting, bool) {
	sn, ok := s.lookup(o)
	if !ok {
		return sighting{}, false
	}
	return s.sighting(sn), true
}

// lookup is get without the value.
func (s *sightings) lookup(o model.Offset) (seen, bool) {
	if o >= 0 && o < model.Offset(len(s.dense)) && s.dense[o].op >= 0 {
		return s.dense[o], true
	}
	sn, ok := s.sparse[o]
	return sn, ok
}

func (s *sightings) sighting(sn seen) sighting {
	return sighting{value: (*s.names)[sn.id], op: sn.op, id: sn.id}
}

// put records sg at o, which get must have reported unseen; sg's value
// must be its record's name.
func (s *sightings) put(o model.Offset, sg sighting) {
	sn := seen{sg.op, sg.id}
	n := model.Offset(len(s.dense))
	switch {
	case o >= 0 && o < n:
		s.dense[o] = sn
		return
	case o >= n && o < 2*n+denseSlack:
		for range o - n {
			s.dense = append(s.dense, seen{op: -1})
		}
		s.dense = append(s.dense, sn)
		return
	}
	if s.sparse == nil {
		s.sparse = map[model.Offset]seen{}
	}
	s.sparse[o] = sn
}
