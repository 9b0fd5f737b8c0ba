package model

import "time"

// Hash accumulates a 64-bit digest of a message's content. The simulation
// kernel folds every delivered message's digest into the run's trace hash,
// so that two runs of one seed can be compared event by event; a digest must
// therefore depend on every field that can change behaviour, be the same on
// every machine, and be cheap enough to compute for every event.
//
// Hash is a value: each method returns the new state and nothing allocates,
// so a digest reads as one chain:
//
//	return NewHash(kindFetch).Int32(m.CorrelationID).Offset(m.Offset).Sum()
//
// Each step is (h ^ v) * k followed by an xorshift. For a fixed state that is
// one-to-one in v, and for a fixed v it is one-to-one in the state, so two
// messages of one layout that differ in exactly one fixed-width field always
// get different digests, not merely probably different ones. Variable-length
// fields (strings, slices) fold their length first, so that ("ab", "c") and
// ("a", "bc") part at the length.
type Hash uint64

const (
	// hashSeed is FNV-1a's 64-bit offset basis: any non-zero start works,
	// this one is well known.
	hashSeed Hash = 14695981039346656037
	// hashMul is an odd constant with well-spread bits (SplitMix64's first
	// multiplier); odd makes the multiplication a bijection mod 2^64.
	hashMul Hash = 0xbf58476d1ce4e5b9
)

// NewHash starts a digest with a kind tag, so that two message types with
// the same field values still get different digests.
func NewHash(kind uint64) Hash { return hashSeed.Uint64(kind) }

// Uint64 folds one 64-bit word. The multiplication carries low bits upward
// only; the xorshift carries the high bits back down, so a change in any bit
// of v reaches the low bits of the state too.
func (h Hash) Uint64(v uint64) Hash {
	h = (h ^ Hash(v)) * hashMul
	return h ^ h>>31
}

// Int64 folds a signed 64-bit value.
func (h Hash) Int64(v int64) Hash { return h.Uint64(uint64(v)) }

// Int32 folds a signed 32-bit value. It is widened with its sign, so -1 and
// 0xffffffff as an int64 would collide; fields have fixed types, so they
// never meet.
func (h Hash) Int32(v int32) Hash { return h.Uint64(uint64(int64(v))) }

// Int folds an int.
func (h Hash) Int(v int) Hash { return h.Uint64(uint64(int64(v))) }

// Bool folds a flag as 0 or 1.
func (h Hash) Bool(b bool) Hash {
	if b {
		return h.Uint64(1)
	}
	return h.Uint64(0)
}

// Str folds a string: its length, then its bytes eight at a time as
// little-endian words, the last one padded with zeros (the length already
// tells the padding from data). Each word is one Uint64 step, so a
// string that differs in one byte from another of its length always gets
// a different digest. A record value is a few bytes, and every message
// that carries records folds them: one step for most values, where a step
// per byte took a tenth of a cluster run. Indexing the string needs no
// conversion to []byte, so nothing allocates.
func (h Hash) Str(s string) Hash { return foldBytes(h, s) }

// Bytes folds a byte slice as Str folds a string, so that a string and its
// bytes digest alike.
func (h Hash) Bytes(p []byte) Hash { return foldBytes(h, p) }

// foldBytes is Str and Bytes: the length, then whole words, then the
// padded last one.
func foldBytes[S string | []byte](h Hash, s S) Hash {
	h = h.Uint64(uint64(len(s)))
	for len(s) >= 8 {
		h = h.Uint64(uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56)
		s = s[8:]
	}
	if len(s) > 0 {
		var w uint64
		for i := len(s) - 1; i >= 0; i-- {
			w = w<<8 | uint64(s[i])
		}
		h = h.Uint64(w)
	}
	return h
}

// Duration folds a virtual duration.
func (h Hash) Duration(d time.Duration) Hash { return h.Int64(int64(d)) }

// Offset folds a log offset.
func (h Hash) Offset(o Offset) Hash { return h.Int64(int64(o)) }

// Epoch folds any epoch.
func (h Hash) Epoch(e Epoch) Hash { return h.Int32(int32(e)) }

// Broker folds a broker id.
func (h Hash) Broker(b BrokerID) Hash { return h.Int32(int32(b)) }

// Error folds an error code.
func (h Hash) Error(c ErrorCode) Hash { return h.Int32(int32(c)) }

// TP folds a topic-partition.
func (h Hash) TP(tp TopicPartition) Hash { return h.Str(tp.Topic).Int32(tp.Partition) }

// Brokers folds a list of broker ids, length first. A nil list and an empty
// one fold alike: the protocol gives them the same meaning.
func (h Hash) Brokers(ids []BrokerID) Hash {
	h = h.Int(len(ids))
	for _, id := range ids {
		h = h.Broker(id)
	}
	return h
}

// Record folds one record.
func (h Hash) Record(r Record) Hash {
	return h.Offset(r.Offset).Duration(r.Timestamp).Str(r.Key).Str(r.Value)
}

// Batch folds every field of a batch, its CRC included: a batch whose bytes
// were corrupted in flight must not digest like the intact one.
func (h Hash) Batch(b *Batch) Hash {
	h = h.Offset(b.BaseOffset).Epoch(b.LeaderEpoch).
		Int64(int64(b.ProducerID)).Epoch(b.ProducerEpoch).Int32(b.BaseSequence).
		Uint64(uint64(b.CRC)).Int(len(b.Records))
	if b.Attributes != 0 {
		h = h.Int64(int64(b.Attributes)) // absent from older batches' digests
	}
	for i := range b.Records {
		h = h.Record(b.Records[i])
	}
	return h
}

// Batches folds a list of batches, length first.
func (h Hash) Batches(bs []*Batch) Hash {
	h = h.Int(len(bs))
	for _, b := range bs {
		h = h.Batch(b)
	}
	return h
}

// Sum finishes the digest with MurmurHash3's 64-bit finaliser, a bijection
// that spreads every input bit over the whole result, so that digests that
// differ only in their last fold still look unrelated in a trace.
func (h Hash) Sum() uint64 {
	x := uint64(h)
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}
