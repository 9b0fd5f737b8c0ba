package client

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// Admin is a simulated admin client node: KafkaAdminClient.createTopics
// as an application that sets a cluster up calls it, followed by what
// that application does before it produces, waiting until the metadata
// shows every partition of its topics with a leader.
//
// The call follows KafkaAdminClient's Call (getCreateTopicsCall):
//
//   - it waits for a first metadata answer (the node provider's
//     metadataManager.isReady) and sends one CreateTopics for every topic
//     still without an outcome, with the request timeout cut to what is
//     left of the call's deadline (default.api.timeout.ms);
//   - an answer naming NOT_CONTROLLER for any topic fails the whole
//     attempt (handleNotControllerError, which also asks for metadata to
//     find the controller again: here any broker will do, and the broker
//     list of the first answer serves the whole call), as a broken
//     connection or a
//     request timeout does; a failed attempt is retried after
//     retry.backoff.ms, growing exponentially to retry.backoff.max.ms with
//     ±20% jitter (Call.fail), until the deadline, when every topic left
//     fails with a timeout (REQUEST_TIMED_OUT here);
//   - any other per-topic answer is that topic's outcome: NONE,
//     TOPIC_ALREADY_EXISTS (also what a retry gets for a topic an attempt
//     whose answer was lost did create), INVALID_REPLICATION_FACTOR, ...
//     (THROTTLING_QUOTA_EXCEEDED, which Kafka retries, is never answered
//     here: there are no quotas).
//
// Kafka's ControllerNodeProvider sends to the controller the metadata
// names, which a KRaft broker reports as a random live broker
// (KRaftMetadataCache.getControllerId, KIP-590: clients cannot reach the
// controllers), and that broker forwards the request. This cluster's
// Metadata answer names the real controller instead, so the admin client
// sends to the least loaded live broker, which plays that random broker's
// part.
type Admin struct {
	opts AdminOptions
	cl   model.ClientConfig
	res  *CreateTopicsResult

	net  network
	md   metadata
	wake wake
	rr   int // leastLoaded rotation

	// The createTopics call: each topic's outcome (outcome[i] for
	// opts.Topics[i]), which ones still have none, and the call's
	// deadline, attempts and retry backoff (node clock).
	outcome  []model.ErrorCode
	pending  []int
	deadline time.Duration
	tries    int
	nextTry  time.Duration
	inFlight bool
}

// CreateTopicsResult is what the admin application learns: the outcome of
// each topic (Kafka's CreateTopicsResult futures), then that the topics it
// can use are ready.
type CreateTopicsResult struct {
	// Topics is each topic's outcome, in AdminOptions.Topics order, set
	// once the call has completed every topic.
	Topics []model.TopicResult
	// Done says the call completed and the metadata shows every partition
	// of every topic that exists (NONE or TOPIC_ALREADY_EXISTS) with a
	// leader; DoneAt is when, in true virtual time.
	Done   bool
	DoneAt time.Duration
}

