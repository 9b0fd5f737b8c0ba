package controller

import (
	"slices"

	"kafkasim/model"
	"kafkasim/sim"
)

// Partition reassignment (KIP-455) as Kafka's KRaft controller does it
// (ReplicationControlManager.alterPartitionReassignments, with
// PartitionReassignmentReplicas, PartitionReassignmentRevert and
// PartitionChangeBuilder.completeReassignmentIfNeeded):
//
//  1. Start: the replicas become the target followed by the replicas the
//     target drops, the latter marked removing, the new ones adding. The
//     ISR and leader stay. Brokers that became replicas open the partition
//     and fetch from the leader, as followers outside the ISR.
//  2. Catch up: the leader takes each adding replica into the ISR by
//     AlterPartition once it has caught up, as any follower.
//  3. Complete: as soon as a change (an AlterPartition, a fencing, ...)
//     leaves every target replica in the ISR, the same change drops the
//     removing replicas from the replicas and the ISR, and elects a new
//     leader if the leader was one of them. A replica is so never removed
//     before every replacement is in the ISR.
//  4. Cancel: the adding replicas leave the replicas and the ISR; the
//     removing ones stay. If only adding replicas were in the ISR, the
//     first remaining replica becomes the ISR: an unclean election, refused
//     (INVALID_REPLICA_ASSIGNMENT) unless the topic allows unclean
//     election.
//
// Throttling (leader.replication.throttled.replicas and the like) is left
// out: adding replicas fetch as fast as any follower.

// reassignTarget is the assignment a reassignment of current to target
// starts (the PartitionReassignmentReplicas constructor): the target,
// then the current replicas it drops; removing and adding are each
// sorted, as Kafka builds them from a TreeSet.
func reassignTarget(current, target []model.BrokerID) Assignment {
	removing := sortedDifference(current, target)
	adding := sortedDifference(target, current)
	replicas := append(slices.Clone(target), removing...)
	return Assignment{Replicas: replicas, Adding: adding, Removing: removing}
}

// completeReassignment is PartitionReassignmentReplicas
// .maybeCompleteReassignment: with a reassignment in progress and every
// replica that stays in isr, the replicas and ISR without the removing
// ones; done is false otherwise (and when either would be empty).
func completeReassignment(a Assignment, isr []model.BrokerID) (replicas, newISR []model.BrokerID, done bool) {
	if len(a.Adding) == 0 && len(a.Removing) == 0 {
		return nil, nil, false
	}
	replicas, newISR = a.Replicas, isr
	if len(a.Removing) > 0 {
		newISR = withoutAll(isr, a.Removing)
		replicas = withoutAll(a.Replicas, a.Removing)
		if len(newISR) == 0 || len(replicas) == 0 {
			return nil, nil, false
		}
	}
	if !containsAll(newISR, replicas) {
		return nil, nil, false
	}
	return replicas, newISR, true
}

// revertReassignment is PartitionReassignmentRevert: the replicas without
// the adding ones, the ISR without them, and unclean when that ISR would
// be empty (it is then the first remaining replica).
func revertReassignment(p *partitionInfo) (replicas, isr []model.BrokerID, unclean bool) {
	replicas = withoutAll(p.Replicas, p.Adding)
	isr = withoutAll(p.ISR, p.Adding)
	if len(isr) == 0 && len(replicas) > 0 {
		return replicas, []model.BrokerID{replicas[0]}, true
	}
	return replicas, isr, false
}

