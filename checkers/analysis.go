package checkers

import (
	"cmp"
	"slices"
	"sort"

	"kafkasim/model"
)

// analysis is the index every history checker shares, built in one pass:
// for each partition, what was seen at each offset (by acknowledged sends
// and by polls); for each value, who wrote it, who first read it and where
// it was seen. Jepsen calls the sorted observed offsets of a partition its
// version order; a position in it is an "index" (offsets minus the gaps no
// one observed, such as transaction markers).
type analysis struct {
	h     model.History
	parts []*partition // in partition order
	byTP  map[model.TopicPartition]*partition
	ids   map[string]int32 // value → index into vals
	vals  []valueInfo
}

// partition is what the history says about one partition.
type partition struct {
	tp model.TopicPartition
	// at is the first value seen at each offset and the op that saw it.
	at map[model.Offset]sighting
	// conflicts holds further, different values seen at an offset.
	conflicts map[model.Offset][]sighting
	// offsets is the version order: every observed offset, ascending.
	offsets []model.Offset
	// resets are the offset ranges [from, to) that position resets jumped
	// over, merged and sorted: records there may legitimately go unread.
	resets []span
}

type sighting struct {
	value string
	op    int32
}

type span struct{ from, to model.Offset }

// valueInfo is what the history says about one value.
type valueInfo struct {
	writer      int32 // the send carrying it; -1 if none
	reader      int32 // the first poll that returned it; -1 if none
	readTP      *partition
	first, last model.Offset // lowest and highest offset it was seen at
	multi       bool         // seen at more than one offset
}

func analyze(h model.History) *analysis {
	a := &analysis{h: h, byTP: map[model.TopicPartition]*partition{}, ids: map[string]int32{}}
	// Writers first, so that a poll that returns a value before its send's
	// index still finds the writer.
	for i := range h {
		op := &h[i]
		if op.F == model.FSend {
			v := a.value(op.Value)
			if v.writer < 0 {
				v.writer = int32(i)
			}
		}
	}
	for i := range h {
		op := &h[i]
		switch op.F {
		case model.FSend:
			if a.acked(i) {
				a.observe(a.part(op.TP), op.Offset, op.Value, int32(i))
			}
		case model.FPoll:
			for _, pr := range op.Records {
				p := a.part(pr.TP)
				for _, r := range pr.Records {
					v := a.observe(p, r.Offset, r.Value, int32(i))
					if v.reader < 0 {
						v.reader, v.readTP = int32(i), p
					}
				}
			}
		case model.FReset:
			if op.Type == model.OpOK {
				for _, po := range op.Offsets {
					from := max(po.From, 0)
					if po.Offset > from {
						p := a.part(po.TP)
						p.resets = append(p.resets, span{from, po.Offset})
					}
				}
			}
		}
	}
	slices.SortFunc(a.parts, func(x, y *partition) int {
		if x.tp.Less(y.tp) {
			return -1
		}
		return 1
	})
	for _, p := range a.parts {
		slices.Sort(p.offsets)
		p.resets = mergeSpans(p.resets)
	}
	return a
}

// acked reports whether op i is a send acknowledged at a known offset: the
// sends whose offsets are facts.
func (a *analysis) acked(i int) bool {
	op := &a.h[i]
	return op.F == model.FSend && op.Type == model.OpOK && op.Offset != model.NoOffset
}

func (a *analysis) value(v string) *valueInfo {
	id, ok := a.ids[v]
	if !ok {
		id = int32(len(a.vals))
		a.ids[v] = id
		a.vals = append(a.vals, valueInfo{writer: -1, reader: -1, first: model.NoOffset, last: model.NoOffset})
	}
	return &a.vals[id]
}

func (a *analysis) part(tp model.TopicPartition) *partition {
	p := a.byTP[tp]
	if p == nil {
		p = &partition{tp: tp, at: map[model.Offset]sighting{}}
		a.byTP[tp] = p
		a.parts = append(a.parts, p)
	}
	return p
}

func (a *analysis) observe(p *partition, o model.Offset, value string, op int32) *valueInfo {
	if s, ok := p.at[o]; !ok {
		p.at[o] = sighting{value, op}
		p.offsets = append(p.offsets, o)
	} else if s.value != value {
		known := false
		for _, c := range p.conflicts[o] {
			known = known || c.value == value
		}
		if !known {
			if p.conflicts == nil {
				p.conflicts = map[model.Offset][]sighting{}
			}
			p.conflicts[o] = append(p.conflicts[o], sighting{value, op})
		}
	}
	v := a.value(value)
	switch {
	case v.first == model.NoOffset:
		v.first, v.last = o, o
	case o < v.first:
		v.first, v.multi = o, true
	case o > v.last:
		v.last, v.multi = o, true
	case o != v.first && o != v.last:
		v.multi = true
	}
	return v
}

// index is o's position in the version order; o must have been observed.
func (p *partition) index(o model.Offset) int {
	i, _ := slices.BinarySearch(p.offsets, o)
	return i
}

// excused reports whether a position reset jumped over offset o.
func (p *partition) excused(o model.Offset) bool {
	i := sort.Search(len(p.resets), func(i int) bool { return p.resets[i].to > o })
	return i < len(p.resets) && p.resets[i].from <= o
}

// valueAt is the first value seen at an observed offset.
func (p *partition) valueAt(o model.Offset) string { return p.at[o].value }

func mergeSpans(ss []span) []span {
	if len(ss) < 2 {
		return ss
	}
	slices.SortFunc(ss, func(x, y span) int { return cmp.Compare(x.from, y.from) })
	out := ss[:1]
	for _, s := range ss[1:] {
		last := &out[len(out)-1]
		if s.from <= last.to {
			last.to = max(last.to, s.to)
		} else {
			out = append(out, s)
		}
	}
	return out
}

// between returns the observed offsets strictly between version-order
// indices i and j, at most limit of them, and their values.
func (p *partition) between(i, j, limit int) ([]model.Offset, []string) {
	if j-i-1 > limit {
		j = i + 1 + limit
	}
	var os []model.Offset
	var vs []string
	for k := i + 1; k < j; k++ {
		os = append(os, p.offsets[k])
		vs = append(vs, p.valueAt(p.offsets[k]))
	}
	return os, vs
}
