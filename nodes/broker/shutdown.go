package broker

import (
	"time"

	"kafkasim/sim"
)

// controlledShutdownTimeout bounds a broker's wait for the controller to
// let it go: KafkaBroker.shutdown() passes five minutes to
// BrokerServer.shutdown, which waits on controlledShutdownFuture until
// then (3.x hard-codes the same five minutes) and, on timeout, logs "Timed
// out waiting for the controller to approve controlled shutdown" and
// stops anyway.
const controlledShutdownTimeout = 5 * time.Minute

// firstShutdownRetry is how soon a broker heartbeats again after the
// controller's first "not yet" (BrokerLifecycleManager schedules the next
// heartbeat after 50 ms then, to finish quickly when little has to move;
// later answers wait the usual heartbeat interval).
const firstShutdownRetry = 50 * time.Millisecond

// timerShutdownHeartbeat is that early heartbeat.
const timerShutdownHeartbeat = "shutdown-heartbeat"

// BeginStop is a clean stop (sim.GracefulStopper), BrokerServer.shutdown
// with controlled.shutdown.enable: a registered broker enters
// PENDING_CONTROLLED_SHUTDOWN, heartbeats at once with WantShutdown, and
// goes on serving (it still leads until the controller moves its
// leaderships, and followers still fetch from it) until the controller
// answers ShouldShutdown; then Stop closes its logs. A broker that was
// never unfenced (still starting or recovering) has nothing to hand over
// and stops at once (Kafka skips the controlled shutdown outside RUNNING),
// as does one with controlled.shutdown.enable off. One fenced since it
// ran still asks; the controller lets a fenced broker go at once.
func (b *Broker) BeginStop(env *sim.Env) time.Duration {
	if !b.cfg.Kafka.Broker.ControlledShutdownEnable || !b.registered || !b.running {
		return 0
	}
	b.stopping = true
	env.Trace("controlled-shutdown", "begin")
	b.sendHeartbeat()
	return controlledShutdownTimeout
}

// shutdownAnswered handles the controller's answer to a heartbeat sent
// while stopping.
func (b *Broker) shutdownAnswered(shouldShutdown bool) {
	if shouldShutdown {
		b.env.Trace("controlled-shutdown", "granted")
		b.env.StopDone()
		return
	}
	if !b.shutdownHeard {
		b.shutdownHeard = true
		b.env.After(firstShutdownRetry, timerShutdownHeartbeat, 0)
	}
}
