package client

import (
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// metadata is a client's cached view of the cluster, after Kafka's
// clients Metadata and ProducerMetadata: the live brokers, the partition
// count of each topic the client uses, and each partition's leader and
// leader epoch. Both clients share it.
//
// It is refreshed by a MetadataRequest to the least loaded broker when
// something calls for it (an unknown topic, a partition without a leader,
// NOT_LEADER_OR_FOLLOWER and the other "invalid metadata" errors, a broken
// connection, a request timeout) and every metadata.max.age.ms. Refreshes
// are spaced by retry.backoff.ms, growing exponentially to
// retry.backoff.max.ms while they fail (KIP-580), so a storm of errors
// cannot turn into a storm of requests.
//
// A broker answers from what the controller last pushed to it, which may be
// older than what the client already knows. Like Kafka since KIP-320
// (Metadata.updateLatestMetadata), the cache keeps a partition's state when
// an answer carries an older leader epoch, so a stale broker cannot send
// the client back to a deposed leader.
type metadata struct {
	bootstrap []model.BrokerID
	brokers   []model.BrokerID // live brokers from the last answer; bootstrap until then
	topics    []string         // topics of interest, sorted
	// listed is how many live brokers the last answer listed: an answer
	// that lists none (a broker that has no metadata yet) leaves brokers
	// as they were.
	listed int

	counts map[string]int32 // partition count of each known topic
	lives  map[string]int32 // each topic's life (TopicMetadata.Life), absent for 0
	// parts is every known partition's state, sorted by partition: a
	// producer asks for leaders after every event, and a binary search of
	// a few entries is cheaper than hashing a topic name.
	parts []model.PartitionState
	// ver bumps whenever parts may have changed, so that a caller can
	// keep leaders it looked up while ver stays the same.
	ver uint64

	needUpdate  bool
	inFlight    bool
	updated     bool          // an answer has been applied
	lastUpdate  time.Duration // when (node clock)
	attempted   bool
	lastAttempt time.Duration // when the last refresh was answered or failed
	failures    int           // consecutive failed attempts
	rr          int           // leastLoaded rotation

	maxAge, backoff, backoffMax, timeout time.Duration
}

func newMetadata(bootstrap []model.BrokerID, cl model.ClientConfig) metadata {
	bs := slices.Clone(bootstrap)
	slices.Sort(bs)
	bs = slices.Compact(bs)
	return metadata{
		bootstrap:  bs,
		brokers:    bs,
		counts:     map[string]int32{},
		maxAge:     cl.MetadataMaxAge,
		backoff:    cl.RetryBackoff,
		backoffMax: cl.RetryBackoffMax,
		timeout:    cl.RequestTimeout,
	}
}

// addTopic makes a topic one of interest; a new one calls for an update.
// It reports whether the topic was new.
func (m *metadata) addTopic(t string) bool {
	i, found := slices.BinarySearch(m.topics, t)
	if found {
		return false
	}
	m.topics = slices.Insert(m.topics, i, t)
	m.needUpdate = true
	return true
}

// setTopics replaces the topics of interest (the consumer's assignment).
func (m *metadata) setTopics(ts []string) {
	ts = slices.Clone(ts)
	slices.Sort(ts)
	ts = slices.Compact(ts)
	for _, t := range ts {
		if _, known := m.counts[t]; !known {
			m.needUpdate = true
		}
	}
	m.topics = ts
}

// requestUpdate asks for a refresh as soon as the backoff allows.
func (m *metadata) requestUpdate() { m.needUpdate = true }

// partitions returns the partition count of a topic, if known.
func (m *metadata) partitions(topic string) (int32, bool) {
	n, ok := m.counts[topic]
	return n, ok
}

// leader returns the partition's leader and leader epoch; NoBroker when
// unknown or leaderless.
func (m *metadata) leader(tp model.TopicPartition) (model.BrokerID, model.Epoch) {
	i, ok := m.find(tp)
	if !ok {
		return model.NoBroker, model.NoEpoch
	}
	return m.parts[i].Leader, m.parts[i].LeaderEpoch
}

// find is where tp's state is or would go in parts.
func (m *metadata) find(tp model.TopicPartition) (int, bool) {
	lo, hi := 0, len(m.parts)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if m.parts[h].TP.Compare(tp) < 0 {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo, lo < len(m.parts) && m.parts[lo].TP == tp
}

// hasLeader reports whether the partition has a known leader.
func (m *metadata) hasLeader(tp model.TopicPartition) bool {
	l, _ := m.leader(tp)
	return l != model.NoBroker
}

// dueAt is when the next refresh may be sent, or never while one is in
// flight or nothing calls for one. Kafka's Metadata.timeToNextUpdate: the
// expiry of the current view (immediately when an update is requested),
// but never before the backoff after the last refresh ended
// (lastRefreshMs + refreshBackoffMs).
func (m *metadata) dueAt() time.Duration {
	if m.inFlight || len(m.topics) == 0 {
		return model.Never
	}
	due := time.Duration(0)
	if !m.needUpdate && m.updated {
		due = satAdd(m.lastUpdate, m.maxAge)
	}
	if m.attempted {
		due = max(due, satAdd(m.lastAttempt, expBackoff(m.backoff, m.backoffMax, m.failures)))
	}
	return due
}

// maybeSend sends a MetadataRequest if one is due and a broker can take it.
func (m *metadata) maybeSend(env *sim.Env, n *network) {
	now := env.Now()
	if m.dueAt() > now {
		return
	}
	b, ok := n.leastLoaded(m.brokers, now, &m.rr)
	if !ok && !slices.Equal(m.brokers, m.bootstrap) {
		// Every broker we last heard of is backing off: the cluster may
		// have moved on without us, so try the bootstrap list too.
		b, ok = n.leastLoaded(m.bootstrap, now, &m.rr)
	}
	if !ok {
		return
	}
	topics := slices.Clone(m.topics)
	n.send(env, b, reqMetadata, m.timeout, func(corr int32) sim.Message {
		return model.MetadataRequest{CorrelationID: corr, Topics: topics}
	})
	m.inFlight = true
	m.needUpdate = false
}

// failed records a refresh that got no answer (timeout or disconnect).
func (m *metadata) failed(now time.Duration) {
	m.inFlight = false
	m.needUpdate = true
	m.failures++
	m.attempted, m.lastAttempt = true, now
}

// apply folds an answer into the cache. A consumer compares each
// partition's leader and epoch with those its position was validated
// against after every answer.
func (m *metadata) apply(r model.MetadataResponse, now time.Duration) {
	m.inFlight = false
	m.failures = 0
	m.ver++
	m.updated, m.lastUpdate = true, now
	m.attempted, m.lastAttempt = true, now
	m.listed = len(r.Brokers)
	if len(r.Brokers) > 0 {
		m.brokers = slices.Clone(r.Brokers)
		slices.Sort(m.brokers)
	}
	for i := range r.Topics {
		t := &r.Topics[i]
		if t.Error != model.NoError {
			// UNKNOWN_TOPIC_OR_PARTITION or LEADER_NOT_AVAILABLE for the
			// whole topic: keep what we knew and ask again later.
			m.needUpdate = true
			continue
		}
		switch life := m.lives[t.Topic]; {
		case t.Life < life:
			// A broker that has not replayed the deletion yet: a stale
			// view of a topic gone.
			m.needUpdate = true
			continue
		case t.Life > life:
			// The topic was deleted and created again: its partitions
			// start over, epochs from 0 (Kafka's Metadata resets the
			// last seen epochs when a topic id changes).
			m.forgetTopic(t.Topic)
			if m.lives == nil {
				m.lives = map[string]int32{}
			}
			m.lives[t.Topic] = t.Life
		}
		m.counts[t.Topic] = int32(len(t.Partitions))
		for _, p := range t.Partitions {
			j, had := m.find(p.TP)
			if had && p.LeaderEpoch < m.parts[j].LeaderEpoch {
				// A stale broker's view (KIP-320): keep ours, and if ours
				// has no leader yet, keep asking. (Skipping the answer
				// must not also skip the refresh an election calls for,
				// or the client waits a whole metadata.max.age.)
				if m.parts[j].Leader == model.NoBroker {
					m.needUpdate = true
				}
				continue
			}
			if had {
				m.parts[j] = p
			} else {
				m.parts = slices.Insert(m.parts, j, p)
			}
			if p.Leader == model.NoBroker {
				m.needUpdate = true // an election is under way
			}
		}
	}
}

// forgetTopic drops a topic's partitions from the cache.
func (m *metadata) forgetTopic(topic string) {
	delete(m.counts, topic)
	m.parts = slices.DeleteFunc(m.parts, func(p model.PartitionState) bool { return p.TP.Topic == topic })
}