// reassignmentChange validates one partition's reassignment (target nil:
// cancel it) and builds its change, as
// ReplicationControlManager.alterPartitionReassignment and its
// changePartitionReassignment and cancelPartitionReassignment do. ok is
// false when the answer is an error or there is nothing to write.
func (c *Controller) reassignmentChange(tp model.TopicPartition, target []model.BrokerID) (PartitionChangeRecord, model.ErrorCode, bool) {
	var none PartitionChangeRecord
	p := c.state.partition(tp)
	if p == nil {
		return none, model.UnknownTopicOrPartition, false
	}
	t := c.state.topics[tp.Topic]
	spec := topicChangeSpec(t, p.ISR, c.state.active, c.cfg.Cluster.Controller.EligibleLeaderReplicas)
	spec.election = electOnline
	if target == nil {
		if !p.reassigning() {
			return none, model.NoReassignmentInProgress, false
		}
		replicas, isr, unclean := revertReassignment(p)
		if unclean && !t.config.UncleanLeaderElection {
			return none, model.InvalidReplicaAssignment, false
		}
		spec.targetISR = isr
		spec.assignment = &Assignment{Replicas: replicas}
	} else {
		if code := c.validateManualAssignment(target); code != model.NoError {
			return none, code, false
		}
		a := reassignTarget(p.Replicas, target)
		spec.assignment = &a
	}
	r, ok := buildChange(p, spec)
	return r, model.NoError, ok
}

// validateManualAssignment is
// ReplicationControlManager.validateManualPartitionAssignment: a replica
// list that is not empty, of registered brokers, each once
// (INVALID_REPLICA_ASSIGNMENT otherwise).
func (c *Controller) validateManualAssignment(replicas []model.BrokerID) model.ErrorCode {
	if len(replicas) == 0 {
		return model.InvalidReplicaAssignment
	}
	sorted := slices.Sorted(slices.Values(replicas))
	for i, id := range sorted {
		if c.state.brokers[id] == nil || (i > 0 && sorted[i-1] == id) {
			return model.InvalidReplicaAssignment
		}
	}
	return model.NoError
}

// AlterPartitionReassignment starts a reassignment of one partition to
// target (AlterPartitionReassignments with one partition), or cancels the
// one in progress when target is nil, for a harness that runs operations
// without an admin client. It answers as CreateTopic does: the error code
// the request would get from the current state, NoError once the change
// is handed to the quorum. The operation itself runs in turn with the
// others and checks again; a refusal then is traced.
func (c *Controller) AlterPartitionReassignment(env *sim.Env, tp model.TopicPartition, target []model.BrokerID) model.ErrorCode {
	if env == nil {
		env = c.env
	}
	if !c.active {
		return model.NotController
	}
	target = slices.Clone(target) // nil (a cancel) stays nil
	if _, code, _ := c.reassignmentChange(tp, target); code != model.NoError {
		return code
	}
	c.submit(env, func() {
		if !c.active {
			return
		}
		r, code, ok := c.reassignmentChange(tp, target)
		if code != model.NoError {
			env.Trace("reassignment-refused", tp.String()+" "+code.String())
			return
		}
		if ok {
			c.commit([]Record{r}, func(bool) {})
		}
	})
	return model.NoError
}

// Reassignment is one partition's reassignment in progress, as
// ListPartitionReassignments answers it.
type Reassignment struct {
	TP       model.TopicPartition
	Replicas []model.BrokerID
	Adding   []model.BrokerID
	Removing []model.BrokerID
}

// ListPartitionReassignments lists the reassignments in progress, sorted
// by partition (ReplicationControlManager.listPartitionReassignments over
// every partition). The slices are shared and must not be changed.
func (c *Controller) ListPartitionReassignments() []Reassignment {
	var out []Reassignment
	c.state.eachPartition(func(_ *topicInfo, p *partitionInfo) {
		if p.reassigning() {
			out = append(out, Reassignment{TP: p.TP, Replicas: p.Replicas, Adding: p.Adding, Removing: p.Removing})
		}
	})
	return out
}

// sortedDifference is the members of a not in b, sorted, each once.
func sortedDifference(a, b []model.BrokerID) []model.BrokerID {
	var out []model.BrokerID
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// withoutAll is xs minus every member of drop, in xs's order, as a new
// slice.
func withoutAll(xs, drop []model.BrokerID) []model.BrokerID {
	var out []model.BrokerID
	for _, x := range xs {
		if !slices.Contains(drop, x) {
			out = append(out, x)
		}
	}
	return out
}

// containsAll reports whether every member of sub is in set.
func containsAll(set, sub []model.BrokerID) bool {
	for _, x := range sub {
		if !slices.Contains(set, x) {
			return false
		}
	}
	return true
}
