package model

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"reflect"
	"testing"
	"time"
)

// sampleBatch is a sealed three-record batch as a leader would store it.
func sampleBatch() Batch {
	b := NewBatch(7, 1, 4,
		Record{Timestamp: 10 * time.Millisecond, Key: "k1", Value: "v1"},
		Record{Timestamp: 11 * time.Millisecond, Key: "", Value: "v2"},
		Record{Timestamp: 12 * time.Millisecond, Key: "k3", Value: ""},
	)
	if !b.Valid() || b.LeaderEpoch != NoEpoch || b.Records[2].Offset != 2 {
		panic("NewBatch: " + b.String())
	}
	return b.Rebase(17, 3)
}

func TestBatchOffsets(t *testing.T) {
	b := sampleBatch()
	if b.Count() != 3 || b.BaseOffset != 17 || b.LastOffset() != 19 || b.NextOffset() != 20 {
		t.Errorf("count %d base %d last %d next %d", b.Count(), b.BaseOffset, b.LastOffset(), b.NextOffset())
	}
	if b.LastSequence() != 6 {
		t.Errorf("LastSequence = %d, want 6", b.LastSequence())
	}
	for i, r := range b.Records {
		if r.Offset != 17+Offset(i) {
			t.Errorf("record %d offset %d", i, r.Offset)
		}
	}
	if got := b.String(); got != "[17..19]e3 pid=7:1 seq=4" {
		t.Errorf("String() = %q", got)
	}
	plain := Batch{BaseOffset: 5, LeaderEpoch: 2, ProducerID: NoProducerID, BaseSequence: NoSequence}
	if plain.LastSequence() != NoSequence || plain.LastOffset() != 4 {
		t.Errorf("empty batch: last seq %d last offset %d", plain.LastSequence(), plain.LastOffset())
	}
	if got := plain.String(); got != "[5..4]e2" {
		t.Errorf("String() = %q", got)
	}
}

func TestBatchRebaseCopies(t *testing.T) {
	recs := []Record{{Value: "a"}, {Value: "b"}}
	orig := NewBatch(NoProducerID, NoEpoch, NoSequence, recs...)
	c := orig.Rebase(100, 9)
	if orig.Records[0].Offset != 0 || orig.Records[1].Offset != 1 || orig.BaseOffset != 0 {
		t.Error("Rebase changed the sender's records")
	}
	if !orig.Valid() || !c.Valid() {
		t.Errorf("valid: orig %v copy %v", orig.Valid(), c.Valid())
	}
	if c.BaseOffset != 100 || c.LeaderEpoch != 9 || c.Records[1].Offset != 101 {
		t.Errorf("copy %v records %v", c, c.Records)
	}
	recs[0].Value = "changed"
	if orig.Records[0].Value != "a" {
		t.Error("NewBatch kept the caller's slice")
	}
}

// TestBatchCRCCoversEveryField changes each field in turn: every change must
// make the batch invalid, and the CRC must change.
func TestBatchCRCCoversEveryField(t *testing.T) {
	base := sampleBatch()
	if !base.Valid() {
		t.Fatal("sample batch not valid")
	}
	mutations := map[string]func(b *Batch){
		"BaseOffset":    func(b *Batch) { b.BaseOffset++; b.Records = rebased(b.Records, b.BaseOffset) },
		"LeaderEpoch":   func(b *Batch) { b.LeaderEpoch++ },
		"ProducerID":    func(b *Batch) { b.ProducerID++ },
		"ProducerEpoch": func(b *Batch) { b.ProducerEpoch++ },
		"BaseSequence":  func(b *Batch) { b.BaseSequence++ },
		"record offset": func(b *Batch) { b.Records[1].Offset++ },
		"timestamp":     func(b *Batch) { b.Records[1].Timestamp++ },
		"key":           func(b *Batch) { b.Records[0].Key = "k2" },
		"value":         func(b *Batch) { b.Records[2].Value = "x" },
		"record moved":  func(b *Batch) { b.Records[0].Key, b.Records[0].Value = "k1v", "1" },
		"record added":  func(b *Batch) { b.Records = append(b.Records, Record{Offset: 20}) },
		"record gone":   func(b *Batch) { b.Records = b.Records[:2] },
		"crc":           func(b *Batch) { b.CRC ^= 1 },
	}
	for name, mutate := range mutations {
		b := base
		b.Records = append([]Record(nil), base.Records...)
		mutate(&b)
		if b.Valid() {
			t.Errorf("%s: still valid after the change", name)
		}
		if name != "crc" && b.ComputeCRC() == base.CRC {
			t.Errorf("%s: CRC unchanged", name)
		}
	}
}

