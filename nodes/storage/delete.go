package storage

import (
	"time"

	"kafkasim/sim"
)

// Delete removes every file of the log, for a replica of a deleted topic.
// Kafka's LogManager.asyncDelete renames the folder to "...-delete" and
// removes it after file.delete.delay.ms; the rename is what makes the log
// gone for the broker, so removing the files at once, with the folder's
// namespace synced, is the same for everything that reads the disk after.
// The Log must not be used afterwards.
func (l *Log) Delete() {
	l.removeFiles(l.disk.List(l.dir)...)
	l.changed()
}

// DeleteDir removes the files of a log that was never opened.
func DeleteDir(disk *sim.Disk, dir string) {
	names := disk.List(dir)
	for _, n := range names {
		disk.Remove(n)
	}
	if len(names) > 0 {
		disk.SyncDir()
	}
}

// SetRetention changes the log's retention settings (retention.ms and
// retention.bytes), for a topic whose configuration changed: Kafka's
// LogManager.updateTopicConfig hands the log its new LogConfig.
func (l *Log) SetRetention(retention time.Duration, bytes int64) {
	l.cfg.RetentionTime = retention
	l.cfg.RetentionBytes = bytes
}
