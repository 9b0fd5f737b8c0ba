package storage

import (
	"testing"

	"kafkasim/model"
)

// HasReadable answers what ReadUpTo would: whether a read from from up to
// end returns a batch, for every from and end around a log of several
// segments whose start was moved by retention.
func TestHasReadableAgreesWithReadUpTo(t *testing.T) {
	w := newWorld(t, 1)
	cfg := smallSegments(300)
	cfg.RetentionBytes = 700
	l, _ := w.open(cfg)
	for i := 0; i < 30; i++ {
		l.Append(plain(l.LEO(), 1, 1+i%3), 0)
	}
	l.ApplyRetention(0, l.LEO())
	if l.LogStartOffset() == 0 || len(l.Segments()) < 3 {
		t.Fatalf("log start %d, %d segments: want a moved start and several segments", l.LogStartOffset(), len(l.Segments()))
	}
	for from := model.Offset(-1); from <= l.LEO()+1; from++ {
		for end := model.Offset(-1); end <= l.LEO()+2; end++ {
			want := len(l.ReadUpTo(from, 1, end)) > 0
			if got := l.HasReadable(from, end); got != want {
				t.Fatalf("HasReadable(%d, %d) = %v, ReadUpTo returns a batch: %v (log [%d, %d))", from, end, got, want, l.LogStartOffset(), l.LEO())
			}
		}
	}
}
