package model

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strconv"
	"time"
)

// Record is one key/value pair in a partition log. Key and Value are strings
// rather than []byte: records are copied between producers, leaders,
// followers and consumers many times in a run, a string copy is a pointer
// copy, and a trace can print them as they are. An empty key means no key.
type Record struct {
	// Offset is the record's absolute position in the partition. Producers
	// leave it zero; the leader assigns it on append (see Batch.Rebase).
	Offset Offset
	// Timestamp is the producer's create time on the virtual clock.
	Timestamp time.Duration
	Key       string
	Value     string
}

// NoSequence is Kafka's -1 base sequence of a batch from a producer without
// idempotence.
const NoSequence int32 = -1

// Batch is Kafka's unit of append, replication and storage (a v2 record
// batch): the records of one produce request for one partition, with the
// producer's identity for deduplication (KIP-98) and the leader epoch under
// which the leader appended it, which is what epoch-based truncation
// (KIP-101) compares.
//
// A batch is a value that travels in messages, and messages are shared in
// memory by the simulation: once sent, its Records slice must be treated as
// immutable. Code that changes offsets makes a copy (Rebase).
type Batch struct {
	// BaseOffset is the offset of the first record; Records[i] has offset
	// BaseOffset+i. A producer's batch has BaseOffset 0 until the leader
	// assigns the real one.
	BaseOffset Offset
	// LeaderEpoch is the partition leader epoch stamped by the leader that
	// appended the batch; followers copy it as it is.
	LeaderEpoch Epoch
	// CRC is the CRC32C of every other field (see ComputeCRC), set by the
	// producer when it seals the batch and checked on append and on
	// recovery from disk. It sits beside LeaderEpoch so that the two fill
	// one word: logs keep a batch header per replica for the whole run.
	CRC uint32
	// ProducerID, ProducerEpoch and BaseSequence identify the batch for
	// idempotent deduplication: sequences count records per (producer,
	// partition) from 0, and a retried batch keeps its sequence.
	// NoProducerID and NoSequence mark a producer without idempotence.
	ProducerID    ProducerID
	ProducerEpoch Epoch
	BaseSequence  int32
	Records       []Record
	// Attributes are Kafka's batch attribute bits that kafkasim models:
	// AttrTransactional (the batch belongs to a transaction of its
	// producer) and AttrControl (its one record is a commit or abort
	// marker). Zero for every batch outside transactions.
	Attributes int16
}

// Batch attribute bits, at Kafka's positions (DefaultRecordBatch:
// TRANSACTIONAL_FLAG_MASK 0x10, CONTROL_FLAG_MASK 0x20).
const (
	AttrTransactional int16 = 0x10
	AttrControl       int16 = 0x20
)

// IsTransactional is RecordBatch.isTransactional.
func (b *Batch) IsTransactional() bool { return b.Attributes&AttrTransactional != 0 }

// IsControl is RecordBatch.isControlBatch.
func (b *Batch) IsControl() bool { return b.Attributes&AttrControl != 0 }

// NewBatch builds a sealed batch as a producer does: records numbered from
// offset 0 (the leader moves them with Rebase), no leader epoch yet, and the
// producer's identity. Pass NoProducerID and NoSequence for a producer
// without idempotence. The records are copied, so the caller may reuse its
// slice.
func NewBatch(pid ProducerID, producerEpoch Epoch, baseSequence int32, records ...Record) Batch {
	b := Batch{
		LeaderEpoch:   NoEpoch,
		ProducerID:    pid,
		ProducerEpoch: producerEpoch,
		BaseSequence:  baseSequence,
	}
	if len(records) > 0 {
		b.Records = make([]Record, len(records))
		for i, r := range records {
			r.Offset = Offset(i)
			b.Records[i] = r
		}
	}
	b.Seal()
	return b
}

// NewBatchOf is NewBatch without the copy: the batch takes the records
// slice (and numbers it from 0), so the caller must not use it afterwards.
func NewBatchOf(pid ProducerID, producerEpoch Epoch, baseSequence int32, records []Record) Batch {
	b := Batch{
		LeaderEpoch:   NoEpoch,
		ProducerID:    pid,
		ProducerEpoch: producerEpoch,
		BaseSequence:  baseSequence,
	}
	if len(records) > 0 {
		for i := range records {
			records[i].Offset = Offset(i)
		}
		b.Records = records
	}
	b.Seal()
	return b
}

// Count is the number of records in the batch.
func (b Batch) Count() int32 { return int32(len(b.Records)) }