func rebased(rs []Record, base Offset) []Record {
	out := append([]Record(nil), rs...)
	for i := range out {
		out[i].Offset = base + Offset(i)
	}
	return out
}

func TestDecodeBatchRoundTrip(t *testing.T) {
	empty := Batch{BaseOffset: 3, LeaderEpoch: 1, ProducerID: NoProducerID, BaseSequence: NoSequence}
	empty.Seal()
	for _, b := range []Batch{sampleBatch(), empty} {
		enc := AppendBatch([]byte("prefix"), b)[len("prefix"):]
		got, n, err := DecodeBatch(enc)
		if err != nil || n != len(enc) {
			t.Fatalf("DecodeBatch: n=%d of %d, err %v", n, len(enc), err)
		}
		if !reflect.DeepEqual(got, b) {
			t.Errorf("round trip:\n got %#v\nwant %#v", got, b)
		}
	}
}

// TestDecodeBatchTornTail cuts an encoded log at every byte: a cut inside
// the last frame is ErrTruncated and the valid prefix is the frames before.
func TestDecodeBatchTornTail(t *testing.T) {
	b1 := sampleBatch()
	b2 := b1.Rebase(20, 4)
	log := AppendBatch(AppendBatch(nil, b1), b2)
	first := len(AppendBatch(nil, b1))
	for cut := 0; cut <= len(log); cut++ {
		bs, valid, err := DecodeBatches(log[:cut])
		switch {
		case cut == len(log):
			if err != nil || valid != cut || len(bs) != 2 {
				t.Errorf("whole log: %d batches, valid %d, err %v", len(bs), valid, err)
			}
		case cut == first || cut == 0:
			if err != nil || valid != cut {
				t.Errorf("cut %d at a frame boundary: valid %d, err %v", cut, valid, err)
			}
		case cut < first:
			if !errors.Is(err, ErrTruncated) || valid != 0 || len(bs) != 0 {
				t.Errorf("cut %d: %d batches, valid %d, err %v", cut, len(bs), valid, err)
			}
		default:
			if !errors.Is(err, ErrTruncated) || valid != first || len(bs) != 1 {
				t.Errorf("cut %d: %d batches, valid %d, err %v", cut, len(bs), valid, err)
			}
		}
	}
	if _, _, err := DecodeBatch(nil); err != io.EOF {
		t.Errorf("empty input: %v, want io.EOF", err)
	}
}

// TestDecodeBatchCorrupt flips every bit of a frame's CRC and body: each
// flip must be ErrCorrupt, never a silently different batch.
func TestDecodeBatchCorrupt(t *testing.T) {
	enc := AppendBatch(nil, sampleBatch())
	for i := 4; i < len(enc); i++ {
		for bit := 0; bit < 8; bit++ {
			bad := bytes.Clone(enc)
			bad[i] ^= 1 << bit
			_, n, err := DecodeBatch(bad)
			if !errors.Is(err, ErrCorrupt) || n != 0 {
				t.Fatalf("flip byte %d bit %d: n=%d err=%v, want ErrCorrupt", i, bit, n, err)
			}
			if errors.Is(err, ErrTruncated) {
				t.Fatalf("flip byte %d bit %d: reported as truncated", i, bit)
			}
		}
	}
	// A length field beyond the bound is corrupt, not a very long torn tail.
	huge := bytes.Clone(enc)
	huge[0] = 0xff
	if _, _, err := DecodeBatch(huge); !errors.Is(err, ErrCorrupt) {
		t.Errorf("huge length: %v, want ErrCorrupt", err)
	}
	// A batch whose CRC was never sealed is written as it is and read back
	// as corrupt: the disk does not launder a bad batch.
	unsealed := sampleBatch()
	unsealed.Records[0].Value = "changed"
	if _, _, err := DecodeBatch(AppendBatch(nil, unsealed)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("unsealed batch: %v, want ErrCorrupt", err)
	}
}

