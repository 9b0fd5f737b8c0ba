package storage

import (
	"fmt"
	"testing"

	"kafkasim/model"
)

// BenchmarkAppend measures a leader's append path for batches of 10
// records: stamp, encode, write to the page cache, and update the epoch
// cache and producer state, with Kafka's default of no fsync and with an
// fsync per message, through AppendAsLeader (what a broker does) and
// through Rebase and Append (the two steps it replaces). The log restarts
// empty every 4096 batches so that memory stays bounded however long the
// benchmark runs.
func BenchmarkAppend(b *testing.B) {
	for _, path := range []string{"leader", "rebase"} {
		for _, flush := range []int64{0, 1} {
			b.Run(fmt.Sprintf("path=%s/flush-every=%d", path, flush), func(b *testing.B) {
				w := newWorld(b, 1)
				cfg := DefaultConfig()
				cfg.SegmentBytes = 1 << 20
				cfg.FlushIntervalMessages = flush
				l, _ := Open(w.disk, dir, cfg, 0)
				recs := make([]model.Record, 10)
				for i := range recs {
					recs[i] = model.Record{Key: fmt.Sprintf("key-%d", i), Value: "a value of about thirty bytes."}
				}
				produced := model.NewBatch(1, 0, 0, recs...)
				batches := 0
				for b.Loop() {
					if batches%4096 == 4095 {
						l.TruncateFullyAndStartAt(l.LEO())
					}
					produced.BaseSequence = int32(batches * 10)
					if path == "leader" {
						l.AppendAsLeader(&produced, 3, 0)
					} else {
						l.Append(produced.Rebase(l.LEO(), 3), 0)
					}
					batches++
				}
				b.ReportMetric(float64(batches*10)/b.Elapsed().Seconds(), "records/s")
			})
		}
	}
}