// LastOffset is the offset of the last record, BaseOffset-1 for an empty
// batch.
func (b Batch) LastOffset() Offset { return b.BaseOffset + Offset(len(b.Records)) - 1 }

// NextOffset is the offset after the batch: the log end offset once the
// batch is appended.
func (b Batch) NextOffset() Offset { return b.BaseOffset + Offset(len(b.Records)) }

// LastSequence is the sequence number of the last record, or NoSequence for
// a batch without one. Sequences wrap from the largest int32 to 0, so a
// batch that starts near the top ends low (Kafka's
// DefaultRecordBatch.lastSequence through incrementSequence).
func (b Batch) LastSequence() int32 {
	if b.BaseSequence == NoSequence || len(b.Records) == 0 {
		return NoSequence
	}
	return IncrementSequence(b.BaseSequence, int32(len(b.Records))-1)
}

// IncrementSequence is sequence plus increment, wrapping from the largest
// int32 to 0 rather than to a negative number, as Kafka's
// DefaultRecordBatch.incrementSequence: a producer's sequence after
// 2147483647 is 0. increment must not be negative.
func IncrementSequence(sequence, increment int32) int32 {
	if sequence > math.MaxInt32-increment {
		return increment - (math.MaxInt32 - sequence) - 1
	}
	return sequence + increment
}

// DecrementSequence undoes IncrementSequence, wrapping from 0 back to the
// largest int32 (Kafka's DefaultRecordBatch.decrementSequence): the first
// sequence of a batch from its last one and its record count less one.
func DecrementSequence(sequence, decrement int32) int32 {
	if sequence < decrement {
		return math.MaxInt32 - (decrement - sequence) + 1
	}
	return sequence - decrement
}

// castagnoli is the CRC32C table, the polynomial Kafka uses for v2 batches.
// It is built once and only read.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// castagnoli8 is castagnoli extended for slicing-by-8 (crc32c), built once
// and only read.
var castagnoli8 = func() (t [8][256]uint32) {
	t[0] = *castagnoli
	for i := range 256 {
		c := t[0][i]
		for j := 1; j < 8; j++ {
			c = t[0][c&0xff] ^ c>>8
			t[j][i] = c
		}
	}
	return t
}()

// crc32c is crc32.Checksum(p, castagnoli) computed in plain Go, eight bytes
// a step. The standard library's version reaches its hardware
// implementation through a function variable, so whatever it is given
// escapes to the heap; this one lets ComputeCRC encode into a stack buffer,
// and for a batch of a few records it is faster than an allocation.
func crc32c(p []byte) uint32 {
	t := &castagnoli8
	crc := ^uint32(0)
	for len(p) >= 8 {
		crc ^= uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
		crc = t[0][p[7]] ^ t[1][p[6]] ^ t[2][p[5]] ^ t[3][p[4]] ^
			t[4][crc>>24] ^ t[5][crc>>16&0xff] ^ t[6][crc>>8&0xff] ^ t[7][crc&0xff]
		p = p[8:]
	}
	for _, v := range p {
		crc = t[0][byte(crc)^v] ^ crc>>8
	}
	return ^crc
}

// ComputeCRC returns the CRC32C of every field but CRC, over the same bytes
// the disk encoding writes. Kafka's CRC leaves out the base offset and the
// partition leader epoch so that the leader can set them without
// recomputing it; here the CRC covers them too, so that a flipped bit in an
// offset or an epoch is caught, and Rebase recomputes it instead.
func (b *Batch) ComputeCRC() uint32 {
	var scratch [256]byte
	return crc32c(appendBody(scratch[:0], b))
}

// Seal sets CRC from the other fields. A producer seals a batch once it is
// complete; after that any change to the batch shows as !Valid().
func (b *Batch) Seal() { b.CRC = b.ComputeCRC() }

// SealInto is Seal for a caller that keeps a buffer: it encodes the batch
// into buf (from its start, whatever it held) and sets CRC from those
// bytes, and returns the buffer, grown if it had to be, for the next call.
// The CRC is Seal's. ComputeCRC encodes into a stack buffer and so must use
// the plain-Go crc32c (the standard library's hardware CRC would make the
// buffer escape); a buffer already on the heap can go to crc32.Checksum,
// which is several times faster. A producer seals every batch it sends.
func (b *Batch) SealInto(buf []byte) []byte {
	buf = appendBody(buf[:0], b)
	b.CRC = crc32.Checksum(buf, castagnoli)
	return buf
}