// FuzzDecodeBatch feeds arbitrary bytes to the decoder, which must never
// panic, and must either fail with one of its errors or return a valid
// batch that encodes back to the bytes it consumed. The same input also
// seeds a batch to encode: that one must round trip, and every strict
// prefix of its frame must read as truncated.
func FuzzDecodeBatch(f *testing.F) {
	f.Add([]byte{})
	f.Add(AppendBatch(nil, sampleBatch()))
	f.Add([]byte{0, 0, 0, 40, 1, 2, 3, 4})
	f.Add([]byte("\x00\x00\x00\x21 some bytes that are not a batch at all"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, n, err := DecodeBatch(data)
		if err != nil {
			if n != 0 {
				t.Fatalf("error %v with n=%d", err, n)
			}
			if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrCorrupt) && err != io.EOF {
				t.Fatalf("unexpected error kind %v", err)
			}
		} else {
			if n < 4 || n > len(data) {
				t.Fatalf("n=%d of %d", n, len(data))
			}
			// Varints admit non-minimal forms, so compare decoded values,
			// not bytes: decode(encode(b)) must be b.
			again, m, err := DecodeBatch(AppendBatch(nil, b))
			if err != nil || !reflect.DeepEqual(again, b) || m > n {
				t.Fatalf("re-encode: %v, n %d vs %d", err, m, n)
			}
		}

		gen := batchFromBytes(data)
		enc := AppendBatch(nil, gen)
		got, n, err := DecodeBatch(enc)
		if err != nil || n != len(enc) || !reflect.DeepEqual(got, gen) {
			t.Fatalf("round trip of %v: n=%d/%d err=%v\n got %#v\nwant %#v", gen, n, len(enc), err, got, gen)
		}
		if !got.Valid() {
			t.Fatal("decoded batch not valid")
		}
		for cut := 1; cut < len(enc); cut++ {
			if _, _, err := DecodeBatch(enc[:cut]); !errors.Is(err, ErrTruncated) {
				t.Fatalf("prefix %d of %d: %v, want ErrTruncated", cut, len(enc), err)
			}
		}
	})
}

// batchFromBytes builds a sealed batch whose fields and records are drawn
// from data, so the fuzzer explores encodings of many shapes.
func batchFromBytes(data []byte) Batch {
	next := func() int64 {
		var v int64
		for i := 0; i < 8 && len(data) > 0; i++ {
			v = v<<8 | int64(data[0])
			data = data[1:]
		}
		return v
	}
	b := Batch{
		LeaderEpoch:   Epoch(next()),
		ProducerID:    ProducerID(next()),
		ProducerEpoch: Epoch(int16(next())), // Kafka's producer epoch is an int16
		BaseSequence:  int32(next()),
	}
	// Every other generated batch is transactional or a control batch
	// (whose epoch is never negative).
	if a := next() & 3; a != 0 && b.ProducerEpoch >= 0 {
		b.Attributes = [...]int16{0, AttrTransactional, AttrControl, AttrTransactional | AttrControl}[a]
	}
	base := Offset(next())
	for len(data) > 0 && len(b.Records) < 20 {
		k := int(data[0]) % (len(data) + 1)
		data = data[1:]
		if k > len(data) {
			k = len(data)
		}
		key := string(data[:k])
		data = data[k:]
		b.Records = append(b.Records, Record{Timestamp: time.Duration(next()), Key: key, Value: string(data[:len(data)/2])})
		data = data[len(data)/2:]
	}
	b.Seal()
	return b.Rebase(base, b.LeaderEpoch)
}

