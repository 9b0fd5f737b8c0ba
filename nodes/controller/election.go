package controller

import (
	"slices"

	"kafkasim/model"
)

// topicChangeSpec is the change spec every caller starts from: the ISR it
// asks for, who may lead, and the topic's min.insync.replicas, ELR and
// unclean-election settings; no uncleanly restarted broker, online
// election, the partition's own assignment.
func topicChangeSpec(t *topicInfo, targetISR []model.BrokerID, acceptable func(model.BrokerID) bool, elr bool) changeSpec {
	return changeSpec{
		targetISR:       targetISR,
		acceptable:      acceptable,
		minISR:          t.effectiveMinISR(),
		elr:             elr,
		unclean:         t.config.UncleanLeaderElection,
		uncleanShutdown: model.NoBroker,
	}
}

// changeSpec is what a caller wants for one partition: a target ISR and the
// rules to elect under. buildChange turns it into the partition's next
// state the way Kafka's PartitionChangeBuilder.build does, step for step:
//
//  1. ELR (maybePopulateTargetElr): with ELR on, an ISR at or above the
//     minimum clears the ELR; an ISR below it moves every replica that
//     leaves the ISR into the ELR, except a broker that just restarted
//     uncleanly.
//  2. Election (electAnyLeader): keep the leader if it is still valid; else
//     the first replica in assignment order that is alive and in the ISR,
//     or in the ELR when the ISR is empty; else, with ELR on and both ISR
//     and ELR empty, the last known leader if it is alive; else, with
//     unclean election on, the first alive replica in assignment order.
//     A leader from the ELR leaves the ELR and becomes the ISR alone; an
//     unclean leader (last known or any alive replica) becomes the ISR
//     alone and clears the ELR, since it may lack committed records.
//  3. ISR: the target ISR, except that without ELR an ISR never becomes
//     empty: its last member stays (with no leader) so that it, the one
//     replica known to hold every committed record, can lead again when it
//     returns.
//  4. Last known leader (maybeUpdateLastKnownLeader): with ELR on, when the
//     ISR becomes empty the leader the partition had is remembered; it is
//     forgotten once the partition has a leader again.
//  5. Epochs (PartitionRegistration.merge): a new leader, including "no
//     leader", bumps the leader epoch; any change bumps the partition
//     epoch; nothing changing makes no record.
//
// The last known leader is elected only if it may lead (alive, and not the
// broker being removed or registering after an unclean shutdown), as Kafka's
// canElectLastKnownLeader does since KAFKA-19522 (apache/kafka PR 20200;
// before it, liveness was tested only in a log line and a fenced broker was
// elected too). How it last stopped does not matter: an unclean restart
// takes a broker out of the ISR and the ELR but leaves it the last known
// leader (Kafka's handleBrokerUncleanShutdown leaves lastKnownElr alone,
// which QuorumControllerTest.testUncleanShutdownBrokerElrEnabled asserts),
// so once unfenced it leads again, unclean, with whatever its log kept, and
// the other replicas truncate to it.
type changeSpec struct {
	// targetISR is the ISR the caller asks for: the current one minus a
	// fenced or uncleanly restarted broker, or an AlterPartition's ISR.
	targetISR []model.BrokerID
	// acceptable says whether a broker may lead: alive (registered and
	// unfenced), and not the broker being removed.
	acceptable func(model.BrokerID) bool
	// minISR is the topic's effective min.insync.replicas.
	minISR int
	// elr is eligible.leader.replicas.enable (KIP-966).
	elr bool
	// unclean is the topic's unclean.leader.election.enable.
	unclean bool
	// uncleanShutdown is a broker that registered after an unclean
	// shutdown (KIP-966): it may not enter the ELR. NoBroker if none.
	uncleanShutdown model.BrokerID
	// election is how to elect (PartitionChangeBuilder.Election): online
	// unless an ElectLeaders request asks for preferred or unclean.
	election election
	// assignment is the target assignment (replicas, adding, removing), or
	// nil to keep the partition's: set by a reassignment or its
	// cancellation.
	assignment *Assignment
}

// election is PartitionChangeBuilder.Election.
type election uint8

const (
	// electOnline keeps a valid leader, else elects the first valid
	// replica (and unclean only when the topic allows it).
	electOnline election = iota
	// electPreferred elects the first replica of the assignment when it
	// is valid (electPreferredLeader); never unclean.
	electPreferred
	// electUnclean is online, then, when no ISR or ELR member can lead,
	// the first alive replica whatever the topic's setting.
	electUnclean
)