// Valid reports whether the CRC matches the other fields, and the records
// carry consecutive offsets from BaseOffset. A leader checks it before
// appending (answering CORRUPT_MESSAGE otherwise), because Rebase would
// otherwise bless corrupted content with a fresh CRC.
func (b Batch) Valid() bool {
	return b.offsetsValid() && b.CRC == b.ComputeCRC()
}

// offsetsValid reports whether the records carry consecutive offsets from
// BaseOffset.
func (b *Batch) offsetsValid() bool {
	for i := range b.Records {
		if b.Records[i].Offset != b.BaseOffset+Offset(i) {
			return false
		}
	}
	return true
}

// Rebase returns a copy of the batch placed at base under the given leader
// epoch: each record gets its absolute offset and the CRC is recomputed.
// The records are copied, so the sender's batch (which a producer may still
// hold for a retry) is left untouched.
func (b Batch) Rebase(base Offset, leaderEpoch Epoch) Batch {
	c := b
	c.BaseOffset = base
	c.LeaderEpoch = leaderEpoch
	if len(b.Records) > 0 {
		c.Records = make([]Record, len(b.Records))
		for i, r := range b.Records {
			r.Offset = base + Offset(i)
			c.Records[i] = r
		}
	}
	c.Seal()
	return c
}

// String describes the batch on one line: its offset range, leader epoch and
// producer identity, as in "[17..19]e3 pid=7:0 seq=4". The records
// themselves are left to whoever needs them.
func (b Batch) String() string {
	s := "[" + strconv.FormatInt(int64(b.BaseOffset), 10) + ".." +
		strconv.FormatInt(int64(b.LastOffset()), 10) + "]e" +
		strconv.FormatInt(int64(b.LeaderEpoch), 10)
	if b.ProducerID != NoProducerID {
		s += " pid=" + strconv.FormatInt(int64(b.ProducerID), 10) + ":" +
			strconv.FormatInt(int64(b.ProducerEpoch), 10) +
			" seq=" + strconv.FormatInt(int64(b.BaseSequence), 10)
	}
	switch {
	case b.IsControl():
		s += " control"
	case b.IsTransactional():
		s += " txn"
	}
	return s
}

// The disk encoding of a batch, one frame per batch, all integers big-endian
// or varint:
//
//	frame  = length:uint32 crc:uint32 body      length counts crc and body
//	body   = baseOffset:int64 leaderEpoch:int32 producerID:int64
//	         producerEpoch:int32 baseSequence:int32 count:uvarint record*
//	record = offsetDelta:varint timestamp:varint
//	         keyLen:uvarint key valueLen:uvarint value
//
// A partition log file is a sequence of frames. The length prefix lets a
// reader find where the next frame starts and tell a torn tail (the file
// ends inside a frame: ErrTruncated) from damaged bytes (the CRC does not
// match: ErrCorrupt). The CRC written is the batch's own, not a fresh one,
// so a batch corrupted in memory stays detectably corrupt on disk.
const (
	frameHeaderBytes = 8                      // length and crc
	bodyFixedBytes   = 8 + 4 + 8 + 4 + 4      // the fixed-width body fields
	minRecordBytes   = 4                      // four one-byte varints
	minFrameLength   = 4 + bodyFixedBytes + 1 // crc, fixed fields, count
)

// epochWord is the body's producerEpoch word. Kafka's producer epoch is an
// int16 and its attributes another; kafkasim keeps the 32-bit word it
// always wrote and puts the attributes in its upper half when there are
// any, so that a batch outside transactions encodes (and sizes, and
// CRCs) exactly as before. A batch with attributes has a producer epoch
// of at least 0 (transactional and control batches always do), so its
// word is above 0xFFFF and below 1<<31, which no plain epoch is: a plain
// word is an epoch of at most 32767 (Short.MAX_VALUE) or -1.
func epochWord(b *Batch) uint32 {
	if b.Attributes == 0 {
		return uint32(b.ProducerEpoch)
	}
	if b.ProducerEpoch < 0 || b.ProducerEpoch > 0x7FFF || b.Attributes < 0 {
		panic("model: batch with attributes and producer epoch " + strconv.Itoa(int(b.ProducerEpoch)))
	}
	return uint32(b.Attributes)<<16 | uint32(b.ProducerEpoch)
}

func splitEpochWord(w uint32) (Epoch, int16) {
	if int32(w) > 0xFFFF {
		return Epoch(w & 0xFFFF), int16(w >> 16)
	}
	return Epoch(int32(w)), 0
}

