package broker

import (
	"testing"
	"time"

	"kafkasim/model"
)

// The high-watermark checkpoint, written from a buffer the broker reuses,
// holds each write's own high watermarks: the second write, over the
// first one's buffer, reads back as the newer value, and the file is
// Kafka's format.
func TestTheHighWatermarkCheckpointHoldsTheLatestWrite(t *testing.T) {
	r := newRig(t, testConfig())
	r.produce(time.Second, 1, model.AcksAll, "v0")
	// replica.high.watermark.checkpoint.interval.ms is 5s: one write with
	// the high watermark at 1, then more after the next records.
	r.s.Run(6 * time.Second)
	d := r.s.Disk(1)
	if got, want := string(d.Read(hwCheckpointFile)), "0\n1\nt 0 1\n"; got != want {
		t.Fatalf("checkpoint %q, want %q", got, want)
	}
	for i := 0; i < 11; i++ {
		r.produce(7*time.Second+time.Duration(i)*time.Millisecond*10, 1, model.AcksAll, "v")
	}
	r.s.Run(12 * time.Second)
	if got := readHWCheckpoint(d); len(got) != 1 || got[r.tp] != 12 {
		t.Fatalf("checkpoint read back as %v, want t-0 at 12", got)
	}
}
