package broker

import (
	"cmp"
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/fetchsession"
)

// delayedFetch is a fetch parked until data arrives or its wait runs out
// (Kafka's DelayedFetch in the fetch purgatory): long polling, so that an
// idle follower costs two messages per replica.fetch.wait.max.ms rather
// than a busy loop.
type delayedFetch struct {
	id   int64
	from model.BrokerID
	// req is the fetch as read: the request itself (shared with the
	// sender: read only), or for an incremental fetch one over its whole
	// session; ctx is its fetch session context.
	req      *model.FetchRequest
	ctx      fetchsession.Context
	deadline time.Duration // when its wait runs out (node clock)
	done     bool
	// links counts the partitions' delayed lists that still hold it: a
	// fetch answered by one partition's wake stays in the others' lists,
	// marked done, until they sweep it out. Once done and in no list it
	// goes back to the broker's free list (see unlinkFetch): nearly every
	// follower fetch is parked, and a parking record per fetch was one
	// in seven of BenchmarkCluster's allocations.
	links int
}

// handleFetch serves a follower's or a consumer's fetch as leader
// (ReplicaManager.fetchMessages / Partition.fetchRecords).
func (b *Broker) handleFetch(from model.BrokerID, in *model.FetchRequest) {
	b.fetchForgotten = in.Forgotten
	ctx, m := b.fetchContext(in)
	if ctx.Kind == fetchsession.SessionError {
		b.sessionError(from, in, ctx)
		return
	}
	if m.ReplicaID != model.NoBroker {
		// Record where each follower is before building the answer: its
		// fetch offset is its log end, which may move the high watermark
		// and let it rejoin the ISR (Partition.updateFollowerFetchState).
		if ctx.Tracked() {
			b.recordFollowerFetches(ctx.Session(), m.Partitions, m.ReplicaID, m.BrokerEpoch)
		} else {
			for i := range m.Partitions {
				b.recordFollowerFetch(&m.Partitions[i], m.ReplicaID, m.BrokerEpoch, nil)
			}
		}
	}
	// A fetch of no partition (an incremental one that only forgets) is
	// answered at once, as ReplicaManager.fetchMessages answers one with
	// nothing to read.
	if ready := b.readFetch(ctx, m); m.MaxWait <= 0 || ready || len(m.Partitions) == 0 {
		b.send(from, b.answerFetch(ctx, m))
		return
	}
	b.nextWaitID++
	df := b.newDelayedFetch()
	*df = delayedFetch{id: b.nextWaitID, from: from, req: m, ctx: ctx, deadline: b.now() + m.MaxWait}
	b.fetches = append(b.fetches, df)
	if ctx.Tracked() {
		// Parked in its session, which learns of every change to its
		// partitions (see wakeFetches): no list per partition to join.
		b.parked[ctx.Session().ID] = df
	} else {
		b.linkFetch(df)
	}
	b.armFetchWait(df.deadline)
}

// linkFetch parks df on the delayed list of every partition it reads, for
// a fetch outside a tracked session (DelayedFetch's watch keys, one per
// partition, in Kafka's purgatory).
func (b *Broker) linkFetch(df *delayedFetch) {
	for i := range df.req.Partitions {
		if p := b.part(df.req.Partitions[i].TP); p != nil {
			p.delayed = append(p.delayed, df)
			df.links++
		}
	}
}

// newDelayedFetch takes a parking record from the free list, or makes one.
func (b *Broker) newDelayedFetch() *delayedFetch {
	if n := len(b.freeFetches); n > 0 {
		df := b.freeFetches[n-1]
		b.freeFetches[n-1] = nil
		b.freeFetches = b.freeFetches[:n-1]
		return df
	}
	return &delayedFetch{}
}

// unlinkFetch records that one partition's delayed list dropped df, and
// frees df when it is answered and no list holds it any more. A record
// in no list is referenced by nothing but the free list: b.fetches drops a
// fetch when it marks it done (finishFetch, dropRequestsFrom).
func (b *Broker) unlinkFetch(df *delayedFetch) {
	df.links--
	b.maybeFreeFetch(df)
}