func TestCRC32CMatchesTheStandardLibrary(t *testing.T) {
	p := make([]byte, 300)
	for i := range p {
		p[i] = byte(i*131 + 7)
	}
	for n := 0; n <= len(p); n++ {
		if got, want := crc32c(p[:n]), crc32.Checksum(p[:n], castagnoli); got != want {
			t.Fatalf("length %d: crc32c %08x, hash/crc32 %08x", n, got, want)
		}
	}
}

func TestAppendValidBatchAgreesWithValid(t *testing.T) {
	good := NewBatch(7, 1, 3, Record{Timestamp: 5, Key: "k", Value: "v"}, Record{Timestamp: 6, Value: "w"}).Rebase(40, 2)
	badValue := good
	badValue.Records = append([]Record(nil), good.Records...)
	badValue.Records[1].Value = "x"
	badOffset := good
	badOffset.Records = append([]Record(nil), good.Records...)
	badOffset.Records[1].Offset++
	for _, tc := range []struct {
		name string
		b    Batch
	}{{"good", good}, {"changed value", badValue}, {"changed offset", badOffset}} {
		frame, ok := AppendValidBatch([]byte("prefix"), &tc.b)
		if ok != tc.b.Valid() {
			t.Errorf("%s: AppendValidBatch says %v, Valid says %v", tc.name, ok, tc.b.Valid())
		}
		if string(frame[6:]) != string(AppendBatch(nil, tc.b)) {
			t.Errorf("%s: AppendValidBatch encodes differently from AppendBatch", tc.name)
		}
	}
	if !good.Valid() || badValue.Valid() || badOffset.Valid() {
		t.Fatal("test batches are not what they claim")
	}
}

func TestNewBatchOfEqualsNewBatch(t *testing.T) {
	recs := []Record{{Timestamp: 3, Key: "k", Value: "a"}, {Offset: 9, Timestamp: 4, Value: "b"}}
	want := NewBatch(7, 1, 5, recs...)
	got := NewBatchOf(7, 1, 5, append([]Record(nil), recs...))
	if !reflect.DeepEqual(got, want) || !got.Valid() {
		t.Fatalf("NewBatchOf = %+v, want %+v", got, want)
	}
	if empty := NewBatchOf(NoProducerID, NoEpoch, NoSequence, []Record{}); !reflect.DeepEqual(empty, NewBatch(NoProducerID, NoEpoch, NoSequence)) {
		t.Fatalf("empty NewBatchOf = %+v", empty)
	}
}

// TestRestampFrameEqualsRebase checks that moving an encoded batch in
// place gives the very frame and CRC that encoding the rebased batch
// gives, for a producer's batch (base 0, no epoch) and for one already
// placed elsewhere, including a base and epoch whose encodings differ in
// every byte from the old ones.
func TestRestampFrameEqualsRebase(t *testing.T) {
	producer := NewBatch(7, 1, 4,
		Record{Timestamp: 10 * time.Millisecond, Key: "k1", Value: "v1"},
		Record{Timestamp: -3, Value: "v2"},
		Record{Timestamp: 1 << 40, Key: "k3"},
	)
	for _, tc := range []struct {
		name  string
		b     Batch
		base  Offset
		epoch Epoch
	}{
		{"producer's", producer, 98765, 3},
		{"placed", producer.Rebase(17, 2), 1 << 50, 0x7fffffff},
		{"back to zero", producer.Rebase(17, 2), 0, 0},
	} {
		frame, ok := AppendValidBatch([]byte("prefix"), &tc.b)
		if !ok {
			t.Fatalf("%s: test batch not valid", tc.name)
		}
		crc := RestampFrame(frame[6:], tc.base, tc.epoch)
		want := tc.b.Rebase(tc.base, tc.epoch)
		if crc != want.CRC {
			t.Errorf("%s: CRC %08x, Rebase's %08x", tc.name, crc, want.CRC)
		}
		if string(frame[6:]) != string(AppendBatch(nil, want)) {
			t.Errorf("%s: restamped frame differs from the rebased batch's", tc.name)
		}
		if string(frame[:6]) != "prefix" {
			t.Errorf("%s: bytes before the frame changed", tc.name)
		}
	}
}
