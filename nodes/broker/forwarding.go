package broker

import (
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// Client requests forwarded to the active controller. In KRaft a client
// never reaches the controllers: a broker takes its CreateTopics
// (KafkaApis.handleCreateTopicsRequest, which forwards it to the
// controller) and hands it to its ForwardingManager. That wraps it in an
// Envelope and queues it on the "forwarding" NodeToControllerChannelManager,
// which sends one request at a time to the active controller
// (ControllerApis.handleCreateTopics answers there) and relays the answer
// to the client under the client's correlation id. The channel retries on
// its own, so a client sees neither a controller change nor a controller
// crash (NodeToControllerRequestThread.handleResponse):
//
//   - a broken connection, or an attempt that timed out on it: the request
//     goes back to the head of the queue;
//   - an answer carrying NOT_CONTROLLER: the same, and the controller is
//     forgotten (the controller turns any NOT_CONTROLLER in the inner
//     answer into an envelope NOT_CONTROLLER for this purpose:
//     RequestChannel.Request.buildResponseSend);
//   - a request queued for longer than retryTimeoutMs is answered
//     REQUEST_TIMED_OUT for every topic (ForwardingResponseHandler.onTimeout
//     with CreateTopicsRequest.getErrorResponse(TimeoutException)), found
//     when the channel looks for its next request (generateRequests).
//
// Kafka resends at once to whatever controller the quorum then names, and
// pauses 100 ms only when it knows none. Here every retry pauses
// controllerRediscover, so that a controller still taking office (which
// answers NOT_CONTROLLER) or one that just died (whose connection is
// refused) is not asked again every round trip until the quorum moves on.
//
// The broker's own requests to the controller (registration, heartbeats,
// AlterPartition, the offsets topic's creation) keep their own paths.

// forwarder is the broker's forwarding channel.
type forwarder struct {
	queue    []forwarded // oldest first; queue[0] is in flight when inflight is set
	inflight bool
	corr     int32          // the attempt in flight's correlation id
	to       model.BrokerID // the controller it went to
	timeout  sim.TimerID    // the attempt in flight's timeout
	retry    sim.TimerID    // the pause before the next attempt, 0 when none
}

// forwarded is one client request in the channel: Kafka's
// NodeToControllerQueueItem with its ForwardingResponseHandler.
type forwarded struct {
	client  model.BrokerID
	req     model.CreateTopicsRequest
	created time.Duration // node clock
	// clientGone: the client's connection broke, so the answer is dropped
	// (Kafka still completes the request at the controller).
	clientGone bool
}

const (
	// forwardRetryTimeout is the forwarding channel's retryTimeoutMs
	// (BrokerServer builds it with 60 s).
	forwardRetryTimeout = 60 * time.Second
	// forwardAttemptTimeout is one attempt's request timeout:
	// min(controller.socket.timeout.ms, retryTimeoutMs), Kafka's default
	// 30 s (NodeToControllerRequestThread's constructor).
	forwardAttemptTimeout = 30 * time.Second
	timerForwardTimeout   = "forward-timeout"
	timerForwardRetry     = "forward-retry"
)

// handleCreateTopics takes a client's CreateTopics and forwards it. A
// broker that has not yet caught up refuses the connection instead:
// BrokerServer.startup enables request processing
// (SocketServer.enableRequestProcessing) only once the controller has
// acknowledged the broker caught up (BrokerLifecycleManager's
// initialCatchUpFuture), which is when b.serving is set. (On the
// announcing network, network.tcp=false, there is no connection to close
// and the client waits for its request timeout.) A fenced broker that has
// caught up forwards, as Kafka's does.
func (b *Broker) handleCreateTopics(from model.BrokerID, m model.CreateTopicsRequest) {
	if !b.serving {
		b.env.Close(sim.NodeID(from))
		return
	}
	b.fwd.queue = append(b.fwd.queue, forwarded{client: from, req: m, created: b.now()})
	b.pumpForwarded()
}

// pumpForwarded sends the request at the head of the queue unless one is
// in flight or a retry pause runs, as generateRequests does: requests that
// have waited retryTimeoutMs are answered REQUEST_TIMED_OUT first, and
// while no controller is known the queue waits.
func (b *Broker) pumpForwarded() {
	f := &b.fwd
	if f.inflight || f.retry != 0 {
		return
	}
	// Requests queue in arrival order and a retried one keeps its place
	// at the head, so the expired ones are a prefix.
	for len(f.queue) > 0 && b.now()-f.queue[0].created >= forwardRetryTimeout {
		r := f.popForwarded()
		b.relayForwarded(r, forwardTimedOut(r.req))
	}
	if len(f.queue) == 0 {
		return
	}
	c := b.controller()
	if c == model.NoBroker {
		b.retryForwardedLater()
		return
	}
	f.inflight, f.to, f.corr = true, c, b.nextCorr()
	b.send(c, model.CreateTopicsRequest{CorrelationID: f.corr, Topics: f.queue[0].req.Topics})
	f.timeout = b.env.After(forwardAttemptTimeout, timerForwardTimeout, int64(f.corr))
}

// forwardTimedOut is the answer to a request that waited too long:
// REQUEST_TIMED_OUT for each of its topics.
func forwardTimedOut(req model.CreateTopicsRequest) model.CreateTopicsResponse {
	var resp model.CreateTopicsResponse
	for _, t := range req.Topics {
		resp.Topics = append(resp.Topics, model.TopicResult{Name: t.Name, Error: model.RequestTimedOut})
	}
	return resp
}

// handleCreateTopicsResponse takes the controller's answer to a forwarded
// request, or else to the broker's own request for the offsets topic.
func (b *Broker) handleCreateTopicsResponse(from model.BrokerID, m model.CreateTopicsResponse) {
	f := &b.fwd
	if !f.inflight || m.CorrelationID != f.corr {
		if !b.txnStateTopicCreated(m) {
			b.offsetsTopicCreated(from, m)
		}
		return
	}
	f.inflight = false
	b.env.Cancel(f.timeout)
	for _, t := range m.Topics {
		if t.Error == model.NotController {
			b.env.Trace("forward-retry", "NOT_CONTROLLER from "+from.String())
			b.retryForwardedLater()
			return
		}
	}
	b.relayForwarded(f.popForwarded(), m)
	b.pumpForwarded()
}

// forwardAttemptLost puts the attempt in flight back at the head of the
// queue: its connection broke or it timed out. (Kafka's NetworkClient also
// closes the connection of a request that timed out; the forwarding
// channel has a connection of its own there, while here one connection
// also carries the broker's heartbeats, so it is left open and a late
// answer is dropped by its correlation id.)
func (b *Broker) forwardAttemptLost(why string) {
	f := &b.fwd
	f.inflight = false
	b.env.Cancel(f.timeout)
	b.env.Trace("forward-retry", why)
	b.retryForwardedLater()
}

// retryForwardedLater arms the pause before the next attempt.
func (b *Broker) retryForwardedLater() {
	if b.fwd.retry == 0 {
		b.fwd.retry = b.env.After(controllerRediscover, timerForwardRetry, 0)
	}
}

// fireForwarding handles the forwarding channel's timers.
func (b *Broker) fireForwarding(t sim.Timer) {
	f := &b.fwd
	switch {
	case t.Kind == timerForwardRetry && t.ID == f.retry:
		f.retry = 0
		b.pumpForwarded()
	case t.Kind == timerForwardTimeout && f.inflight && int32(t.Arg) == f.corr:
		b.forwardAttemptLost("timeout")
	}
}

// forwardingPeerGone handles a broken connection: to the controller an
// attempt is in flight to, the attempt is lost; to a client, its answers
// will not be sent.
func (b *Broker) forwardingPeerGone(peer model.BrokerID) {
	f := &b.fwd
	if f.inflight && peer == f.to {
		b.forwardAttemptLost("disconnected from " + peer.String())
	}
	for i := range f.queue {
		if f.queue[i].client == peer {
			f.queue[i].clientGone = true
		}
	}
}

// relayForwarded answers the client of r with the controller's answer,
// under the client's correlation id.
func (b *Broker) relayForwarded(r forwarded, answer model.CreateTopicsResponse) {
	if r.clientGone {
		return
	}
	answer.CorrelationID = r.req.CorrelationID
	b.send(r.client, answer)
}

// popForwarded removes and returns the head of the queue.
func (f *forwarder) popForwarded() forwarded {
	r := f.queue[0]
	f.queue[0] = forwarded{}
	f.queue = f.queue[1:]
	return r
}