func (b *Broker) maybeFreeFetch(df *delayedFetch) {
	if df.done && df.links == 0 {
		*df = delayedFetch{}
		b.freeFetches = append(b.freeFetches, df)
	}
}

// armFetchWait makes sure the fetch purgatory's timer fires no later than
// deadline. Nearly every parked fetch is answered within milliseconds, when
// data arrives, long before its replica.fetch.wait.max.ms runs out: a timer
// per fetch would be armed and cancelled for nearly every replication round
// trip, a dead event in the kernel's queue each. One timer at the earliest
// deadline still answers every fetch whose wait runs out at exactly its
// deadline, as Kafka's purgatory (a timing wheel) expires it then.
func (b *Broker) armFetchWait(deadline time.Duration) {
	if b.fetchTimer != 0 && b.fetchAt <= deadline {
		return
	}
	b.env.Cancel(b.fetchTimer)
	b.fetchAt = deadline
	b.fetchTimer = b.env.After(deadline-b.now(), timerFetchWait, 0)
}

// readFetch reads the answer to a fetch from the current state into
// b.fetchRead, and reports whether it should go now: it carries the
// fetch's min bytes of records, an error or a divergence. fetchAnswer then makes it the answer. A parked
// fetch is read again whenever its partition changes, and most reads find
// nothing to send yet: reading into the broker's own list rather than an
// answer leaves the room the request brought for its answer (see
// model.NewFetchResponseFor) to the answer that is sent.
//
// A fetch in a tracked session (fetchsession.Context.Tracked) reads only
// the session's dirty partitions: every other one would read as it did
// last, with nothing to answer and nothing toward the fetch's min bytes,
// so the readiness and the answer are those of a read of all of them.
// Kafka reads every partition of the session on every fetch and every
// DelayedFetch.tryComplete (IncrementalFetchContext.foreachPartition,
// ReplicaManager.readFromLog), then leaves the unchanged ones out
// (CachedPartition.maybeUpdateResponseData); kafkasim skips reading them.
func (b *Broker) readFetch(ctx fetchsession.Context, m *model.FetchRequest) bool {
	b.fetchTracked = ctx.Tracked()
	if !b.fetchTracked {
		return b.readParts(m, m.Partitions)
	}
	s := ctx.Session()
	b.dirtyParts, b.fetchPos = s.Dirty(b.dirtyParts[:0], b.fetchPos[:0])
	ready := b.readParts(m, b.dirtyParts)
	if CheckIncremental {
		b.checkTrackedRead(s, m, ready)
	}
	s.Settle(b.fetchPos, b.fetchRead)
	return ready
}

