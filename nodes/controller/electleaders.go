package controller

import (
	"kafkasim/model"
	"kafkasim/sim"
)

// ElectionType is KIP-460's election type of an ElectLeaders request.
type ElectionType uint8

const (
	// ElectPreferred moves leadership to the partition's preferred
	// replica, the first of its assignment, when it is alive and in the
	// ISR.
	ElectPreferred ElectionType = iota
	// ElectUnclean elects a leader for a partition that has none, from
	// outside the ISR if no ISR (or ELR) member can lead, whatever the
	// topic's unclean.leader.election.enable.
	ElectUnclean
)

func (e ElectionType) String() string {
	if e == ElectUnclean {
		return "unclean"
	}
	return "preferred"
}

// electionChange validates one partition's election and builds its change,
// as ReplicationControlManager.electLeader does:
//
//   - an unknown topic or partition: UNKNOWN_TOPIC_OR_PARTITION;
//   - preferred, and the preferred replica leads already; or unclean, and
//     the partition has a leader: ELECTION_NOT_NEEDED;
//   - the change builder, run with the election type, changes nothing:
//     PREFERRED_LEADER_NOT_AVAILABLE (preferred) or
//     ELIGIBLE_LEADERS_NOT_AVAILABLE (unclean).
func (c *Controller) electionChange(tp model.TopicPartition, kind ElectionType) (PartitionChangeRecord, model.ErrorCode) {
	var none PartitionChangeRecord
	p := c.state.partition(tp)
	if p == nil {
		return none, model.UnknownTopicOrPartition
	}
	preferredLeads := len(p.Replicas) > 0 && p.Leader == p.Replicas[0]
	if (kind == ElectPreferred && preferredLeads) || (kind == ElectUnclean && p.Leader != model.NoBroker) {
		return none, model.ElectionNotNeeded
	}
	t := c.state.topics[tp.Topic]
	spec := topicChangeSpec(t, p.ISR, c.state.active, c.cfg.Cluster.Controller.EligibleLeaderReplicas)
	spec.election = electPreferred
	if kind == ElectUnclean {
		spec.election = electUnclean
	}
	r, ok := buildChange(p, spec)
	if !ok {
		if kind == ElectPreferred {
			return none, model.PreferredLeaderNotAvailable
		}
		return none, model.EligibleLeadersNotAvailable
	}
	return r, model.NoError
}

// ElectLeader runs an ElectLeaders request for one partition, for a
// harness that runs operations without an admin client. It answers as
// CreateTopic does: the error code the request would get from the current
// state, NoError once the change is handed to the quorum; the operation
// runs in turn with the others and checks again, and a refusal then is
// traced.
func (c *Controller) ElectLeader(env *sim.Env, tp model.TopicPartition, kind ElectionType) model.ErrorCode {
	if env == nil {
		env = c.env
	}
	if !c.active {
		return model.NotController
	}
	if _, code := c.electionChange(tp, kind); code != model.NoError {
		return code
	}
	c.submit(env, func() {
		if !c.active {
			return
		}
		r, code := c.electionChange(tp, kind)
		if code != model.NoError {
			env.Trace("election-refused", tp.String()+" "+kind.String()+" "+code.String())
			return
		}
		c.commit([]Record{r}, func(bool) {})
	})
	return model.NoError
}
