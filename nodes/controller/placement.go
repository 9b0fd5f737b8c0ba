package controller

import (
	"math/rand/v2"
	"slices"

	"kafkasim/model"
)

// Rack-aware replica placement, as KRaft's StripedReplicaPlacer
// (metadata/placement/StripedReplicaPlacer.java) does it, in our own code:
//
//   - brokers are grouped by rack (broker.rack; brokers without one share
//     the rack ""), and within a rack split into unfenced and fenced
//     lists, each sorted and given a random start offset;
//   - the racks are sorted by name and given a random start offset;
//   - each partition takes its first replica (the preferred leader) from
//     the first rack, from its offset on, that has an unfenced broker
//     left in this round; its other replicas go round the racks from the
//     same offset, one broker per rack per lap, skipping the rack the
//     first came from once, unfenced brokers before fenced ones;
//   - the rack offset moves on by one per partition, and each rack's
//     broker lists move on by one each round (BrokerList.next's epoch);
//   - when as many partitions have been placed as there are unfenced
//     brokers, the racks and each rack's lists are shuffled, so that
//     later partitions do not repeat the same replica sets.
//
// With at least as many racks as replicas, no two replicas of a partition
// share a rack. The controller uses it when any registered broker has a
// rack; a cluster without racks keeps the classic rack-unaware placement
// (assignReplicas), so its runs are as they were.

// stripedBrokerList is StripedReplicaPlacer.BrokerList: brokers taken in
// turn from a moving offset, at most once each per round (epoch).
type stripedBrokerList struct {
	brokers       []model.BrokerID
	index, offset int
	epoch         int
}

func (l *stripedBrokerList) initialize(r *rand.Rand) {
	if len(l.brokers) > 0 {
		slices.Sort(l.brokers)
		l.offset = r.IntN(len(l.brokers))
	}
}

func (l *stripedBrokerList) shuffle(r *rand.Rand) {
	r.Shuffle(len(l.brokers), func(i, j int) { l.brokers[i], l.brokers[j] = l.brokers[j], l.brokers[i] })
}

// next is the next broker of this round, or NoBroker when the round has
// taken every one.
func (l *stripedBrokerList) next(epoch int) model.BrokerID {
	if len(l.brokers) == 0 {
		return model.NoBroker
	}
	if l.epoch != epoch {
		l.epoch, l.index = epoch, 0
		l.offset = (l.offset + 1) % len(l.brokers)
	}
	if l.index >= len(l.brokers) {
		return model.NoBroker
	}
	b := l.brokers[(l.index+l.offset)%len(l.brokers)]
	l.index++
	return b
}

// stripedRack is StripedReplicaPlacer.Rack.
type stripedRack struct{ unfenced, fenced stripedBrokerList }

// next prefers an unfenced broker, as Rack.next does.
func (k *stripedRack) next(epoch int) model.BrokerID {
	if b := k.unfenced.next(epoch); b != model.NoBroker {
		return b
	}
	return k.fenced.next(epoch)
}

// stripedRackList is StripedReplicaPlacer.RackList.
type stripedRackList struct {
	r             *rand.Rand
	racks         map[string]*stripedRack
	names         []string // sorted, then shuffled every round of rounds
	unfenced      int
	epoch, offset int
}

// placeableBroker is a registered broker as the placer sees it
// (Kafka's UsableBroker).
type placeableBroker struct {
	id     model.BrokerID
	rack   string
	fenced bool
}

func newStripedRackList(r *rand.Rand, brokers []placeableBroker) *stripedRackList {
	rl := &stripedRackList{r: r, racks: map[string]*stripedRack{}}
	for _, b := range brokers {
		k := rl.racks[b.rack]
		if k == nil {
			k = &stripedRack{}
			rl.racks[b.rack] = k
			rl.names = append(rl.names, b.rack)
		}
		if b.fenced {
			k.fenced.brokers = append(k.fenced.brokers, b.id)
		} else {
			k.unfenced.brokers = append(k.unfenced.brokers, b.id)
			rl.unfenced++
		}
	}
	// Kafka initializes the racks in its hash map's order; sorted names
	// give the same kind of draw in an order that does not depend on a
	// map's iteration.
	slices.Sort(rl.names)
	for _, name := range rl.names {
		rl.racks[name].unfenced.initialize(r)
		rl.racks[name].fenced.initialize(r)
	}
	rl.offset = r.IntN(len(rl.names))
	return rl
}

// place is one partition's replicas (RackList.place). The caller has
// checked that rf is at most the number of brokers and that one is
// unfenced.
func (rl *stripedRackList) place(rf int) []model.BrokerID {
	if rl.epoch == rl.unfenced && rl.unfenced > 1 {
		rl.r.Shuffle(len(rl.names), func(i, j int) { rl.names[i], rl.names[j] = rl.names[j], rl.names[i] })
		for _, name := range rl.names {
			rl.racks[name].unfenced.shuffle(rl.r)
			rl.racks[name].fenced.shuffle(rl.r)
		}
		rl.epoch = 0
	}
	if rl.offset == len(rl.names) {
		rl.offset = 0
	}
	out := make([]model.BrokerID, 0, rf)
	first := rl.offset
	for {
		if b := rl.racks[rl.names[first]].unfenced.next(rl.epoch); b != model.NoBroker {
			out = append(out, b)
			break
		}
		first = (first + 1) % len(rl.names)
	}
	at := rl.offset
	for len(out) < rf {
		b := model.NoBroker
		for b == model.NoBroker {
			if at == first {
				first = -1 // the first replica's rack is skipped once
			} else {
				b = rl.racks[rl.names[at]].next(rl.epoch)
			}
			at = (at + 1) % len(rl.names)
		}
		out = append(out, b)
	}
	rl.epoch++
	rl.offset++
	return out
}

// placeStriped places partitions of rf replicas over the registered
// brokers (StripedReplicaPlacer.place). brokers lists every registered
// broker, sorted by id; rf must be at most len(brokers) and one broker
// must be unfenced.
func placeStriped(r *rand.Rand, brokers []placeableBroker, partitions, rf int) [][]model.BrokerID {
	rl := newStripedRackList(r, brokers)
	out := make([][]model.BrokerID, 0, partitions)
	for range partitions {
		out = append(out, rl.place(rf))
	}
	return out
}

// racked reports whether any registered broker has a rack: the
// controller then places replicas rack-aware.
func (s *metadataState) racked() bool {
	for _, id := range s.brokerIDs {
		if s.brokers[id].Rack != "" {
			return true
		}
	}
	return false
}

// placeable lists the registered brokers for placeStriped.
func (s *metadataState) placeable() []placeableBroker {
	out := make([]placeableBroker, 0, len(s.brokerIDs))
	for _, id := range s.brokerIDs {
		b := s.brokers[id]
		out = append(out, placeableBroker{id: id, rack: b.Rack, fenced: b.Fenced})
	}
	return out
}