// MaxBatchBytes bounds a frame's length. A length field above it cannot come
// from a real batch, so it is reported as corrupt rather than trusted to size
// an allocation.
const MaxBatchBytes = 64 << 20

var (
	// ErrTruncated says the input ends inside a frame: the tail of a log
	// whose last write was torn by a power loss.
	ErrTruncated = errors.New("batch truncated")
	// ErrCorrupt says a complete frame failed its CRC or does not parse:
	// damaged bytes, not a short write.
	ErrCorrupt = errors.New("batch corrupt")
)

// AppendBatch appends the frame encoding b to dst and returns the extended
// slice.
func AppendBatch(dst []byte, b Batch) []byte {
	return appendFrame(dst, &b)
}

// AppendTo appends the batch's encoding (AppendBatch) to dst, without
// copying the batch: a log encodes its stored batches with it when the
// simulated disk asks for their bytes (see sim.Lazy).
func (b *Batch) AppendTo(dst []byte) []byte { return appendFrame(dst, b) }

// AppendValidBatch is AppendBatch that also reports b.Valid(), checking the
// CRC over the bytes it has just encoded instead of encoding them again: a
// log appends and checks every batch, so it needs the encoding anyway.
func AppendValidBatch(dst []byte, b *Batch) ([]byte, bool) {
	start := len(dst)
	dst = appendFrame(dst, b)
	return dst, b.offsetsValid() && crc32.Checksum(dst[start+frameHeaderBytes:], castagnoli) == b.CRC
}

// AppendSealed seals b (sets its CRC, as Seal does) and appends its frame
// (as AppendTo) to dst, encoding it once: a leader stamps every produce
// batch with its offsets and epoch and then writes it, and Seal followed by
// AppendTo would encode it twice.
func (b *Batch) AppendSealed(dst []byte) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0) // length and crc, filled below
	dst = appendBody(dst, b)
	b.CRC = crc32.Checksum(dst[start+frameHeaderBytes:], castagnoli)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	binary.BigEndian.PutUint32(dst[start+4:], b.CRC)
	return dst
}

// RestampFrame moves the batch encoded in frame (a frame as AppendBatch
// writes it, of a batch whose records carry consecutive offsets from its
// base, as Valid requires) to base under leaderEpoch, in place: it
// rewrites the two fields and the CRC, and returns the new CRC. The frame
// is then the one AppendSealed writes for the batch Rebase(base,
// leaderEpoch) returns: offsets are encoded as deltas from the base, so no
// record's bytes change. A leader has just encoded a producer's batch to
// check it (AppendValidBatch) and stamps it next; this spares it a second
// encoding.
func RestampFrame(frame []byte, base Offset, leaderEpoch Epoch) uint32 {
	if len(frame) < 4+minFrameLength {
		panic(fmt.Sprintf("model: RestampFrame of %d bytes, shorter than any frame", len(frame)))
	}
	binary.BigEndian.PutUint64(frame[frameHeaderBytes:], uint64(base))
	binary.BigEndian.PutUint32(frame[frameHeaderBytes+8:], uint32(leaderEpoch))
	crc := crc32.Checksum(frame[frameHeaderBytes:], castagnoli)
	binary.BigEndian.PutUint32(frame[4:], crc)
	return crc
}

func appendFrame(dst []byte, b *Batch) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0) // length and crc, filled below
	dst = appendBody(dst, b)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	binary.BigEndian.PutUint32(dst[start+4:], b.CRC)
	return dst
}

// appendBody appends the CRC-covered part of a batch's encoding.
func appendBody(dst []byte, b *Batch) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(b.BaseOffset))
	dst = binary.BigEndian.AppendUint32(dst, uint32(b.LeaderEpoch))
	dst = binary.BigEndian.AppendUint64(dst, uint64(b.ProducerID))
	dst = binary.BigEndian.AppendUint32(dst, epochWord(b))
	dst = binary.BigEndian.AppendUint32(dst, uint32(b.BaseSequence))
	dst = binary.AppendUvarint(dst, uint64(len(b.Records)))
	for i := range b.Records {
		r := &b.Records[i]
		dst = binary.AppendVarint(dst, int64(r.Offset-b.BaseOffset))
		dst = binary.AppendVarint(dst, int64(r.Timestamp))
		dst = binary.AppendUvarint(dst, uint64(len(r.Key)))
		dst = append(dst, r.Key...)
		dst = binary.AppendUvarint(dst, uint64(len(r.Value)))
		dst = append(dst, r.Value...)
	}
	return dst
}

