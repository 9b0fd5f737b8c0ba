package scenarios

import (
	"kafkasim/faults"
	"kafkasim/model"
)

// Racks: a scenario's racks are a list of names, and its nodes are spread
// over them round-robin, brokers and controllers alike: broker i (from 1)
// is on rack (i-1) mod n, and the k-th controller (from 0) on rack k mod
// n. With racks r1, r2, r3 and five brokers: r1 holds b1, b4 and b100,
// r2 holds b2, b5 and b101, r3 holds b3 and b102. Round-robin is what a
// deployment over availability zones usually looks like, and it makes a
// rack's nodes predictable from the file alone.

// rackOf is the rack of the i-th (from 0) node of a kind.
func rackOf(racks []string, i int) string { return racks[i%len(racks)] }

// brokerRacks are the brokers' broker.rack settings: none without racks
// or when the brokers are not told theirs (RackUnaware: the racks exist,
// faults can name them, but placement cannot see them).
func brokerRacks(o ScriptOptions) []string {
	if len(o.Racks) == 0 || o.RackUnaware {
		return nil
	}
	out := make([]string, o.Brokers)
	for i := range out {
		out[i] = rackOf(o.Racks, i)
	}
	return out
}

// RackNodes lists the brokers and controllers of a rack, sorted; nil for
// a rack the fixture does not have.
func (s *Scripted) RackNodes(rack string) []model.BrokerID {
	racks := s.opts.Racks
	if len(racks) == 0 {
		return nil
	}
	var out []model.BrokerID
	for i, id := range s.Brokers {
		if rackOf(racks, i) == rack {
			out = append(out, id)
		}
	}
	for i, id := range s.Cluster.Controllers {
		if rackOf(racks, i) == rack {
			out = append(out, id)
		}
	}
	return out
}

// RackNodes is the fixture's (rack r1).
func (w world) RackNodes(rack string) []model.BrokerID { return w.s.RackNodes(rack) }

var _ faults.RackWorld = world{}
