package client

import (
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// reqKind says what an in-flight request was, so that its owner knows what
// to do with its answer or its failure.
type reqKind uint8

const (
	reqMetadata reqKind = iota
	reqInitProducerID
	reqProduce
	reqFetch
	reqListOffsets
	reqOffsetsForEpoch
	reqCreateTopics
	reqTxn // a transactional producer's request to its coordinator (or FindCoordinator)
)

// request is one request sent and not yet answered: Kafka's
// NetworkClient.InFlightRequest. The owner's payload rides along so that a
// response, a timeout and a disconnect all find what the request was for.
type request struct {
	corr     int32
	broker   model.BrokerID
	kind     reqKind
	sent     time.Duration // node clock
	deadline time.Duration // node clock: sent + the request's timeout

	batch    *batch                // reqProduce
	msg      *model.ProduceRequest // reqProduce: the attempt's message
	fetchMsg *model.FetchRequest   // reqFetch: the request's message
	tp       model.TopicPartition  // reqListOffsets, reqOffsetsForEpoch
	gen      uint64                // the partition's generation when sent
	txn      *txnRequest           // reqTxn: the handler it was sent for
}

// brokerConn is what the client knows about its connection to one broker.
type brokerConn struct {
	broker       model.BrokerID
	failures     int           // consecutive connection failures
	blockedUntil time.Duration // reconnect backoff ends (node clock)
	// state is the connection's handshake: none yet, ApiVersions sent
	// (setup ends at setupDeadline), or ready.
	state         connState
	setupDeadline time.Duration // node clock
	setupFailures int           // consecutive connections that never came up
}

// connState is where a connection is in Kafka's NetworkClient life cycle.
type connState uint8

const (
	connNone  connState = iota // no connection: the next request opens one
	connSetup                  // ApiVersions sent, no answer yet
	connReady                  // the broker answered on this connection
)

// network is the client side of the connections to brokers, after Kafka's
// NetworkClient: correlation ids, the requests in flight (in send order, so
// that failing them all walks them oldest first, as
// InFlightRequests.clearAll does), per-broker in-flight counts, and
// reconnect backoff. The simulated network keeps one connection per pair of
// nodes; a timeout here cannot close it, so "closing" a connection means
// forgetting its requests: their late answers then match nothing and are
// dropped.
type network struct {
	// backoffs holds reconnect.backoff.ms / .max.ms and
	// socket.connection.setup.timeout.ms / .max.ms: the connection
	// settings of ClusterConnectionStates. Without the setup timeout a
	// request sent on a connection that never came up (a partition, a
	// machine that is off: neither answers) would wait for its own
	// timeout, a JoinGroup's being the rebalance timeout plus 5 s.
	backoffs model.ClientConfig
	corr     int32
	reqs     []*request   // in send order
	conns    []brokerConn // sorted by broker
	// readied says the last message heard made its connection ready: the
	// connection was being set up, and the setup deadline its requests
	// had is gone.
	readied bool
	// setups counts the connections being set up (connSetup), so that a
	// request's deadline, looked up for every request after every event,
	// needs its connection only while one is.
	setups int
}

// newNetwork starts the correlation ids of a new incarnation at a random
// point of the node's stream. Kafka's ids restart at 0 with every process,
// and TCP keeps an old connection's late answers from reaching the new
// process; the simulated network keeps one connection per pair of nodes
// across restarts, so distinct ids per incarnation play that part.
func newNetwork(env *sim.Env, cl model.ClientConfig) network {
	return network{backoffs: cl, corr: int32(env.Rand().Uint32() >> 2)}
}

// send assigns the next correlation id, lets build make the message with
// it, sends it and remembers the request until complete or fail removes it.
func (n *network) send(env *sim.Env, broker model.BrokerID, kind reqKind, timeout time.Duration, build func(corr int32) sim.Message) *request {
	n.open(env, broker)
	n.corr++
	now := env.Now()
	r := &request{corr: n.corr, broker: broker, kind: kind, sent: now, deadline: satAdd(now, timeout)}
	env.Send(sim.NodeID(broker), build(r.corr))
	n.reqs = append(n.reqs, r)
	return r
}

// track is send for a request whose record the caller keeps in r (a
// producer batch keeps the one of its attempt in flight), so that sending
// allocates nothing but the message. It fills r, assigns the next
// correlation id and remembers r until complete or fail removes it; the
// caller then sends the message under that id.
func (n *network) track(env *sim.Env, r *request, broker model.BrokerID, kind reqKind, timeout time.Duration) int32 {
	n.corr++
	now := env.Now()
	*r = request{corr: n.corr, broker: broker, kind: kind, sent: now, deadline: satAdd(now, timeout)}
	n.reqs = append(n.reqs, r)
	return n.corr
}

// sendOneWay sends a request that gets no answer (a produce with acks=0)
// and returns its correlation id.
func (n *network) sendOneWay(env *sim.Env, broker model.BrokerID, build func(corr int32) sim.Message) int32 {
	n.open(env, broker)
	n.corr++
	env.Send(sim.NodeID(broker), build(n.corr))
	return n.corr
}

// open starts a connection to broker if there is none: it sends the
// ApiVersions handshake and arms the setup timeout. Requests go out right
// behind it rather than waiting in a queue as Kafka's do: the link is FIFO,
// so they arrive after the handshake or, across a partition, not at all.
func (n *network) open(env *sim.Env, broker model.BrokerID) {
	c := n.conn(broker)
	if c.state != connNone {
		return
	}
	c.state = connSetup
	n.setups++
	b := n.backoffs
	c.setupDeadline = satAdd(env.Now(), jitterCapped(env, expBackoff(b.SocketConnectionSetupTimeout, b.SocketConnectionSetupTimeoutMax, c.setupFailures), b.SocketConnectionSetupTimeoutMax))
	n.corr++
	env.Send(sim.NodeID(broker), model.ApiVersionsRequest{CorrelationID: n.corr})
}

// heard notes a message from broker: any message proves the connection is
// up. It reports whether the message was the handshake's answer, which
// concerns nobody else.
func (n *network) heard(broker model.BrokerID, m sim.Message) bool {
	c := n.conn(broker)
	n.readied = c.state != connReady
	if c.state == connSetup {
		n.setups--
	}
	c.state, c.setupFailures = connReady, 0
	_, ok := m.(model.ApiVersionsResponse)
	return ok
}

// complete removes and returns the request a response answers, or nil when
// none is in flight under that id from that broker: a duplicate answer, or
// a late one for a request given up on.
func (n *network) complete(from model.BrokerID, corr int32) *request {
	for i, r := range n.reqs {
		if r.corr == corr {
			if r.broker != from {
				return nil
			}
			n.reqs = append(n.reqs[:i], n.reqs[i+1:]...)
			n.conn(from).failures = 0
			return r
		}
	}
	return nil
}

// inFlight counts the requests waiting for an answer from broker.
func (n *network) inFlight(broker model.BrokerID) int {
	c := 0
	for _, r := range n.reqs {
		if r.broker == broker {
			c++
		}
	}
	return c
}

func (n *network) conn(b model.BrokerID) *brokerConn {
	// A client looks a broker up for nearly every message and every
	// deadline, and may know a hundred: a binary search of the sorted
	// list, written out rather than through a comparison function.
	i, hi := 0, len(n.conns)
	for i < hi {
		h := int(uint(i+hi) >> 1)
		if n.conns[h].broker < b {
			i = h + 1
		} else {
			hi = h
		}
	}
	if i == len(n.conns) || n.conns[i].broker != b {
		n.conns = slices.Insert(n.conns, i, brokerConn{broker: b})
	}
	return &n.conns[i]
}

// nextUnblock is the earliest end of a reconnect backoff after now, or
// never: when a client that could not reach anyone should look again.
func (n *network) nextUnblock(now time.Duration) time.Duration {
	d := model.Never
	for _, c := range n.conns {
		if c.blockedUntil > now {
			d = min(d, c.blockedUntil)
		}
	}
	return d
}

// ready reports whether the client may send to broker now: it is not in
// reconnect backoff (Kafka's NetworkClient.isReady / connectionDelay).
func (n *network) ready(broker model.BrokerID, now time.Duration) bool {
	return now >= n.conn(broker).blockedUntil
}

// disconnect closes the connection to broker: every request in flight to
// it is removed and returned, oldest first, and the broker enters
// reconnect backoff (ClusterConnectionStates.updateReconnectBackoff:
// exponential in the consecutive failures, ±20% jitter, capped).
func (n *network) disconnect(env *sim.Env, broker model.BrokerID) []*request {
	now := env.Now()
	// NetworkClient.handleTimedOutRequests and the setup timeout close the
	// socket; after a broken connection this does nothing.
	env.Close(sim.NodeID(broker))
	var failed []*request
	kept := n.reqs[:0]
	for _, r := range n.reqs {
		if r.broker == broker {
			failed = append(failed, r)
		} else {
			kept = append(kept, r)
		}
	}
	clear(n.reqs[len(kept):])
	n.reqs = kept
	c := n.conn(broker)
	if c.state == connSetup {
		c.setupFailures++
		n.setups--
	}
	c.state = connNone
	c.failures++
	b := n.backoffs
	c.blockedUntil = now + jitterCapped(env, expBackoff(b.ReconnectBackoff, b.ReconnectBackoffMax, c.failures-1), b.ReconnectBackoffMax)
	return failed
}

// timedOut returns the first broker with a request past its deadline, as
// Kafka's NetworkClient.handleTimedOutRequests finds them; the caller
// disconnects it, which fails every request on that connection.
func (n *network) timedOut(now time.Duration) (model.BrokerID, bool) {
	for _, r := range n.reqs {
		if now >= n.deadline(r) {
			return r.broker, true
		}
	}
	return model.NoBroker, false
}

// nextDeadline is the earliest request deadline, or never.
func (n *network) nextDeadline() time.Duration {
	d := model.Never
	for _, r := range n.reqs {
		d = min(d, n.deadline(r))
	}
	return d
}

// deadline is when r fails: its own timeout, or sooner the setup timeout
// of a connection that is not ready yet.
func (n *network) deadline(r *request) time.Duration {
	if n.setups == 0 {
		return r.deadline // no connection is being set up: no lookup
	}
	if c := n.conn(r.broker); c.state == connSetup {
		return min(r.deadline, c.setupDeadline)
	}
	return r.deadline
}

// leastLoaded picks the broker to ask for cluster-wide things (metadata, a
// producer id): among candidates not in reconnect backoff, the one with the
// fewest requests in flight, starting the scan at a rotating index so that
// ties spread (Kafka's NetworkClient.leastLoadedNode starts at a random
// one). It returns false when every candidate is backing off.
func (n *network) leastLoaded(candidates []model.BrokerID, now time.Duration, rr *int) (model.BrokerID, bool) {
	best, bestLoad := model.NoBroker, -1
	k := len(candidates)
	for i := 0; i < k; i++ {
		b := candidates[(*rr+i)%k]
		if !n.ready(b, now) {
			continue
		}
		if load := n.inFlight(b); bestLoad < 0 || load < bestLoad {
			best, bestLoad = b, load
		}
	}
	*rr++
	return best, bestLoad >= 0
}

// expBackoff is Kafka's ExponentialBackoff (KIP-580) without jitter:
// base·2^attempts capped at max. Jitter, where Kafka has it, is added by
// the caller from the node's random stream.
func expBackoff(base, max time.Duration, attempts int) time.Duration {
	if base <= 0 {
		return 0
	}
	d := base
	for i := 0; i < attempts && d < max; i++ {
		d *= 2
	}
	return min(d, max)
}

// jitter spreads d by ±20%, Kafka's CommonClientConfigs.RETRY_BACKOFF_JITTER,
// drawn from the node's own stream.
func jitter(env *sim.Env, d time.Duration) time.Duration {
	if d <= 0 {
		return d
	}
	f := 0.8 + 0.4*env.Rand().Float64()
	return time.Duration(float64(d) * f)
}

// jitterCapped is Kafka's ExponentialBackoff.backoff with jitter 0.2:
// the interval spread by ±20% and then capped at max, as
// ClusterConnectionStates' reconnect and connection setup backoffs are.
func jitterCapped(env *sim.Env, d, max time.Duration) time.Duration {
	return min(jitter(env, d), max)
}

// satAdd adds durations, saturating at model.Never.
func satAdd(a, b time.Duration) time.Duration {
	if b > 0 && a > model.Never-b {
		return model.Never
	}
	return a + b
}
