package client

import (
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// sendFetches sends one FetchRequest per leader covering the partitions it
// leads that can be fetched, after Kafka's AbstractFetch.prepareFetchRequests:
// a partition is fetched when it has a position, nothing buffered that the
// application has not polled yet, and a known leader; a leader gets a new
// fetch only when none is in flight to it. The request carries the leader
// epoch the consumer believes in (KIP-320), so a stale or too new leader
// fences it, and asks the leader to hold it fetch.max.wait.ms when nothing
// is available.
func (c *Consumer) sendFetches(env *sim.Env) {
	now := env.Now()
	type group struct {
		broker model.BrokerID
		asked  []fetchedAt
		parts  []model.FetchPartition
	}
	var groups []group // sorted by broker
	for _, tp := range c.order {
		ps := c.parts[tp]
		if ps.state != stateFetching || len(ps.buf) > 0 || ps.staleMeta {
			continue
		}
		leader, epoch := c.md.leader(tp)
		if leader == model.NoBroker || c.net.inFlightKind(leader, reqFetch) ||
			!c.net.ready(leader, now) || c.fetchWaitUntil(leader) > now {
			continue
		}
		i, found := slices.BinarySearchFunc(groups, leader, func(g group, b model.BrokerID) int { return int(g.broker) - int(b) })
		if !found {
			groups = slices.Insert(groups, i, group{broker: leader})
		}
		g := &groups[i]
		g.asked = append(g.asked, fetchedAt{tp: tp, offset: ps.position})
		g.parts = append(g.parts, model.FetchPartition{
			TP: tp, FetchOffset: ps.position, CurrentLeaderEpoch: epoch,
			LastFetchedEpoch: model.NoEpoch, LogStartOffset: model.NoOffset, MaxBytes: partitionFetchMaxBytes,
		})
	}
	for _, g := range groups {
		parts := g.parts
		// A long poll may be held fetch.max.wait.ms before the broker
		// answers, so the wait is not held against the request timeout.
		r := c.net.send(env, g.broker, reqFetch, satAdd(c.cl.RequestTimeout, c.cfg.FetchMaxWait), func(corr int32) sim.Message {
			return model.FetchRequest{
				CorrelationID: corr, ReplicaID: model.NoBroker, BrokerEpoch: model.NoEpoch,
				MaxWait: c.cfg.FetchMaxWait, MinBytes: c.cfg.FetchMinBytes, MaxBytes: fetchMaxBytes,
				Partitions: parts,
			}
		})
		r.fetch = g.asked
	}
}

// handleFetch buffers what a fetch returned for the application's next
// polls and handles partition errors, after Kafka's FetchCollector:
// records before the position (the start of a batch that straddles it) are
// skipped; data for a partition whose position moved since the request
// (seek, reset, validation) is dropped; OFFSET_OUT_OF_RANGE applies
// auto.offset.reset; the "invalid metadata" errors (NOT_LEADER_OR_FOLLOWER,
// FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH, ...) refresh metadata, and the
// partition is not fetched again until the refresh is answered, which is
// where a new leader epoch leads to validation.
func (c *Consumer) handleFetch(env *sim.Env, req *request, r *model.FetchResponse) {
	data, errs := false, r.Error != model.NoError
	for i := range r.Partitions {
		pr := &r.Partitions[i]
		k := slices.IndexFunc(req.fetch, func(f fetchedAt) bool { return f.tp == pr.TP })
		if k < 0 {
			continue
		}
		ps := c.parts[pr.TP]
		if ps == nil || ps.state != stateFetching || ps.position != req.fetch[k].offset || len(ps.buf) > 0 {
			continue
		}
		err := pr.Error
		if err == model.NoError {
			err = r.Error
		}
		switch {
		case err == model.NoError && pr.HasDiverging:
			// Consumers do not send a last fetched epoch, so a leader
			// should not answer this; if it does, it is a validation answer.
			errs = true
			ps.state = stateValidating
			c.completeValidation(env, ps, pr.DivergingEpoch.EndOffset, true, pr.DivergingEpoch.Epoch)
		case err == model.NoError:
			for j := range pr.Batches {
				b := pr.Batches[j]
				for _, rec := range b.Records {
					if rec.Offset < ps.position {
						continue
					}
					ps.buf = append(ps.buf, bufRecord{offset: rec.Offset, value: rec.Value, epoch: b.LeaderEpoch})
				}
			}
			data = data || len(ps.buf) > 0
		case err == model.OffsetOutOfRange:
			errs = true
			reason := ResetOutOfRange
			if pr.LogStartOffset >= 0 && ps.position < pr.LogStartOffset {
				reason = ResetRetention
			}
			c.startReset(env, ps, reason, err.String())
		default:
			errs = true
			ps.staleMeta = true
			c.md.requestUpdate()
		}
	}
	if r.Error != model.NoError {
		c.md.requestUpdate()
	}
	if !data && !errs {
		// An empty answer without errors means the leader held the fetch
		// for fetch.max.wait.ms and nothing came. A leader that answers
		// empty at once (a broken or fake one) would otherwise be asked
		// again at once, forever, in zero virtual time: wait what a long
		// poll would have waited.
		c.setFetchWait(req.broker, req.sent+c.cfg.FetchMaxWait)
	}
}

func (c *Consumer) fetchWaitUntil(b model.BrokerID) time.Duration {
	for _, w := range c.fetchWait {
		if w.broker == b {
			return w.at
		}
	}
	return 0
}

func (c *Consumer) setFetchWait(b model.BrokerID, at time.Duration) {
	for i := range c.fetchWait {
		if c.fetchWait[i].broker == b {
			c.fetchWait[i].at = at
			return
		}
	}
	c.fetchWait = append(c.fetchWait, brokerTime{broker: b, at: at})
}
