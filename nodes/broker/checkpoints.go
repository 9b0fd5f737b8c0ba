package broker

import (
	"strconv"
	"strings"

	"kafkasim/model"
	"kafkasim/nodes/storage"
	"kafkasim/sim"
)

// writeHWCheckpoint saves every hosted partition's high watermark, as
// Kafka does every replica.high.watermark.checkpoint.interval.ms. Before
// KIP-101 a restarting follower truncated to this file's value.
//
// The lines go straight into a buffer the broker keeps for the next write
// (see storage.WriteCheckpointEntries).
func (b *Broker) writeHWCheckpoint() {
	b.hwBuf = storage.WriteCheckpointEntries(b.env.Disk(), hwCheckpointFile, b.hwBuf, len(b.tps), func(dst []byte, i int) []byte {
		tp := b.tps[i]
		dst = append(append(dst, tp.Topic...), ' ')
		dst = append(strconv.AppendInt(dst, int64(tp.Partition), 10), ' ')
		return strconv.AppendInt(dst, int64(b.part(tp).hw), 10)
	})
}

// readHWCheckpoint loads the high-watermark checkpoint; a missing or
// malformed file means no high watermarks (they start at the log start).
func readHWCheckpoint(d *sim.Disk) map[model.TopicPartition]model.Offset {
	out := map[model.TopicPartition]model.Offset{}
	lines, ok, err := storage.ReadCheckpoint(d, hwCheckpointFile)
	if !ok || err != nil {
		return out
	}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) != 3 {
			continue
		}
		p, err1 := strconv.ParseInt(f[1], 10, 32)
		hw, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		out[model.TP(f[0], int32(p))] = model.Offset(hw)
	}
	return out
}

// applyRetention deletes old segments on every hosted replica, never past
// its high watermark.
func (b *Broker) applyRetention() {
	for _, tp := range b.tps {
		p := b.part(tp)
		if n := p.log.ApplyRetention(b.now(), p.hw); n > 0 {
			b.env.Trace("retention", tp.String()+" logStart="+itoa(int64(p.log.LogStartOffset())))
		}
	}
}
