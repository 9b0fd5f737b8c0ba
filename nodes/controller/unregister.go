package controller

import (
	"encoding/binary"
	"slices"

	"kafkasim/model"
	"kafkasim/sim"
)

// Unregistering a broker (UnregisterBroker, KIP-631's
// UnregisterBrokerRecord), as Kafka's KRaft controller does it
// (ControllerApis.handleUnregisterBroker, QuorumController.unregisterBroker,
// ReplicationControlManager.unregisterBroker and handleBrokerUnregistered,
// ClusterControlManager.replay(UnregisterBrokerRecord)):
//
//   - a broker that is not registered is refused BROKER_ID_NOT_REGISTERED
//     (BrokerIdNotRegisteredException);
//   - otherwise, in one batch, the broker leaves every ISR and every ELR,
//     the partitions it led elect new leaders (never it), and the
//     UnregisterBrokerRecord names its current epoch; replaying it drops
//     the registration, and the active controller forgets its session
//     (BrokerHeartbeatManager.remove).
//
// Kafka does not refuse to unregister a broker that still hosts replicas:
// its replicas stay in their partitions' assignments, offline, until a
// reassignment moves them. kafkasim does the same; the operator's
// decommission (scenarios/decommission.go) moves them first. A broker that
// is still running when unregistered gets STALE_BROKER_EPOCH on its next
// heartbeat and registers again, as in Kafka.

// kindUnregisterBroker comes after every older kind, so that a log
// without it encodes as it did before it existed.
const kindUnregisterBroker recordKind = 13

// UnregisterBrokerRecord removes a broker's registration (Kafka's record
// of that name). It names the epoch so that a record meant for one
// incarnation cannot remove the next.
type UnregisterBrokerRecord struct {
	ID    model.BrokerID
	Epoch model.Epoch
}

func (UnregisterBrokerRecord) kind() recordKind { return kindUnregisterBroker }

// String reads "UnregisterBroker b4 epoch=12".
func (r UnregisterBrokerRecord) String() string {
	return "UnregisterBroker " + r.ID.String() + " epoch=" + itoa(int64(r.Epoch))
}

func (r UnregisterBrokerRecord) appendTo(b []byte) []byte {
	b = append(b, byte(kindUnregisterBroker))
	b = binary.AppendVarint(b, int64(r.ID))
	return binary.AppendVarint(b, int64(r.Epoch))
}

// applyUnregister drops the registration the record names.
func (s *metadataState) applyUnregister(r UnregisterBrokerRecord) {
	s.registrationFor(r, r.ID, r.Epoch) // panics on a record for another incarnation
	delete(s.brokers, r.ID)
	if i, ok := slices.BinarySearch(s.brokerIDs, r.ID); ok {
		s.brokerIDs = slices.Delete(slices.Clone(s.brokerIDs), i, i+1)
	}
}

// unregisterRecords builds handleBrokerUnregistered's batch: the broker
// leaves every ISR and ELR (and may not lead), then its registration goes.
func (c *Controller) unregisterRecords(id model.BrokerID) ([]Record, model.ErrorCode) {
	b := c.state.brokers[id]
	if b == nil {
		return nil, model.BrokerIDNotRegistered
	}
	records := c.state.leaderAndISRUpdates(id, model.NoBroker, model.NoBroker, func(p *partitionInfo) bool {
		return slices.Contains(p.ISR, id) || slices.Contains(p.ELR, id)
	})
	return append(records, UnregisterBrokerRecord{ID: id, Epoch: b.Epoch}), model.NoError
}

// UnregisterBroker runs UnregisterBroker for one broker, for a harness
// that runs operations without an admin client. It answers as CreateTopic
// does: the error code the request would get from the current state,
// NoError once the change is handed to the quorum; the operation runs in
// turn with the others and checks again, and a refusal then is traced.
func (c *Controller) UnregisterBroker(env *sim.Env, id model.BrokerID) model.ErrorCode {
	if env == nil {
		env = c.env
	}
	if !c.active {
		return model.NotController
	}
	if _, code := c.unregisterRecords(id); code != model.NoError {
		return code
	}
	c.submit(env, func() {
		if !c.active {
			return
		}
		records, code := c.unregisterRecords(id)
		if code != model.NoError {
			env.Trace("unregister-refused", id.String()+" "+code.String())
			return
		}
		c.commit(records, func(ok bool) {
			if ok {
				delete(c.sessions, id)
				c.armSessionTimer(env)
			}
		})
	})
	return model.NoError
}
