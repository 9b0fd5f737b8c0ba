package client

import (
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// A connection opened across a partition never comes up: the client gives
// it up after socket.connection.setup.timeout.ms (10 s), not after the
// request's own timeout (30 s for a fetch, five minutes for a JoinGroup),
// and the timeout doubles with each failure.
func TestConnectionSetupTimeout(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	c := w.consumer(model.DefaultConfig(), func(o *ConsumerOptions) { o.Assignment = []model.TopicPartition{model.TP("t", 0)} })
	w.run(time.Second)
	if st := c.net.conn(1).state; st != connReady {
		t.Fatalf("before the cut the connection is %d, want ready", st)
	}
	w.at(time.Second, func() {
		w.s.Cut(clientID, sim.NodeID(1))
		w.s.Cut(sim.NodeID(1), clientID)
	})
	w.run(time.Second + 9*time.Second)
	before := w.cons().net.conn(1).failures
	checkSetups(t, &w.cons().net)
	w.run(time.Second + 12*time.Second)
	checkSetups(t, &w.cons().net)
	after := w.cons().net.conn(1).failures
	if after != before+1 {
		t.Fatalf("connection failures %d at 10 s, %d at 13 s: want one more as the 10 s setup timeout expires", before, after)
	}
	if got := w.cons().net.conn(1).setupDeadline - w.cons().net.conn(1).blockedUntil; got < 19*time.Second {
		t.Fatalf("the next attempt's setup timeout is %v, want it doubled to about 20 s", got)
	}
	// Healed, the next attempt comes up and the consumer reads again.
	w.at(25*time.Second, func() { w.s.HealAll() })
	w.c.part(model.TP("t", 0)).appendValues("a")
	w.run(70 * time.Second)
	if st := w.cons().net.conn(1).state; st != connReady {
		t.Fatalf("after the heal the connection is %d, want ready", st)
	}
	checkSetups(t, &w.cons().net)
}

// checkSetups checks the network's count of connections being set up,
// which request deadlines trust, against its connections.
func checkSetups(t *testing.T, n *network) {
	t.Helper()
	count := 0
	for _, c := range n.conns {
		if c.state == connSetup {
			count++
		}
	}
	if count != n.setups {
		t.Fatalf("%d connections are being set up, the network counts %d", count, n.setups)
	}
}
