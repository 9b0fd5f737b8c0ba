package broker

import (
	"kafkasim/model"
	"kafkasim/nodes/controller"
	"kafkasim/nodes/raft"
	"kafkasim/sim"
)

// A broker learns the cluster metadata as KRaft brokers do: it is an
// observer of the metadata quorum, fetching the committed log from the
// quorum leader and replaying it into a metadata image (Kafka's
// MetadataLoader and BrokerMetadataPublisher). The observer never votes;
// it only ever applies committed records, so a stale controller, whose
// proposals cannot commit, cannot change what a broker believes. The
// quorum leader it knows is also the active controller it registers and
// heartbeats with.
//
// Records are replayed one by one into the image, and the partitions they
// changed are published to the broker after each quorum event, so that a
// broker catching up over many records acts once per partition on the
// latest state, not on each state it went through.

// replayer is the broker's raft.StateMachine.
type replayer struct {
	b   *Broker
	img *controller.MetadataImage
	// leaderNews says the quorum leader changed since the last publish.
	leaderNews bool
}

func (r *replayer) Apply(offset int64, _ model.Epoch, data []byte) { r.img.Apply(offset, data) }

func (r *replayer) Snapshot() []byte { return r.img.Snapshot() }

func (r *replayer) Restore(_ int64, _ model.Epoch, data []byte) { r.img.Restore(data) }

func (r *replayer) LeaderChanged(leader model.BrokerID, _ model.Epoch, _ bool) {
	if leader != r.b.activeController {
		r.b.activeController = leader
		r.leaderNews = true
	}
}

// startQuorum starts the broker's observer, which restores the metadata
// it had from its snapshot and log.
func (b *Broker) startQuorum(env *sim.Env) {
	b.activeController = model.NoBroker
	b.replay = &replayer{b: b, img: controller.NewMetadataImage(b.cfg.Kafka)}
	if o, ok := b.cfg.Observer.(AssignmentObserver); ok {
		id := b.cfg.ID
		b.replay.img.OnAssignment = func(a model.AssignmentObservation) { o.ReplicaSetChanged(id, a) }
	}
	if o, ok := b.cfg.Observer.(DeletionObserver); ok {
		id := b.cfg.ID
		b.replay.img.OnTopicDeleted = func(topic string, offset int64) { o.TopicDeleted(id, topic, offset) }
	}
	b.quorum = raft.New(raft.Config{ID: b.cfg.ID, Voters: b.cfg.Voters, Observer: true, Dir: controller.QuorumDir,
		SnapshotEvery: b.cfg.SnapshotEvery, LoadRate: b.cfg.MetadataLoadRate, Watch: b.cfg.QuorumWatch}, b.replay)
	b.quorum.Start(env)
}

// afterQuorum publishes what the quorum's last event applied: the broker
// list, the partitions that changed, the new metadata offset; and, when
// the active controller changed, forgets requests in flight to the old one
// and introduces itself to the new one.
func (b *Broker) afterQuorum() {
	tps, brokersChanged, _ := b.replay.img.TakeChanged()
	if brokersChanged {
		live, fenced := b.replay.img.Brokers()
		b.live = map[model.BrokerID]bool{}
		b.liveEpochs = map[model.BrokerID]model.Epoch{}
		b.shuttingDown = map[model.BrokerID]bool{}
		b.brokers = b.brokers[:0]
		for _, id := range live {
			b.live[id] = true
			b.liveEpochs[id], _ = b.replay.img.BrokerEpoch(id)
			if b.replay.img.InControlledShutdown(id) {
				b.shuttingDown[id] = true
			}
			b.brokers = append(b.brokers, id)
		}
		b.brokers = append(b.brokers, fenced...)
		sortBrokers(b.brokers)
	}
	removed, configs := b.replay.img.TakeTopicChanges()
	b.applyTopicChanges(removed)
	b.dropOldLives(b.replay.img.TakeRecreated())
	for _, tp := range tps {
		if ps, ok := b.replay.img.Partition(tp); ok {
			b.applyPartitionState(ps)
		}
	}
	for _, topic := range configs {
		b.applyTopicConfig(topic)
	}
	if off := b.quorum.LastApplied(); off > b.metadataOffset {
		before := b.metadataOffset
		b.metadataOffset = off
		// A fenced broker that just replayed its own registration tells
		// the controller at once rather than at the next interval: it is
		// caught up, and may be unfenced.
		if b.registered && b.fenced && before < int64(b.brokerEpoch) && off >= int64(b.brokerEpoch) {
			b.sendHeartbeat()
		}
	}
	b.maybeStartActing()
	if b.replay.leaderNews {
		b.replay.leaderNews = false
		b.controllerChanged()
	}
}

// controllerChanged reacts to a new active controller (or to losing it):
// requests in flight to the old one are lost; a broker that is not
// registered registers with the new one at once, and a registered one
// heartbeats to it at once, so that the new controller's session for it
// starts now rather than at the next interval.
func (b *Broker) controllerChanged() {
	b.heartbeatOut = false
	b.retryAlterPartitions()
	if b.activeController == model.NoBroker {
		return
	}
	if !b.registered {
		b.register()
		return
	}
	b.sendHeartbeat()
}

// controller is the active controller as far as the broker knows:
// the configured one without a quorum, else the quorum leader its observer
// knows (NoBroker while none is known).
func (b *Broker) controller() model.BrokerID {
	if b.quorum == nil {
		return b.cfg.Controller
	}
	return b.activeController
}

// sendController sends m to the active controller and reports whether
// there was one to send to.
func (b *Broker) sendController(m sim.Message) bool {
	c := b.controller()
	if c == model.NoBroker {
		return false
	}
	b.send(c, m)
	return true
}

// ActiveController is the active controller the broker knows (NoBroker
// while none is known).
func (b *Broker) ActiveController() model.BrokerID { return b.controller() }

// MetadataPartition is the partition's state in the broker's metadata
// cache, as it replayed it.
func (b *Broker) MetadataPartition(tp model.TopicPartition) model.PartitionState { return b.meta[tp] }
