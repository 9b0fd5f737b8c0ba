package broker

import (
	"kafkasim/model"
	"kafkasim/sim"
)

// delayedFetch is a fetch parked until data arrives or its wait runs out
// (Kafka's DelayedFetch in the fetch purgatory): long polling, so that an
// idle follower costs two messages per replica.fetch.wait.max.ms rather
// than a busy loop.
type delayedFetch struct {
	id    int64
	from  model.BrokerID
	req   model.FetchRequest
	timer sim.TimerID
	done  bool
}

// handleFetch serves a follower's or a consumer's fetch as leader
// (ReplicaManager.fetchMessages / Partition.fetchRecords).
func (b *Broker) handleFetch(from model.BrokerID, m model.FetchRequest) {
	follower := m.ReplicaID != model.NoBroker
	if follower {
		// Record where each follower is before building the answer: its
		// fetch offset is its log end, which may move the high watermark
		// and let it rejoin the ISR (Partition.updateFollowerFetchState).
		for i := range m.Partitions {
			fp := &m.Partitions[i]
			p := b.parts[fp.TP]
			if p == nil || !p.isLeader || b.fenceCheck(p, fp.CurrentLeaderEpoch) != model.NoError {
				continue
			}
			if _, diverged := b.divergence(p, fp); diverged {
				continue
			}
			fs := p.followers[m.ReplicaID]
			if fs == nil || fp.FetchOffset > p.log.LEO() {
				continue
			}
			fs.updateFetchState(fp.FetchOffset, p.log.LEO(), b.now(), m.BrokerEpoch)
			b.maybeExpandISR(p, m.ReplicaID)
			b.maybeIncrementHW(p)
		}
	}
	resp, ready := b.readFetch(m)
	if ready || m.MaxWait <= 0 {
		b.send(from, resp)
		return
	}
	b.nextWaitID++
	df := &delayedFetch{id: b.nextWaitID, from: from, req: m}
	df.timer = b.env.After(m.MaxWait, timerFetchWait, df.id)
	b.fetches[df.id] = df
	for i := range m.Partitions {
		if p := b.parts[m.Partitions[i].TP]; p != nil {
			p.delayed = append(p.delayed, df.id)
		}
	}
}

// readFetch builds the answer to a fetch from the current state. ready is
// true when the answer should go now: it carries records, an error or a
// divergence.
func (b *Broker) readFetch(m model.FetchRequest) (model.FetchResponse, bool) {
	follower := m.ReplicaID != model.NoBroker
	resp := model.FetchResponse{CorrelationID: m.CorrelationID, Partitions: make([]model.FetchPartitionResponse, 0, len(m.Partitions))}
	ready := false
	for i := range m.Partitions {
		fp := &m.Partitions[i]
		pr := model.FetchPartitionResponse{TP: fp.TP, HighWatermark: model.NoOffset, LogStartOffset: model.NoOffset}
		p := b.parts[fp.TP]
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
			resp.Partitions = append(resp.Partitions, pr)
			continue
		}
		pr.HighWatermark = p.hw
		pr.LogStartOffset = p.log.LogStartOffset()
		if follower {
			if div, diverged := b.divergence(p, fp); diverged {
				pr.HasDiverging = true
				pr.DivergingEpoch = div
				ready = true
				resp.Partitions = append(resp.Partitions, pr)
				continue
			}
		}
		// Followers read to the log end, consumers to the high
		// watermark only: a consumer never sees an uncommitted record.
		end := p.hw
		if follower {
			end = p.log.LEO()
		}
		if fp.FetchOffset < p.log.LogStartOffset() || fp.FetchOffset > p.log.LEO() {
			pr.Error = model.OffsetOutOfRange
			ready = true
		} else if fp.FetchOffset < end {
			max := int(fp.MaxBytes)
			if max <= 0 {
				max = int(b.cfg.Kafka.Broker.ReplicaFetchMaxBytes)
			}
			pr.Batches = p.log.ReadUpTo(fp.FetchOffset, max, end)
			if len(pr.Batches) > 0 {
				ready = true
			}
		}
		resp.Partitions = append(resp.Partitions, pr)
	}
	return resp, ready
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
// that now have something to return.
func (b *Broker) wakeFetches(p *partition) {
	if len(p.delayed) == 0 {
		return
	}
	ids := p.delayed
	p.delayed = nil
	for _, id := range ids {
		df := b.fetches[id]
		if df == nil || df.done {
			continue
		}
		resp, ready := b.readFetch(df.req)
		if ready {
			b.finishFetch(df, resp)
			continue
		}
		p.delayed = append(p.delayed, id)
	}
}

func (b *Broker) finishFetch(df *delayedFetch, resp model.FetchResponse) {
	df.done = true
	b.env.Cancel(df.timer)
	delete(b.fetches, df.id)
	b.send(df.from, resp)
}

// expireFetch answers a parked fetch whose wait ran out, with whatever
// there is (usually nothing but the current high watermark).
func (b *Broker) expireFetch(id int64) {
	df := b.fetches[id]
	if df == nil || df.done {
		return
	}
	resp, _ := b.readFetch(df.req)
	b.finishFetch(df, resp)
	for i := range df.req.Partitions {
		if p := b.parts[df.req.Partitions[i].TP]; p != nil {
			k := 0
			for _, x := range p.delayed {
				if x != id {
					p.delayed[k] = x
					k++
				}
			}
			p.delayed = p.delayed[:k]
		}
	}
}
