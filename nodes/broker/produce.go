package broker

import (
	"time"

	"kafkasim/model"
)

// pendingProduce is an acks=all request waiting for the high watermark to
// pass its batch (Kafka's DelayedProduce in the produce purgatory).
type pendingProduce struct {
	from model.BrokerID
	// req is the request, whose room takes the answer (see
	// model.NewProduceResponseFor); nil once answered, since the producer
	// may reuse it from then on.
	req      *model.ProduceRequest
	corr     int32
	tp       model.TopicPartition
	base     model.Offset
	required model.Offset // the high watermark that acknowledges it
	deadline time.Duration
	done     bool
}

// handleProduce appends a producer's batch as leader
// (Partition.appendRecordsToLeader) and answers per acks.
func (b *Broker) handleProduce(from model.BrokerID, m *model.ProduceRequest) {
	b.produce(from, m, 0, false)
}

// replyProduce answers a produce per its acks.
func (b *Broker) replyProduce(from model.BrokerID, m *model.ProduceRequest, code model.ErrorCode, base model.Offset) {
	if m.Acks == model.AcksNone {
		return // acks=0 gets no response, not even an error
	}
	ls := model.Offset(0)
	if p := b.part(m.TP); p != nil {
		ls = p.log.LogStartOffset()
	}
	resp := model.NewProduceResponseFor(m)
	*resp = model.ProduceResponse{CorrelationID: m.CorrelationID, TP: m.TP, Error: code, BaseOffset: base, LogStartOffset: ls}
	b.send(from, resp)
}

// produce is handleProduce; verified says the transaction verification
// (txn_verify.go) answered, with the guard it was started under.
func (b *Broker) produce(from model.BrokerID, m *model.ProduceRequest, guard int64, verified bool) {
	reply := func(code model.ErrorCode, base model.Offset) { b.replyProduce(from, m, code, base) }
	p := b.part(m.TP)
	switch {
	case p == nil && !b.knows(m.TP):
		reply(model.UnknownTopicOrPartition, model.NoOffset)
		return
	case p == nil || !p.isLeader:
		reply(model.NotLeaderOrFollower, model.NoOffset)
		return
	case !p.log.Valid(&m.Batch):
		reply(model.CorruptMessage, model.NoOffset)
		return
	}
	// Partition.appendRecordsToLeader: an acks=all write needs the
	// effective min ISR in the committed ISR.
	if m.Acks == model.AcksAll && p.underMinISR() {
		// Refuse before appending: nothing of this batch enters the log.
		reply(model.NotEnoughReplicas, model.NoOffset)
		return
	}
	if !verified && b.needsVerification(p, m) {
		b.startVerification(from, m, p)
		return
	}
	dup, code := p.log.Producers().CheckAppend(m.Batch)
	if code != model.NoError {
		reply(code, model.NoOffset)
		return
	}
	if dup == nil && b.missingVerification(p, &m.Batch, guard) {
		// "Record was not part of an ongoing transaction": unverified,
		// or its verification outlived the transaction.
		reply(model.InvalidTxnState, model.NoOffset)
		return
	}
	if dup == nil && !m.Batch.IsTransactional() && m.Batch.ProducerID != model.NoProducerID && p.log.HasOngoingTxn(m.Batch.ProducerID) {
		// ProducerAppendInfo.appendDataBatch: "Expected transactional
		// write from producer" while its transaction is under way here.
		reply(model.InvalidTxnState, model.NoOffset)
		return
	}
	var base, required model.Offset
	if dup != nil {
		// A retry of a batch already in the log: answer with its
		// original offsets and append nothing (KIP-98).
		base, required = dup.FirstOffset, dup.LastOffset+1
		b.env.Trace("duplicate", m.TP.String()+" base="+itoa(int64(base)))
	} else {
		batch := p.log.AppendAsLeader(&m.Batch, p.leaderEpoch, b.now())
		base, required = batch.BaseOffset, batch.NextOffset()
		b.clearGuard(p.tp, batch)
		b.wakeFetches(p) // followers long-polling for data
		b.maybeIncrementHW(p)
	}
	switch m.Acks {
	case model.AcksNone:
		return
	case model.AcksLeader:
		reply(model.NoError, base)
		return
	}
	pp := pendingProduce{from: from, req: m, corr: m.CorrelationID, tp: m.TP, base: base, required: required}
	if p.hw >= required {
		b.answerProduce(p, &pp)
		return
	}
	pp.deadline = b.now() + m.Timeout
	// Kept by value: the list's array is reused as requests complete,
	// so a waiting request costs no allocation of its own.
	p.waiting = append(p.waiting, pp)
	b.armPurge(pp.deadline)
}

