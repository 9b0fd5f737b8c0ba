package broker

import (
	"slices"
	"sort"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/fetchsession"
	"kafkasim/sim"
)

// fetcher is a follower's replica fetcher for one leader broker (Kafka's
// ReplicaFetcherThread): one fetch in flight at a time, covering every
// partition this broker follows on that leader.
type fetcher struct {
	leader   model.BrokerID
	tps      []model.TopicPartition // sorted
	inflight bool
	corr     int32
	sentAt   time.Duration
	timeout  sim.TimerID // armed lazily: at most one per fetcher
	// connected says the leader answered on the current connection;
	// until then a fetch fails after replica.socket.timeout.ms, the
	// bound BrokerBlockingSender.sendRequest puts on awaitReady.
	connected bool
	backoff   sim.TimerID
	// last is the request this fetcher built last, and reusable says
	// nothing can read it any more (it was never sent, or its answer came
	// back and was handled: a duplicate on a datagram link is the
	// network's own clone, see sim.Cloner), so the next fetch reuses its
	// memory (model.ReuseFetchRequest).
	last     *model.FetchRequest
	reusable bool
	// session is the fetcher's fetch session with the leader
	// (ReplicaFetcherThread's FetchSessionHandler), and want the
	// partitions the fetch being built would fetch (scratch).
	session fetchsession.Handler
	want    []model.FetchPartition
	// wantOK says want is up to date but for the partitions in changed
	// (see refreshWant), and wantAt is where each partition is in want;
	// changedAt is refreshWant's scratch.
	wantOK    bool
	wantAt    map[model.TopicPartition]int
	changed   []model.TopicPartition
	changedAt []int
}

func (b *Broker) startFollowing(p *partition) {
	f := b.fetchers[p.leader]
	if f == nil {
		f = &fetcher{leader: p.leader}
		b.fetchers[p.leader] = f
	}
	f.tps = insertSorted(f.tps, p.tp)
	f.wantOK = false
	if p.fetcher != nil && p.fetcher != f {
		p.fetcher.wantOK = false
	}
	p.fetcher = f
	if p.needEpochQuery {
		b.sendEpochQuery(p)
	}
	b.sendFetch(f)
}

// stopFollowing removes a partition from whichever fetcher has it.
func (b *Broker) stopFollowing(p *partition) {
	p.needEpochQuery, p.queryOut = false, false
	p.fetcher = nil
	for _, id := range sortedFetcherIDs(b.fetchers) {
		f := b.fetchers[id]
		// f.tps is sorted and holds each partition once (insertSorted): a
		// search, not a walk, finds it. A walk of every fetcher's list for
		// each partition that changed made a broker's start on a large
		// metadata image quadratic in its partitions.
		i := sort.Search(len(f.tps), func(i int) bool { return !f.tps[i].Less(p.tp) })
		if i < len(f.tps) && f.tps[i] == p.tp {
			f.tps = slices.Delete(f.tps, i, i+1)
			f.wantOK = false
		}
	}
}

