package controller

import (
	"encoding/binary"
	"hash/crc32"

	"kafkasim/sim"
)

// LogFile is the name of the metadata log on the controller's disk, after
// KRaft's __cluster_metadata topic partition.
const LogFile = "__cluster_metadata-0.log"

// The metadata log is a file of batches. A batch is the records of one
// controller operation (a fencing and the partition changes it causes, a
// registration, a topic), written with one append and synced before any of
// them takes effect. Its frame:
//
//	payload length  uint32, big-endian
//	CRC-32C         uint32 of the payload
//	payload         base offset (uvarint), record count (uvarint), records
//
// One frame per operation makes the operation atomic on disk: a power loss
// can tear only the last, unsynced frame, and recovery drops a torn frame
// whole, so no replay ever sees half of an operation. Kafka's controller
// gets the same from writing an operation's records as one atomic batch
// (ControllerResult.atomicOf).
//
// Offsets start at 1 and grow by one per record, so 0 means "nothing", the
// value a broker that has applied no update reports.
const frameHeader = 8

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// metadataLog appends batches to LogFile and reads them back.
type metadataLog struct {
	disk *sim.Disk
	// next is the offset the next record gets.
	next int64
}

// entry is one record with its offset.
type entry struct {
	offset int64
	record Record
}

// openLog reads the log, creating it if it does not exist, and returns its
// records and how many bytes of torn tail it dropped. It stops at the first
// frame that is incomplete, fails its checksum, does not decode, or does not
// start at the next offset: after a power loss that can only be the last
// frame, whose write was never synced. The file is then cut back to the
// intact prefix and synced, so that later appends follow a good frame.
func openLog(disk *sim.Disk) (*metadataLog, []entry, int64) {
	l := &metadataLog{disk: disk, next: 1}
	if !disk.Exists(LogFile) {
		disk.Create(LogFile)
		// The new name must survive a power loss, or a later sync of the
		// file's content would be syncing a file that then vanishes.
		disk.Sync(LogFile)
		disk.SyncDir()
		return l, nil, 0
	}
	data := disk.Read(LogFile)
	var entries []entry
	pos := 0
	for {
		batch, size, ok := decodeFrame(data[pos:], l.next)
		if !ok {
			break
		}
		for _, r := range batch {
			entries = append(entries, entry{offset: l.next, record: r})
			l.next++
		}
		pos += size
	}
	torn := int64(len(data) - pos)
	if torn > 0 {
		disk.Truncate(LogFile, int64(pos))
		disk.Sync(LogFile)
	}
	return l, entries, torn
}

// decodeFrame reads the frame at the front of b, which must hold records
// starting at offset base.
func decodeFrame(b []byte, base int64) ([]Record, int, bool) {
	if len(b) < frameHeader {
		return nil, 0, false
	}
	n := int(binary.BigEndian.Uint32(b))
	if n > len(b)-frameHeader {
		return nil, 0, false
	}
	payload := b[frameHeader : frameHeader+n]
	if crc32.Checksum(payload, castagnoli) != binary.BigEndian.Uint32(b[4:]) {
		return nil, 0, false
	}
	d := decoder{b: payload}
	if d.uvarint() != uint64(base) {
		return nil, 0, false
	}
	count := d.count()
	if d.err != nil || count == 0 {
		return nil, 0, false
	}
	records := make([]Record, 0, count)
	for i := 0; i < count; i++ {
		r := d.record()
		if d.err != nil {
			return nil, 0, false
		}
		records = append(records, r)
	}
	if len(d.b) != 0 {
		return nil, 0, false
	}
	return records, frameHeader + n, true
}

// encodeFrame builds the frame for records starting at offset base.
func encodeFrame(base int64, records []Record) []byte {
	payload := binary.AppendUvarint(nil, uint64(base))
	payload = binary.AppendUvarint(payload, uint64(len(records)))
	for _, r := range records {
		payload = r.appendTo(payload)
	}
	frame := make([]byte, frameHeader, frameHeader+len(payload))
	binary.BigEndian.PutUint32(frame, uint32(len(payload)))
	binary.BigEndian.PutUint32(frame[4:], crc32.Checksum(payload, castagnoli))
	return append(frame, payload...)
}

// append writes records as one batch and syncs it, returning the offset of
// the first. When it returns the batch is durable: the controller answers
// and publishes nothing it could forget in a power loss.
func (l *metadataLog) append(records []Record) int64 {
	if len(records) == 0 {
		panic("controller: appending an empty batch")
	}
	base := l.next
	l.disk.Append(LogFile, encodeFrame(base, records))
	l.disk.Sync(LogFile)
	l.next += int64(len(records))
	return base
}