// buildChange computes the partition's next state under spec. It returns
// false when nothing would change, so that callers write no record. It
// stays one function because it follows Kafka's PartitionChangeBuilder.build
// step by step, in its order (election, ISR, ELR, reassignment, epochs),
// and that order is what a reader checks it against.
func buildChange(p *partitionInfo, spec changeSpec) (PartitionChangeRecord, bool) {
	targetISR := spec.targetISR
	targetELR := p.ELR
	target := Assignment{Replicas: p.Replicas, Adding: p.Adding, Removing: p.Removing}
	if spec.assignment != nil {
		target = *spec.assignment
	}

	// 0. Reassignment (completeReassignmentIfNeeded).
	if replicas, isr, done := completeReassignment(target, targetISR); done {
		target, targetISR = Assignment{Replicas: replicas}, isr
	}

	// 1. ELR.
	if spec.elr {
		if len(targetISR) >= spec.minISR {
			targetELR = nil
		} else {
			// The ELR keeps its members and gains the current ISR's, minus
			// whoever stays in the ISR and minus an unclean restart.
			var next []model.BrokerID
			for _, r := range union(targetELR, p.ISR) {
				if !slices.Contains(targetISR, r) && r != spec.uncleanShutdown {
					next = append(next, r)
				}
			}
			targetELR = next
		}
	}

	// 2. Election.
	leader, uncleanLeader := electLeader(p, target.Replicas, targetISR, targetELR, spec)
	leaderChanged := leader != p.Leader
	// A replica leaving bumps the leader epoch of a leader that stays
	// (triggerLeaderEpochBumpForReplicaReassignmentIfNeeded), so that the
	// removed replica's fetches are fenced.
	epochBump := leaderChanged || !containsAll(target.Replicas, p.Replicas)
	assignmentChanged := !slices.Equal(target.Replicas, p.Replicas) ||
		!slices.Equal(target.Adding, p.Adding) || !slices.Equal(target.Removing, p.Removing)
	var newISR []model.BrokerID
	isrSet := false
	if leaderChanged {
		if slices.Contains(targetELR, leader) {
			targetISR = []model.BrokerID{leader}
			targetELR = without(targetELR, leader)
		}
		if uncleanLeader {
			newISR = []model.BrokerID{leader}
			isrSet = true
		}
	}
	// An unclean election empties the ELR: its members are no longer known
	// to hold everything the new leader's log will say is committed.
	if isrSet || !spec.elr {
		targetELR = nil
	}
	elrChanged := !slices.Equal(targetELR, p.ELR)

	// 3. ISR.
	if !isrSet && (len(targetISR) > 0 || spec.elr) && !slices.Equal(targetISR, p.ISR) {
		newISR = targetISR
		isrSet = true
	}

	// 4. Last known leader.
	lastKnown := p.LastKnownLeader
	if spec.elr {
		if isrSet && len(newISR) == 0 && p.LastKnownLeader != p.Leader {
			lastKnown = p.Leader
		} else if (leaderChanged && leader != model.NoBroker) ||
			(p.Leader != model.NoBroker && !(leaderChanged && leader == model.NoBroker)) {
			lastKnown = model.NoBroker
		}
	}

	// 5. Epochs.
	if !leaderChanged && !isrSet && !elrChanged && lastKnown == p.LastKnownLeader && !epochBump && !assignmentChanged {
		return PartitionChangeRecord{}, false
	}
	r := PartitionChangeRecord{
		TP:              p.TP,
		Leader:          leader,
		LeaderEpoch:     p.LeaderEpoch,
		PartitionEpoch:  p.PartitionEpoch + 1,
		ISR:             p.ISR,
		ELR:             p.ELR,
		LastKnownLeader: lastKnown,
		Unclean:         leaderChanged && uncleanLeader,
	}
	if epochBump {
		r.LeaderEpoch++
	}
	if assignmentChanged {
		r.Assignment = &target
	}
	if isrSet {
		r.ISR = newISR
	}
	if elrChanged {
		r.ELR = targetELR
	}
	return r, true
}

// electLeader picks the leader by the order in buildChange's comment
// (PartitionChangeBuilder.electLeader), among replicas, the target
// assignment's, and says whether the pick was unclean (outside the ISR and
// ELR).
func electLeader(p *partitionInfo, replicas, targetISR, targetELR []model.BrokerID, spec changeSpec) (model.BrokerID, bool) {
	valid := func(r model.BrokerID) bool {
		in := slices.Contains(targetISR, r) || (len(targetISR) == 0 && slices.Contains(targetELR, r))
		return in && spec.acceptable(r)
	}
	lastKnown := spec.elr && len(targetISR) == 0 && len(targetELR) == 0 &&
		p.LastKnownLeader != model.NoBroker && spec.acceptable(p.LastKnownLeader)
	// electPreferredLeader: the preferred replica first; after it the
	// same order as online, but never an unclean pick among the others.
	preferred := spec.election == electPreferred
	if preferred && len(replicas) > 0 && valid(replicas[0]) {
		return replicas[0], false
	}
	if p.Leader != model.NoBroker && valid(p.Leader) {
		return p.Leader, false
	}
	for _, r := range replicas {
		if valid(r) {
			return r, false
		}
	}
	if lastKnown {
		return p.LastKnownLeader, true
	}
	if !preferred && (spec.unclean || spec.election == electUnclean) {
		for _, r := range replicas {
			if spec.acceptable(r) {
				return r, true
			}
		}
	}
	return model.NoBroker, false
}

// union returns the members of a and b, sorted, each once. Kafka builds the
// ELR as a hash set of small integers, which iterates in ascending order;
// sorting keeps that order and keeps maps out of it.
func union(a, b []model.BrokerID) []model.BrokerID {
	out := make([]model.BrokerID, 0, len(a)+len(b))
	out = append(out, a...)
	out = append(out, b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// without returns xs minus x, as a new slice (stored slices are never
// changed in place).
func without(xs []model.BrokerID, x model.BrokerID) []model.BrokerID {
	var out []model.BrokerID
	for _, r := range xs {
		if r != x {
			out = append(out, r)
		}
	}
	return out
}
