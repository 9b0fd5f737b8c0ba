package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"kafkasim/model"
	"kafkasim/nodes/controller"
	"kafkasim/sim"
)

// The metadata quorum's part of the liveness phase (issue #10): after
// every fault healed, within the bound, one controller must lead the
// metadata quorum and be active (its LeaderChange entry committed), and
// every broker must be registered with it and unfenced, which a broker
// only is once it has replayed the metadata log far enough.

// controllerLook is one controller as the liveness check sees it.
type controllerLook struct {
	ID     model.BrokerID
	Up     bool
	Active bool        // the quorum leader, usable (its LeaderChange entry committed)
	Epoch  model.Epoch // its current quorum epoch
	Role   string      // its quorum role, for the message ("follower", "candidate", ...)
}

// brokerLook is one broker as the active controller records it.
type brokerLook struct {
	ID         model.BrokerID
	Up         bool
	Registered bool
	Fenced     bool
	// Stale: the controller's registration is a previous incarnation's
	// (a broker that crashed and restarted within broker.session.timeout.ms
	// is refused, as in Kafka's ClusterControlManager.registerBroker, until
	// the old session expires). The old registration says nothing of the
	// running broker: it leads nothing, yet the controller's partition
	// states still name it leader.
	Stale bool
	// Unheard: the active controller has not heard from the broker since
	// it took over. Its replayed state may call the broker unfenced, but
	// if the broker's heartbeats do not reach it (a connection still in
	// retransmission to a controller that lost power) the session expires
	// broker.session.timeout.ms after the takeover and fences it: the
	// cluster has not converged until the controller hears from it.
	Unheard bool
}

// quorumStuck says what keeps the quorum from having converged, or "".
// brokers lists every broker of the cluster, with what the active
// controller knows of it (nothing when there is none).
func quorumStuck(controllers []controllerLook, brokers []brokerLook) string {
	var active []controllerLook
	for _, c := range controllers {
		if c.Up && c.Active {
			active = append(active, c)
		}
	}
	switch len(active) {
	case 0:
		return "no active controller: " + describeControllers(controllers)
	case 1:
	default:
		var names []string
		for _, c := range active {
			names = append(names, fmt.Sprintf("%s (epoch %d)", c.ID, c.Epoch))
		}
		return "more than one active controller: " + strings.Join(names, ", ")
	}
	a := active[0]
	var stuck []string
	for _, b := range brokers {
		switch {
		case !b.Up:
			stuck = append(stuck, b.ID.String()+" is down")
		case !b.Registered:
			stuck = append(stuck, b.ID.String()+" is not registered")
		case b.Stale:
			stuck = append(stuck, b.ID.String()+" is registered only as its previous incarnation")
		case b.Fenced:
			stuck = append(stuck, b.ID.String()+" is fenced")
		case b.Unheard:
			stuck = append(stuck, b.ID.String()+" has not been heard from since the controller took over")
		}
	}
	if len(stuck) > 0 {
		return fmt.Sprintf("active controller %s (epoch %d): %s", a.ID, a.Epoch, strings.Join(stuck, ", "))
	}
	return ""
}

// describeControllers writes each controller's state on one line:
// "b100 down, b101 candidate in epoch 4, b102 leader in epoch 3, not yet active".
func describeControllers(cs []controllerLook) string {
	cs = slices.Clone(cs)
	slices.SortFunc(cs, func(a, b controllerLook) int { return int(a.ID) - int(b.ID) })
	var parts []string
	for _, c := range cs {
		switch {
		case !c.Up:
			parts = append(parts, c.ID.String()+" down")
		case c.Role == "leader" && !c.Active:
			parts = append(parts, fmt.Sprintf("%s leader in epoch %d, not yet active", c.ID, c.Epoch))
		default:
			parts = append(parts, fmt.Sprintf("%s %s in epoch %d", c.ID, c.Role, c.Epoch))
		}
	}
	if len(parts) == 0 {
		return "no controllers"
	}
	return strings.Join(parts, ", ")
}

// quorumStuck looks at the cluster's controllers and brokers: the
// metadata quorum's part of the liveness check.
func (s *Scripted) quorumStuck() string {
	var cs []controllerLook
	for _, id := range s.Cluster.Controllers {
		look := controllerLook{ID: id}
		n := s.ControllerByID(id)
		if n != nil && s.Sim.IsUp(sim.NodeID(id)) && !s.Sim.IsPaused(sim.NodeID(id)) {
			look.Up, look.Active, look.Epoch, look.Role = true, n.Active(), n.ControllerEpoch(), n.Quorum().Role()
		}
		cs = append(cs, look)
	}
	registered := map[model.BrokerID]controller.BrokerState{}
	if a := s.ControllerNode(); a != nil {
		for _, b := range a.Brokers() {
			registered[b.ID] = b
		}
	}
	var bs []brokerLook
	for _, id := range s.Brokers {
		st, ok := registered[id]
		look := brokerLook{ID: id, Up: s.Sim.IsUp(sim.NodeID(id)) && !s.Sim.IsPaused(sim.NodeID(id)), Registered: ok, Fenced: st.Fenced, Unheard: ok && !st.Heard}
		if b := s.Cluster.Broker(id); b != nil && ok {
			// Judged by the broker epoch, which each accepted
			// registration makes new: the running incarnation must be
			// the one the controller registered.
			epoch, accepted := b.Registration()
			look.Stale = !accepted || epoch != st.Epoch
		}
		bs = append(bs, look)
	}
	return quorumStuck(cs, bs)
}
