package broker

import "kafkasim/model"

// isrEligible is Partition.isReplicaIsrEligible (KRaft): a follower may
// join the ISR, or hold the high watermark back as about to join, only if
// the metadata lists it live (registered, unfenced) and the broker epoch
// of its fetches is the one the metadata has for it
// (isBrokerEpochIsrEligible), or -1, which skips the check. A follower
// that has not fetched from this leader in its epoch has no epoch yet
// (Replica.resetReplicaState empties it) and is not eligible: a broker
// that restarted, registering a new epoch, is not re-admitted on a fetch
// its previous incarnation sent. Where the metadata carries no epochs (the
// push path some tests drive) liveness alone decides, as in Kafka's
// ZooKeeper mode.
//
// A broker the metadata has in controlled shutdown is refused too
// (isReplicaIsrEligible's isBrokerShuttingDown): the controller is moving
// it out of every ISR.
func (b *Broker) isrEligible(fs *followerState) bool {
	cached, live := b.liveEpochs[fs.id]
	if !live || b.shuttingDown[fs.id] {
		return false
	}
	if fs.leo < 0 {
		return false // no fetch in this epoch: no stored broker epoch
	}
	_, _, epoch := fs.fetchTimes()
	return cached == model.NoEpoch || epoch == model.NoEpoch || epoch == cached
}