// Err is nil when every topic was created or already existed, else names
// the topics that failed and why. Before the call completes it says so.
func (r *CreateTopicsResult) Err() error {
	if len(r.Topics) == 0 && !r.Done {
		return fmt.Errorf("createTopics has not completed")
	}
	var bad []string
	for _, t := range r.Topics {
		if !topicExists(t.Error) {
			bad = append(bad, t.Name+": "+t.Error.String())
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("createTopics failed for %s", strings.Join(bad, ", "))
	}
	return nil
}

// topicExists says a topic's outcome leaves it in the cluster.
func topicExists(code model.ErrorCode) bool {
	return code == model.NoError || code == model.TopicAlreadyExists
}

// NewAdmin builds an admin client. Use it inside the node's factory, so
// that each incarnation starts from nothing, as a restarted process does.
func NewAdmin(opts AdminOptions) *Admin {
	checkAdmin(&opts)
	if opts.APITimeout <= 0 {
		opts.APITimeout = defaultAPITimeout
	}
	a := &Admin{opts: opts, cl: opts.Config.Client, res: opts.Result}
	a.md = newMetadata(opts.Bootstrap, a.cl)
	return a
}

// Start boots the admin client. A first incarnation calls createTopics; a
// restarted one whose predecessor completed the call only waits for the
// topics again, as an application that recorded its set-up would.
func (a *Admin) Start(env *sim.Env) {
	a.net = newNetwork(env, a.cl)
	if a.res.Done {
		return
	}
	switch {
	case len(a.res.Topics) > 0:
		a.md.setTopics(a.existing())
	case len(a.opts.Topics) == 0:
		a.complete(env, model.NoError)
	default:
		a.outcome = make([]model.ErrorCode, len(a.opts.Topics))
		var names []string
		for i, t := range a.opts.Topics {
			a.pending = append(a.pending, i)
			names = append(names, t.Name)
		}
		a.deadline = satAdd(env.Now(), a.opts.APITimeout)
		a.md.setTopics(names)
	}
	a.run(env)
}

// Receive handles a broker's answer.
func (a *Admin) Receive(env *sim.Env, from sim.NodeID, m sim.Message) {
	broker := model.BrokerID(from)
	if a.net.heard(broker, m) {
		a.run(env)
		return
	}
	switch r := m.(type) {
	case model.MetadataResponse:
		if req := a.net.complete(broker, r.CorrelationID); req != nil && req.kind == reqMetadata {
			a.md.apply(r, env.Now())
		}
	case model.CreateTopicsResponse:
		if req := a.net.complete(broker, r.CorrelationID); req != nil && req.kind == reqCreateTopics {
			a.createTopicsAnswered(env, r)
		}
	}
	a.run(env)
}

// Fire handles the wake timer.
func (a *Admin) Fire(env *sim.Env, t sim.Timer) {
	if t.Kind == timerWake {
		a.wake.fired(t)
	}
	a.run(env)
}

// Disconnected fails the requests in flight to the peer.
func (a *Admin) Disconnected(env *sim.Env, peer sim.NodeID) {
	a.brokerFailed(env, model.BrokerID(peer))
	a.run(env)
}

// run is one pass of the admin client's work after every event: time out
// requests, send the call's next attempt, see whether the topics are
// ready, refresh metadata, and arm the wake timer.
func (a *Admin) run(env *sim.Env) {
	now := env.Now()
	for {
		b, ok := a.net.timedOut(now)
		if !ok {
			break
		}
		a.brokerFailed(env, b)
	}
	if len(a.pending) > 0 {
		switch {
		case a.brokersReady():
			// An answer gave the brokers, which is all the call needs:
			// the topics' own metadata is asked for once it ends.
			a.md.setTopics(nil)
		case a.md.updated:
			// Too few brokers yet: ask again once the backoff allows.
			a.md.requestUpdate()
		}
		a.sendCreateTopics(env, now)
	}
	if len(a.res.Topics) > 0 && !a.res.Done {
		a.checkReady(env)
	}
	a.md.maybeSend(env, &a.net)
	a.wake.arm(env, a.nextDeadline(now))
}

// sendCreateTopics sends the call's next attempt when it may go: not while
// one is in flight or the retry backoff runs, not before metadata has
// answered, and only to a broker that is not in reconnect backoff. A call
// past its deadline fails instead (TimeoutProcessor).
func (a *Admin) sendCreateTopics(env *sim.Env, now time.Duration) {
	switch {
	case a.inFlight:
		return
	case now >= a.deadline:
		a.complete(env, model.RequestTimedOut)
		return
	case now < a.nextTry || !a.brokersReady():
		return
	}
	b, ok := a.net.leastLoaded(a.md.brokers, now, &a.rr)
	if !ok {
		return
	}
	specs := make([]model.TopicSpec, 0, len(a.pending))
	for _, i := range a.pending {
		specs = append(specs, a.opts.Topics[i])
	}
	slices.SortFunc(specs, func(x, y model.TopicSpec) int { return strings.Compare(x.Name, y.Name) })
	a.net.send(env, b, reqCreateTopics, min(a.cl.RequestTimeout, a.deadline-now), func(corr int32) sim.Message {
		return model.CreateTopicsRequest{CorrelationID: corr, Topics: specs}
	})
	a.inFlight = true
}

// brokersReady says metadata has answered, its last answer listing at
// least opts.WaitForBrokers live brokers.
func (a *Admin) brokersReady() bool {
	return a.md.updated && a.md.listed >= a.opts.WaitForBrokers
}

// createTopicsAnswered takes a broker's answer to the call's attempt.
func (a *Admin) createTopicsAnswered(env *sim.Env, r model.CreateTopicsResponse) {
	a.inFlight = false
	for _, t := range r.Topics {
		if t.Error == model.NotController {
			a.attemptFailed(env)
			return
		}
	}
	for _, i := range a.pending {
		// A topic the answer leaves out fails (completeUnrealizedFutures:
		// "The controller response did not contain a result").
		a.outcome[i] = model.UnknownServerError
		for _, t := range r.Topics {
			if t.Name == a.opts.Topics[i].Name {
				a.outcome[i] = t.Error
			}
		}
	}
	a.pending = nil
	a.complete(env, model.NoError)
}

// attemptFailed is Call.fail for a retriable failure: the next attempt
// waits for the backoff, unless the deadline has passed, which fails every
// topic left.
func (a *Admin) attemptFailed(env *sim.Env) {
	now := env.Now()
	a.nextTry = now + jitterCapped(env, expBackoff(a.cl.RetryBackoff, a.cl.RetryBackoffMax, a.tries), a.cl.RetryBackoffMax)
	a.tries++
	if now >= a.deadline {
		a.complete(env, model.RequestTimedOut)
	}
}

// complete ends the call: the topics still pending get code (a timeout),
// the outcomes go to the result, and the wait for leaders begins on the
// topics that exist.
func (a *Admin) complete(env *sim.Env, code model.ErrorCode) {
	for _, i := range a.pending {
		a.outcome[i] = code
	}
	a.pending = nil
	for i, t := range a.opts.Topics {
		a.res.Topics = append(a.res.Topics, model.TopicResult{Name: t.Name, Error: a.outcome[i]})
	}
	a.md.setTopics(a.existing())
	a.checkReady(env)
}

// existing lists the topics the result says exist.
func (a *Admin) existing() []string {
	var names []string
	for _, t := range a.res.Topics {
		if topicExists(t.Error) {
			names = append(names, t.Name)
		}
	}
	return names
}

// checkReady marks the result done once the metadata shows every
// partition of every existing topic with a leader; until then the
// metadata keeps being refreshed (an unknown topic or a leaderless
// partition calls for it). Once done, the client stops asking.
func (a *Admin) checkReady(env *sim.Env) {
	for _, t := range a.existing() {
		n, ok := a.md.partitions(t)
		if !ok || n == 0 {
			return
		}
		for p := int32(0); p < n; p++ {
			if !a.md.hasLeader(model.TP(t, p)) {
				return
			}
		}
	}
	a.res.Done, a.res.DoneAt = true, env.ObserverNow()
	a.md.setTopics(nil)
}

// brokerFailed closes the connection to a broker: its requests fail, and
// the call's attempt among them is retried.
func (a *Admin) brokerFailed(env *sim.Env, broker model.BrokerID) {
	for _, r := range a.net.disconnect(env, broker) {
		switch r.kind {
		case reqMetadata:
			a.md.failed(env.Now())
		case reqCreateTopics:
			a.inFlight = false
			a.attemptFailed(env)
		}
	}
}

// nextDeadline is when run next has something to do.
func (a *Admin) nextDeadline(now time.Duration) time.Duration {
	d := model.Never
	later := func(t time.Duration) {
		if t > now && t < d {
			d = t
		}
	}
	later(a.net.nextDeadline())
	later(a.md.dueAt())
	if len(a.pending) > 0 && !a.inFlight {
		later(a.nextTry)
		later(a.deadline)
		later(a.net.nextUnblock(now))
	}
	return d
}