// readParts is readFetch of parts, the partitions of m to read.
func (b *Broker) readParts(m *model.FetchRequest, fps []model.FetchPartition) bool {
	follower := m.ReplicaID != model.NoBroker
	parts := b.fetchRead[:0]
	if cap(parts) < len(fps) {
		// Room for the whole answer up front: an answer that does not
		// fit the request's room takes this array (see fetchAnswer).
		parts = make([]model.FetchPartitionResponse, 0, len(fps))
	}
	ready := false
	var readable int64 // bytes read, while they matter (min bytes above 1)
	for i := range fps {
		fp := &fps[i]
		// Filled where it lies rather than built and copied in.
		parts = append(parts, model.FetchPartitionResponse{TP: fp.TP, HighWatermark: model.NoOffset, LogStartOffset: model.NoOffset})
		pr := &parts[len(parts)-1]
		p := b.part(fp.TP)
		switch {
		case p == nil && !b.knows(fp.TP):
			pr.Error = model.UnknownTopicOrPartition
		case p == nil || !p.isLeader:
			pr.Error = model.NotLeaderOrFollower
		default:
			pr.Error = b.fenceCheck(p, fp.CurrentLeaderEpoch)
		}
		if pr.Error != model.NoError {
			ready = true
			continue
		}
		pr.HighWatermark = p.hw
		pr.LogStartOffset = p.log.LogStartOffset()
		if follower {
			if div, diverged := b.divergence(p, fp); diverged {
				pr.HasDiverging = true
				pr.DivergingEpoch = div
				ready = true
				continue
			}
		}
		// Followers read to the log end, consumers to the high
		// watermark only: a consumer never sees an uncommitted record.
		end := p.hw
		if follower {
			end = p.log.LEO()
		} else if m.IsolationLevel == model.ReadCommitted {
			// read_committed: to the last stable offset
			// (FetchIsolation.TXN_COMMITTED in UnifiedLog.read).
			end = p.log.LastStableOffset(p.hw)
			pr.Txn = &model.FetchTxnState{LastStableOffset: end}
		}
		if fp.FetchOffset < p.log.LogStartOffset() || fp.FetchOffset > p.log.LEO() {
			pr.Error = model.OffsetOutOfRange
			ready = true
		} else if fp.FetchOffset < end {
			max := int(fp.MaxBytes)
			if max <= 0 {
				max = int(b.cfg.Kafka.Broker.ReplicaFetchMaxBytes)
			}
			if m.MinBytes <= 1 {
				// Any batch is at least one byte: no need to count.
				pr.Batches = p.log.ReadUpTo(fp.FetchOffset, max, end)
				ready = ready || len(pr.Batches) > 0
			} else {
				var n int64
				pr.Batches, n = p.log.ReadUpToSized(fp.FetchOffset, max, end)
				readable += n
			}
			if pr.Txn != nil && len(pr.Batches) > 0 {
				pr.Txn.Aborted = abortedTransactions(p, fp.FetchOffset, pr.Batches[len(pr.Batches)-1].NextOffset())
			}
		}
	}
	b.fetchRead = parts
	// The leader answers at once on an error or a divergence, or once the
	// bytes readable reach the fetch's min bytes (fetch.min.bytes for a
	// consumer, replica.fetch.min.bytes for a follower), as
	// ReplicaManager.fetchMessages and DelayedFetch.tryComplete do; a fetch
	// asking for 0 bytes is answered at once.
	return ready || readable >= int64(m.MinBytes)
}

// fetchAnswer is the answer to m that the last readFetch of m read.
func (b *Broker) fetchAnswer(m *model.FetchRequest) *model.FetchResponse {
	if n := len(b.fetchRead); n > 1 {
		// Too many partitions for the request's room: rather than copy
		// every partition's answer into a new array, the answer takes the
		// array read into, and the next read makes another. A follower's
		// fetch names every partition it follows from this leader.
		resp := model.NewFetchResponse(0)
		resp.CorrelationID = m.CorrelationID
		resp.Partitions = b.fetchRead[:n:n]
		b.fetchRead = nil
		return resp
	}
	resp := model.NewFetchResponseFor(m, len(b.fetchRead))
	resp.CorrelationID = m.CorrelationID
	resp.Partitions = append(resp.Partitions, b.fetchRead...)
	clear(b.fetchRead) // the batches read are the answer's now
	b.fetchRead = b.fetchRead[:0]
	return resp
}

// fenceCheck compares the requester's idea of the leader epoch with ours
// (KIP-320): an older one is fenced, a newer one means our metadata lags.
func (b *Broker) fenceCheck(p *partition, current model.Epoch) model.ErrorCode {
	switch {
	case current == model.NoEpoch:
		return model.NoError
	case current < p.leaderEpoch:
		return model.FencedLeaderEpoch
	case current > p.leaderEpoch:
		return model.UnknownLeaderEpoch
	}
	return model.NoError
}

// divergence checks a follower's last fetched epoch against our epoch
// cache (the KIP-279-fixed protocol, in fetch responses since Kafka 2.7):
// if that epoch ends earlier here than where the follower fetches, or we
// never had it, the follower must truncate first.
func (b *Broker) divergence(p *partition, fp *model.FetchPartition) (model.EpochEndOffset, bool) {
	if fp.LastFetchedEpoch == model.NoEpoch || b.cfg.Kafka.Broker.Truncation != model.TruncateLeaderEpoch {
		return model.EpochEndOffset{}, false
	}
	e, end := p.log.EndOffsetFor(fp.LastFetchedEpoch)
	if e < fp.LastFetchedEpoch || end < fp.FetchOffset {
		return model.EpochEndOffset{Epoch: e, EndOffset: end}, true
	}
	return model.EpochEndOffset{}, false
}