func sortedFetcherIDs(m map[model.BrokerID]*fetcher) []model.BrokerID {
	ids := make([]model.BrokerID, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sortBrokers(ids)
	return ids
}

// sendFetch sends the next fetch to a leader if none is in flight and
// some partition is ready to fetch.
func (b *Broker) sendFetch(f *fetcher) {
	if f.inflight || f.backoff != 0 {
		return
	}
	changed, kept := b.refreshWant(f)
	req := b.buildFetch(f, f.want, changed, kept)
	if req == nil {
		return
	}
	f.corr = b.nextCorr()
	req.CorrelationID = f.corr
	f.inflight, f.reusable = true, false
	f.sentAt = b.now()
	if f.timeout == 0 {
		f.timeout = b.env.After(b.fetchTimeout(f), timerFetcherTimeout, int64(f.leader))
	}
	b.send(f.leader, req)
}

// wantEntry is what the fetch to f's leader asks of tp, and false when tp
// is not fetched now (not followed from that leader, or waiting for an
// epoch query, new metadata or a new leadership).
func (b *Broker) wantEntry(f *fetcher, tp model.TopicPartition) (model.FetchPartition, bool) {
	p := b.part(tp)
	if p == nil || p.isLeader || p.leader != f.leader || p.needEpochQuery || p.fetchBlocked || p.fetchFailed {
		return model.FetchPartition{}, false
	}
	kc := &b.cfg.Kafka // not a copy: a fetch goes out every few milliseconds
	last := model.NoEpoch
	if kc.Broker.Truncation == model.TruncateLeaderEpoch {
		// The epoch of the last record we have: the leader checks
		// that it ends where we think it does.
		last, _ = p.log.Epochs().Latest()
	}
	return model.FetchPartition{
		TP:                 tp,
		FetchOffset:        p.log.LEO(),
		CurrentLeaderEpoch: p.leaderEpoch,
		LastFetchedEpoch:   last,
		LogStartOffset:     p.log.LogStartOffset(),
		MaxBytes:           kc.Broker.ReplicaFetchMaxBytes,
	}, true
}

// refreshWant brings f.want, the partitions the next fetch would fetch
// (in f.tps order), up to date. While the set it holds stays the same it
// recomputes only the partitions marked changed (followChanged) and
// returns the places of those whose entry changed, ascending, with kept
// true; otherwise it walks every partition of f.tps, as the fetcher thread
// builds its fetch from all its partitions (ReplicaFetcherThread.buildFetch)
// and returns kept false.
func (b *Broker) refreshWant(f *fetcher) (changed []int, kept bool) {
	if f.wantOK && len(f.changed) <= len(f.want)/2+8 {
		changed = f.changedAt[:0]
		kept = true
		for _, tp := range f.changed {
			fp, in := b.wantEntry(f, tp)
			i, had := f.wantAt[tp]
			if in != had {
				kept = false
				break
			}
			if in && f.want[i] != fp {
				f.want[i] = fp
				changed = append(changed, i)
			}
		}
		f.changedAt = changed
		if kept {
			f.changed = f.changed[:0]
			slices.Sort(changed)
			changed = slices.Compact(changed)
			if CheckIncremental {
				b.checkWant(f)
			}
			return changed, true
		}
	}
	want := f.want[:0]
	for _, tp := range f.tps {
		if fp, in := b.wantEntry(f, tp); in {
			want = append(want, fp)
		}
	}
	f.want = want
	if f.wantAt == nil {
		f.wantAt = map[model.TopicPartition]int{}
	}
	clear(f.wantAt)
	for i := range want {
		f.wantAt[want[i].TP] = i
	}
	f.wantOK, f.changed = true, f.changed[:0]
	return nil, false
}

// followChanged marks p changed for the fetcher that fetches it: its next
// fetch recomputes what it asks of p. Everything a fetch asks of a
// partition (its log end, log start and latest epoch, its leader and
// leader epoch, the flags that hold it back) changes through here.
func (b *Broker) followChanged(p *partition) {
	if f := p.fetcher; f != nil && f.wantOK {
		f.changed = append(f.changed, p.tp)
	}
}

// buildFetch makes the fetch request for want, the partitions ready to
// fetch, through the fetcher's session (ReplicaFetcherThread.buildFetch):
// a full fetch names them all, an incremental one only what changed. It
// returns nil when there is nothing to send: no partition wanted and none
// to forget.
//
// With kept, want holds the same partitions in the same order as at the
// last build, and changed lists the places whose entry changed since.
func (b *Broker) buildFetch(f *fetcher, want []model.FetchPartition, changed []int, kept bool) *model.FetchRequest {
	kc := &b.cfg.Kafka
	var req *model.FetchRequest
	if f.reusable {
		req = model.ReuseFetchRequest(f.last, len(want))
	} else {
		req = model.NewFetchRequest(len(want))
	}
	f.last, f.reusable = req, true // until it is sent
	req.ReplicaID = b.cfg.ID
	req.BrokerEpoch = b.brokerEpoch
	req.MaxWait = kc.Broker.ReplicaFetchWaitMax
	req.MinBytes = kc.Broker.ReplicaFetchMinBytes
	req.MaxBytes = kc.Broker.ReplicaFetchMaxBytes
	var md fetchsession.Metadata
	if kept {
		md, req.Partitions, req.Forgotten = f.session.BuildChanged(want, changed, req.Partitions, req.Forgotten)
	} else {
		md, req.Partitions, req.Forgotten = f.session.Build(want, req.Partitions, req.Forgotten)
	}
	req.SessionID, req.SessionEpoch = md.SessionID, md.Epoch
	if len(want) == 0 && len(req.Forgotten) == 0 {
		return nil
	}
	return req
}

func (b *Broker) fetcherBackoff(f *fetcher) {
	if f.backoff != 0 {
		return
	}
	f.backoff = b.env.After(b.cfg.Kafka.Broker.ReplicaFetchBackoff, timerFetcherBackoff, int64(f.leader))
}

// retryFetcher ends a backoff: partitions parked by an error try again
// (the leader's metadata may have caught up with ours), and epoch queries
// that failed are asked again.
func (b *Broker) retryFetcher(f *fetcher) {
	f.backoff = 0
	for _, tp := range f.tps {
		p := b.part(tp)
		if p == nil || p.isLeader || p.leader != f.leader {
			continue
		}
		p.fetchBlocked = false
		b.followChanged(p)
		if p.needEpochQuery && !p.queryOut {
			b.sendEpochQuery(p)
		}
	}
	b.sendFetch(f)
}

// fetchTimeout is how long a follower waits for a fetch answer. On a
// connection the leader has answered on, it is the request timeout of the
// fetcher's NetworkClient (BrokerBlockingSender builds it with the broker's
// request.timeout.ms; the leader's replica.fetch.wait.max.ms hold counts
// inside it, which is why Kafka requires replica.socket.timeout.ms, and
// so request.timeout.ms in practice, to exceed it). On a new connection it
// is replica.socket.timeout.ms, awaitReady's bound: against a leader that
// does not answer at all (a machine that is off, a partition) the
// connection attempts fail within it.
func (b *Broker) fetchTimeout(f *fetcher) time.Duration {
	if !f.connected {
		return b.cfg.Kafka.Broker.ReplicaSocketTimeout
	}
	return b.cfg.Kafka.Client.RequestTimeout
}

// fetcherTimeout fires at most once per fetch timeout per fetcher, not once
// per fetch: a fetch answered in time leaves the timer armed, and when it
// fires it checks the fetch in flight now and re-arms for its deadline.
// (A timer per fetch, cancelled on the answer, would leave one dead entry
// per fetch in the kernel's queue for the whole timeout.)
func (b *Broker) fetcherTimeout(leader model.BrokerID) {
	f := b.fetchers[leader]
	if f == nil {
		return
	}
	f.timeout = 0
	if !f.inflight {
		return
	}
	if left := f.sentAt + b.fetchTimeout(f) - b.now(); left > 0 {
		f.timeout = b.env.After(left, timerFetcherTimeout, int64(f.leader))
		return
	}
	// Kafka closes the connection (BrokerBlockingSender.sendRequest's
	// networkClient.close) and the fetcher thread delays the partitions
	// by replica.fetch.backoff.ms (AbstractFetcherThread's
	// handlePartitionsWithErrors) before it fetches on a new connection.
	f.inflight, f.connected = false, false
	f.session.HandleError()
	b.env.Close(sim.NodeID(f.leader))
	b.fetcherBackoff(f)
}

// handleFetchResponse appends what a leader sent, truncates where it says
// our log diverged, and fetches again.
func (b *Broker) handleFetchResponse(from model.BrokerID, m *model.FetchResponse) {
	f := b.fetchers[from]
	if f == nil || !f.inflight || m.CorrelationID != f.corr {
		return // a late answer to a fetch we gave up on
	}
	f.inflight, f.connected = false, true
	if !f.session.HandleResponse(m) {
		// A session error: ReplicaFetcherThread.fetchFromLeader takes the
		// answer as empty, and the next fetch, a full one, goes at once.
		b.env.Trace("fetch-session", "leader "+itoa(int64(from))+" answered "+m.Error.String()+" in session "+itoa(int64(m.SessionID))+": full fetch next")
		f.reusable = true
		b.sendFetch(f)
		return
	}
	failed := false
	for i := range m.Partitions {
		pr := &m.Partitions[i]
		p := b.part(pr.TP)
		if p == nil || p.isLeader || p.leader != from {
			continue // we stopped following it meanwhile
		}
		switch pr.Error {
		case model.NoError:
			if pr.HasDiverging {
				b.truncateOnDivergence(p, pr.DivergingEpoch)
				continue
			}
			b.appendAsFollower(p, pr)
		case model.OffsetOutOfRange:
			b.handleOutOfRange(p, pr)
		default:
			// NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH,
			// UNKNOWN_LEADER_EPOCH, ...: our metadata and the
			// leader's disagree; wait for the controller's next word.
			p.fetchBlocked = true
			b.followChanged(p)
			failed = true
		}
	}
	// The answer to f.last is handled, and a leader keeps nothing of a
	// fetch it answered: the next fetch takes its memory, unless handling
	// the answer already sent the next fetch. (A link that duplicates
	// delivers its own clone of a message the second time: sim.Cloner.)
	if !f.inflight {
		f.reusable = true
	}
	if failed {
		b.fetcherBackoff(f)
		return
	}
	b.sendFetch(f)
}

// appendAsFollower copies the leader's batches as they are (offsets and
// epochs) and takes the leader's high watermark, capped at our log end.
//
// A fetch position inside one of the leader's batches (our log ends in
// the middle of it: the two logs were cut into batches differently) gets
// the whole batch, since the leader reads from the batch holding the
// offset (LocalLog.read). Kafka's follower cannot append a batch that
// begins below its log end: UnifiedLog.append throws
// UnexpectedAppendOffsetException, Partition.
// appendRecordsToFollowerOrFutureReplica handles it only for an empty log
// (its end at its log start: it starts the log over at the batch's base
// offset), and otherwise AbstractFetcherThread.processFetchRequest marks
// the partition failed (markPartitionFailed): it is not fetched again, and
// drops out of the ISR, until its leadership changes. It does not back off
// and retry. kafkasim does the same.
func (b *Broker) appendAsFollower(p *partition, pr *model.FetchPartitionResponse) {
	now := b.now()
	for _, batch := range pr.Batches {
		leo := p.log.LEO()
		if batch.NextOffset() <= leo {
			continue // already have it
		}
		if batch.BaseOffset < leo {
			if leo != p.log.LogStartOffset() {
				p.fetchFailed = true
				b.followChanged(p)
				b.env.Trace("fetch-failed", p.tp.String()+" fetch offset "+itoa(int64(leo))+" inside the leader's batch at "+itoa(int64(batch.BaseOffset)))
				return
			}
			p.log.TruncateFullyAndStartAt(batch.BaseOffset)
			p.hw = min(p.hw, batch.BaseOffset)
			b.env.Trace("truncate-fully", p.tp.String()+" start="+itoa(int64(batch.BaseOffset))+" (the leader's batch begins below our empty log)")
			leo = batch.BaseOffset
		}
		if batch.BaseOffset != leo {
			// A gap: the leader's batches do not continue our log.
			// Fetch again from our end rather than corrupt the log.
			b.env.Trace("fetch-gap", p.tp.String())
			break
		}
		// The batch is the leader's own, as stored (see storage.Log.Read):
		// the log keeps it as it is rather than a copy of it.
		p.log.AppendShared(batch, now)
	}
	if pr.HighWatermark >= 0 {
		p.hw = min(pr.HighWatermark, p.log.LEO())
	}
	// The follower takes the leader's log start offset, after the high
	// watermark, as ReplicaFetcherThread.processPartitionData does: the
	// leader's retention (or a DeleteRecords) decides where every
	// replica's log begins.
	if p.log.MaybeIncrementLogStartOffset(pr.LogStartOffset, p.hw) {
		b.env.Trace("log-start", p.tp.String()+" logStart="+itoa(int64(pr.LogStartOffset))+" (leader's)")
	}
}

// truncateOnDivergence follows AbstractFetcherThread's truncation on a
// diverging epoch: if we have the leader's epoch, truncate to the smaller
// of the two ends of it; if not, truncate to the end of our largest epoch
// below it and fetch again, which sends the leader that epoch (KIP-279).
func (b *Broker) truncateOnDivergence(p *partition, div model.EpochEndOffset) {
	leo := p.log.LEO()
	myEpoch, myEnd := p.log.EndOffsetFor(div.Epoch)
	var to model.Offset
	switch {
	case div.Epoch == model.NoEpoch || div.EndOffset == model.NoOffset:
		to = min(p.hw, leo)
	case myEpoch == model.NoEpoch:
		to = min(div.EndOffset, leo)
	case myEpoch != div.Epoch:
		to = min(myEnd, leo)
	default:
		to = min(min(myEnd, div.EndOffset), leo)
	}
	b.truncate(p, to, "diverging epoch "+div.String())
}

// handleOutOfRange deals with a fetch offset the leader does not have:
// below its log start (retention moved on), we start over at the leader's
// log start; above its log end (possible after an unclean election or with
// the legacy truncation modes), we cut back to the leader's end.
func (b *Broker) handleOutOfRange(p *partition, pr *model.FetchPartitionResponse) {
	if pr.LogStartOffset > p.log.LEO() {
		p.log.TruncateFullyAndStartAt(pr.LogStartOffset)
		p.hw = pr.LogStartOffset
		b.env.Trace("truncate-fully", p.tp.String()+" start="+itoa(int64(pr.LogStartOffset)))
		return
	}
	// Ask for the leader's log end, as ReplicaFetcherThread does with
	// ListOffsets(latest); meanwhile this partition does not fetch.
	p.fetchBlocked = true
	b.followChanged(p)
	b.send(p.leader, model.ListOffsetsRequest{
		CorrelationID:      b.nextCorr(),
		ReplicaID:          b.cfg.ID,
		TP:                 p.tp,
		CurrentLeaderEpoch: p.leaderEpoch,
		Spec:               model.SpecLatest,
	})
}

// sendEpochQuery asks the leader where our latest epoch ends (KIP-101
// without KIP-279: the answer carries no epoch).
func (b *Broker) sendEpochQuery(p *partition) {
	if p.queryOut {
		return
	}
	p.queryOut = true
	last, _ := p.log.Epochs().Latest()
	b.send(p.leader, model.OffsetsForLeaderEpochRequest{
		CorrelationID: b.nextCorr(),
		ReplicaID:     b.cfg.ID,
		Partitions: []model.LeaderEpochQuery{{
			TP: p.tp, CurrentLeaderEpoch: p.leaderEpoch, LeaderEpoch: last,
		}},
	})
}

func (b *Broker) handleOffsetsForLeaderEpochResponse(from model.BrokerID, m model.OffsetsForLeaderEpochResponse) {
	for _, a := range m.Partitions {
		p := b.part(a.TP)
		if p == nil || p.isLeader || p.leader != from || !p.queryOut {
			continue
		}
		p.queryOut = false
		if a.Error != model.NoError {
			p.needEpochQuery = true
			b.followChanged(p)
			if f := b.fetchers[from]; f != nil {
				b.fetcherBackoff(f) // ask again after the backoff
			}
			continue
		}
		p.needEpochQuery = false
		b.followChanged(p)
		to := min(a.EndOffset, p.log.LEO())
		if a.EndOffset == model.NoOffset {
			to = min(p.hw, p.log.LEO())
		}
		b.truncate(p, to, "epoch end offset")
		if f := b.fetchers[from]; f != nil {
			b.sendFetch(f)
		}
	}
}
