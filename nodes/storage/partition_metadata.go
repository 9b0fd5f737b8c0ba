package storage

import (
	"encoding/binary"

	"kafkasim/sim"
)

// A log's folder records which topic it was created for, as Kafka's
// partition.metadata file records the topic id (UnifiedLog
// initializeTopicId, PartitionMetadataFile). kafkasim's topics have no
// ids; a topic created again under a deleted topic's name has a higher
// life (the controller's count of deletions of the name), and that life
// stands in for the id. A log without the file belongs to a topic's first
// life, 0: every log of a name never reused looks as it did before lives
// were recorded, and only a recreated topic's logs carry the file.

// PartitionMetadataFile is the file's name inside a log's folder.
const PartitionMetadataFile = "partition.metadata"

// RecordLife writes the topic life a new log was created for, synced with
// its folder before the log takes any record (Kafka flushes
// partition.metadata before the first append, UnifiedLog.append's
// maybeFlushMetadataFile). Life 0 writes nothing (see above).
func RecordLife(disk *sim.Disk, dir string, life int32) {
	if life == 0 {
		return
	}
	name := dir + PartitionMetadataFile
	disk.Create(name)
	disk.Append(name, binary.BigEndian.AppendUint32(nil, uint32(life)))
	disk.Sync(name)
	disk.SyncDir()
}

// RecordedLife reads the topic life the log in dir was created for, and
// whether dir holds a log at all (any file). A file that is short (torn)
// reads as no record, life 0, as Kafka 3.7+ treats a log without
// partition.metadata as stray (LogManager.isStrayKraftReplica).
func RecordedLife(disk *sim.Disk, dir string) (life int32, exists bool) {
	if len(disk.List(dir)) == 0 {
		return 0, false
	}
	name := dir + PartitionMetadataFile
	if !disk.Exists(name) {
		return 0, true
	}
	b := disk.Read(name)
	if len(b) < 4 {
		return 0, true
	}
	return int32(binary.BigEndian.Uint32(b)), true
}