// DecodeBatch decodes the frame at the start of src and returns the batch
// and the number of bytes it took. Errors: io.EOF when src is empty (a clean
// end of log), ErrTruncated when src ends inside the frame, ErrCorrupt
// (possibly wrapped, test with errors.Is) when the frame is complete but
// damaged. On error n is 0: the valid part of a log is what precedes the
// first error, which is where recovery truncates it.
func DecodeBatch(src []byte) (b Batch, n int, err error) {
	if len(src) == 0 {
		return Batch{}, 0, io.EOF
	}
	if len(src) < 4 {
		return Batch{}, 0, ErrTruncated
	}
	length := binary.BigEndian.Uint32(src)
	if length < minFrameLength || length > MaxBatchBytes {
		return Batch{}, 0, fmt.Errorf("%w: frame length %d", ErrCorrupt, length)
	}
	n = 4 + int(length)
	if len(src) < n {
		return Batch{}, 0, ErrTruncated
	}
	crc := binary.BigEndian.Uint32(src[4:])
	body := src[frameHeaderBytes:n]
	if got := crc32.Checksum(body, castagnoli); got != crc {
		return Batch{}, 0, fmt.Errorf("%w: crc %08x, computed %08x", ErrCorrupt, crc, got)
	}
	b, err = parseBody(body)
	if err != nil {
		return Batch{}, 0, err
	}
	b.CRC = crc
	return b, n, nil
}

// parseBody reads a body whose CRC matched. It can still be malformed only
// if it was crafted, not damaged; it is checked all the same, because a
// decoder must not panic on any input.
func parseBody(p []byte) (Batch, error) {
	var b Batch
	b.BaseOffset = Offset(binary.BigEndian.Uint64(p))
	b.LeaderEpoch = Epoch(binary.BigEndian.Uint32(p[8:]))
	b.ProducerID = ProducerID(binary.BigEndian.Uint64(p[12:]))
	b.ProducerEpoch, b.Attributes = splitEpochWord(binary.BigEndian.Uint32(p[20:]))
	b.BaseSequence = int32(binary.BigEndian.Uint32(p[24:]))
	p = p[bodyFixedBytes:]
	count, k := binary.Uvarint(p)
	if k <= 0 || count > uint64(len(p)-k)/minRecordBytes {
		return Batch{}, fmt.Errorf("%w: bad record count", ErrCorrupt)
	}
	p = p[k:]
	if count > 0 {
		b.Records = make([]Record, count)
	}
	for i := range b.Records {
		r := &b.Records[i]
		delta, k := binary.Varint(p)
		if k <= 0 {
			return Batch{}, fmt.Errorf("%w: record %d: bad offset delta", ErrCorrupt, i)
		}
		p = p[k:]
		r.Offset = b.BaseOffset + Offset(delta)
		ts, k := binary.Varint(p)
		if k <= 0 {
			return Batch{}, fmt.Errorf("%w: record %d: bad timestamp", ErrCorrupt, i)
		}
		p = p[k:]
		r.Timestamp = time.Duration(ts)
		var ok bool
		if r.Key, p, ok = readString(p); !ok {
			return Batch{}, fmt.Errorf("%w: record %d: bad key", ErrCorrupt, i)
		}
		if r.Value, p, ok = readString(p); !ok {
			return Batch{}, fmt.Errorf("%w: record %d: bad value", ErrCorrupt, i)
		}
	}
	if len(p) != 0 {
		return Batch{}, fmt.Errorf("%w: %d bytes after the last record", ErrCorrupt, len(p))
	}
	return b, nil
}

// readString reads a uvarint length and that many bytes.
func readString(p []byte) (string, []byte, bool) {
	l, k := binary.Uvarint(p)
	if k <= 0 || l > uint64(len(p)-k) {
		return "", p, false
	}
	p = p[k:]
	return string(p[:l]), p[l:], true
}

// DecodeBatches decodes a whole log file: every frame up to the first
// error. It returns the batches, the length of the valid prefix, and nil if
// that prefix is all of src, or the error (ErrTruncated or ErrCorrupt) met
// at the end of it. Recovery keeps the batches and truncates the file to
// valid, as Kafka's log recovery does at the first invalid batch.
func DecodeBatches(src []byte) (batches []Batch, valid int, err error) {
	for valid < len(src) {
		b, n, err := DecodeBatch(src[valid:])
		if err != nil {
			return batches, valid, err
		}
		batches = append(batches, b)
		valid += n
	}
	return batches, valid, nil
}
