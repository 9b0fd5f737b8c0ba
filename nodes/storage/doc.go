// Package storage is one partition replica's durable state on a node's
// simulated disk, as Kafka's storage module keeps it: the partition log in
// segment files (UnifiedLog, LocalLog, LogSegment), the leader-epoch cache
// and its checkpoint file (LeaderEpochFileCache), the idempotent producers'
// deduplication state and its snapshot files (ProducerStateManager,
// ProducerStateEntry, ProducerAppendInfo), and the atomic small-file write
// Kafka uses for every checkpoint (CheckpointFile).
//
// A broker opens one Log per partition replica it hosts, in a folder of its
// sim.Disk such as "t-0/", and drives it: a leader checks a produce batch
// (Valid, then against the producer state) and has the log stamp and append
// it (AppendAsLeader); a follower appends what it fetched as it is
// (AppendShared); both truncate on divergence and apply retention. At a
// clean shutdown the broker closes each log (Close: a producer-state
// snapshot at its end), and at start it tells Open whether it found its
// clean-shutdown marker (OpenAfterCleanShutdown). The package decides
// nothing about replication: it knows no high watermark except the one a
// caller passes to retention, no ISR and no leader.
//
// Durability follows Kafka, not what would be safest. A write reaches the
// page cache and survives a process crash; it survives a power loss only
// once the flush policy (log.flush.interval.messages, log.flush.interval.ms)
// or a segment roll has synced it, and a new segment file's name only once a
// flush has synced the directory. Kafka's defaults never flush, and the
// testbed exists to show what that costs. Recovery on Open is Kafka's
// recovery after an unclean shutdown: keep every whole, valid batch and cut
// the log at the first torn or corrupt one.
//
// The disk is the durability model and memory is the page cache's view:
// every batch is decoded once, when it is appended or recovered, and reads
// are served from memory without decoding.
//
// This package must never start a goroutine, use channels or package sync,
// read the real clock, touch the real file system, or draw randomness; it
// imports only sim, model and the standard library. It must never let map
// iteration order reach behaviour, and it must never panic on what it reads
// from disk: damaged bytes are a recovery outcome, not a programmer error.
// Programmer errors (appending at the wrong offset, a batch that fails its
// CRC) panic with a message.
package storage