// wakeFetches re-reads every fetch parked on a partition and answers those
// that now have something to return (DelayedFetch.tryComplete for the
// watchers of the partition's key), in the order they were parked: those
// parked on the partition's own list and those parked in a tracked session
// that holds it.
func (b *Broker) wakeFetches(p *partition) {
	b.partChanged(p)
	wake := b.wakeBuf[:0]
	for _, df := range p.delayed {
		if !df.done {
			wake = append(wake, df)
		}
	}
	if b.sessions != nil && len(b.parked) > 0 {
		for _, s := range b.sessions.Holders(p.tp) {
			if df := b.parked[s.ID]; df != nil {
				wake = append(wake, df)
			}
		}
	}
	if len(wake) > 1 {
		slices.SortFunc(wake, func(x, y *delayedFetch) int { return cmp.Compare(x.id, y.id) })
	}
	for _, df := range wake {
		if b.readFetch(df.ctx, df.req) {
			b.finishFetch(df, b.answerFetch(df.ctx, df.req))
		}
	}
	clear(wake)
	b.wakeBuf = wake[:0]
	if len(p.delayed) > 0 {
		b.sweepDelayed(p)
	}
}

// partChanged tells the fetch sessions holding p that it changed (each
// reads it again at its next read: fetchsession.Cache.Changed) and the
// fetcher fetching it (followChanged).
func (b *Broker) partChanged(p *partition) {
	freezeFollowers(p)
	if b.sessions != nil {
		b.sessions.Changed(p.tp)
	}
	b.followChanged(p)
}

// sweepDelayed drops the answered fetches from a partition's delayed list.
func (b *Broker) sweepDelayed(p *partition) {
	k := 0
	for _, df := range p.delayed {
		if df.done {
			b.unlinkFetch(df)
			continue
		}
		p.delayed[k] = df
		k++
	}
	clear(p.delayed[k:])
	p.delayed = p.delayed[:k]
}

// finishFetch sends a parked fetch's answer and takes it out of the
// purgatory. It stays in the partitions' delayed lists, marked done, until
// their next wake or expiry sweeps it out.
func (b *Broker) finishFetch(df *delayedFetch, resp *model.FetchResponse) {
	b.unpark(df)
	df.done = true
	for i, x := range b.fetches {
		if x == df {
			b.fetches = slices.Delete(b.fetches, i, i+1) // clears the freed slot
			break
		}
	}
	b.send(df.from, resp)
	b.maybeFreeFetch(df) // parked on no partition this broker has
}

// expireFetches answers every parked fetch whose wait ran out, with
// whatever there is (usually nothing but the current high watermark), in
// the order their deadlines came (the order of their own timers, had each
// one its own), and re-arms for the next deadline.
func (b *Broker) expireFetches() {
	b.fetchTimer = 0
	now := b.now()
	for {
		var first *delayedFetch
		for _, df := range b.fetches {
			if df.deadline <= now && (first == nil || df.deadline < first.deadline) {
				first = df // ties keep parking order, which is id order
			}
		}
		if first == nil {
			break
		}
		req, linked := first.req, first.links > 0 // finishing may free first
		b.readFetch(first.ctx, req)
		b.finishFetch(first, b.answerFetch(first.ctx, req))
		for i := 0; linked && i < len(req.Partitions); i++ {
			if p := b.part(req.Partitions[i].TP); p != nil {
				b.sweepDelayed(p)
			}
		}
	}
	if len(b.fetches) > 0 {
		next := b.fetches[0].deadline
		for _, df := range b.fetches[1:] {
			next = min(next, df.deadline)
		}
		b.armFetchWait(next)
	}
}

// abortedTransactions is UnifiedLog.collectAbortedTransactions for a
// read_committed fetch: the aborted transactions overlapping the offsets
// read, as the response lists them (producer id and first offset).
func abortedTransactions(p *partition, from, upTo model.Offset) []model.AbortedTransaction {
	txns := p.log.CollectAbortedTransactions(from, upTo)
	if len(txns) == 0 {
		return nil
	}
	out := make([]model.AbortedTransaction, len(txns))
	for i, t := range txns {
		out[i] = model.AbortedTransaction{ProducerID: t.ProducerID, FirstOffset: t.FirstOffset}
	}
	return out
}