// armPurge makes sure the purgatory timer fires no later than deadline.
// Most requests complete within milliseconds, so one timer that fires
// rarely and re-arms itself beats a timer per request that is nearly
// always cancelled (Kafka's purgatory uses a timing wheel for the same
// reason).
func (b *Broker) armPurge(deadline time.Duration) {
	if b.purgeTimer != 0 && b.purgeAt <= deadline {
		return
	}
	b.env.Cancel(b.purgeTimer)
	b.purgeAt = deadline
	b.purgeTimer = b.env.After(deadline-b.now(), timerProduceTimeout, 0)
}

// expireProduces answers every waiting request whose timeout passed
// before the high watermark reached it (REQUEST_TIMED_OUT: the write may
// still commit later, so the client cannot know its fate), and re-arms
// for the next deadline.
func (b *Broker) expireProduces() {
	b.purgeTimer = 0
	now := b.now()
	next := time.Duration(-1)
	for _, tp := range b.tps {
		p := b.part(tp)
		k := 0
		for i := range p.waiting {
			pp := &p.waiting[i]
			if pp.done {
				continue
			}
			if pp.deadline <= now {
				b.finishProduce(pp, model.RequestTimedOut)
				continue
			}
			if next < 0 || pp.deadline < next {
				next = pp.deadline
			}
			p.waiting[k] = *pp
			k++
		}
		clear(p.waiting[k:])
		p.waiting = p.waiting[:k]
	}
	if next >= 0 {
		b.armPurge(next)
	}
}

// answerProduce acknowledges a batch the high watermark has passed. If the
// ISR shrank below the minimum meanwhile, the answer says so although the
// data stays in the log (NOT_ENOUGH_REPLICAS_AFTER_APPEND).
func (b *Broker) answerProduce(p *partition, pp *pendingProduce) {
	code := model.NoError
	if p.underMinISR() {
		code = model.NotEnoughReplicasAfterAppend
	}
	b.finishProduce(pp, code)
}

func (b *Broker) finishProduce(pp *pendingProduce, code model.ErrorCode) {
	if pp.done {
		return
	}
	pp.done = true
	base := pp.base
	if code != model.NoError {
		base = model.NoOffset
	}
	resp := model.NewProduceResponseFor(pp.req)
	*resp = model.ProduceResponse{CorrelationID: pp.corr, TP: pp.tp, Error: code, BaseOffset: base}
	pp.req = nil
	b.send(pp.from, resp)
}

// completeProduces answers, in order, every waiting request the high
// watermark now covers.
func (b *Broker) completeProduces(p *partition) {
	k := 0
	for i := range p.waiting {
		pp := &p.waiting[i]
		if pp.done {
			continue
		}
		if p.hw >= pp.required {
			b.answerProduce(p, pp)
			continue
		}
		p.waiting[k] = *pp
		k++
	}
	clear(p.waiting[k:])
	p.waiting = p.waiting[:k]
}

// failWaitingProduces answers every waiting request with an error, as a
// leader that loses leadership does.
func (b *Broker) failWaitingProduces(p *partition, code model.ErrorCode) {
	for i := range p.waiting {
		b.finishProduce(&p.waiting[i], code)
	}
	clear(p.waiting)
	p.waiting = p.waiting[:0]
}

// dropProducesFrom forgets every waiting request of a peer whose
// connection broke, unanswered.
func (b *Broker) dropProducesFrom(p *partition, peer model.BrokerID) {
	k := 0
	for i := range p.waiting {
		if pp := &p.waiting[i]; pp.from == peer || pp.done {
			continue
		}
		p.waiting[k] = p.waiting[i]
		k++
	}
	clear(p.waiting[k:])
	p.waiting = p.waiting[:k]
}

// knows reports whether the metadata cache has the partition.
func (b *Broker) knows(tp model.TopicPartition) bool {
	_, ok := b.meta[tp]
	return ok
}
