package storage

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"kafkasim/sim"
)

// checkpointVersion is the version line every checkpoint file starts with.
// Kafka's leader-epoch-checkpoint, replication-offset-checkpoint and
// log-start-offset-checkpoint are all version 0.
const checkpointVersion = 0

// WriteCheckpoint replaces the small file name with lines, atomically, the
// way Kafka's CheckpointFile.write does: the content goes to name+".tmp",
// which is synced, renamed over name, and the directory synced. A power loss
// at any point leaves either the old file or the new one whole, never a mix
// or a torn write; once WriteCheckpoint returns, the new file survives.
//
// The format is Kafka's: a version line, a count line, then one line per
// entry. Lines must not contain a newline.
func WriteCheckpoint(disk *sim.Disk, name string, lines []string) {
	WriteCheckpointEntries(disk, name, nil, len(lines), func(dst []byte, i int) []byte {
		return append(dst, lines[i]...)
	})
}

// WriteCheckpointEntries is WriteCheckpoint of n entries that entry appends
// to the file's content one at a time (i from 0 to n-1) rather than of
// lines made first: a broker writes the high watermark of every partition
// it hosts every few seconds, fifty-odd lines with the offsets topic, and
// making each one a string was most of what that cost. buf is scratch
// space the caller may keep from one write to the next (nil at first); the
// disk copies what it is given, so the buffer, returned possibly grown,
// can be written over at once.
func WriteCheckpointEntries(disk *sim.Disk, name string, buf []byte, n int, entry func(dst []byte, i int) []byte) []byte {
	buf = strconv.AppendInt(buf[:0], checkpointVersion, 10)
	buf = append(buf, '\n')
	buf = strconv.AppendInt(buf, int64(n), 10)
	buf = append(buf, '\n')
	for i := 0; i < n; i++ {
		start := len(buf)
		buf = entry(buf, i)
		if bytes.IndexByte(buf[start:], '\n') >= 0 {
			panic(fmt.Sprintf("storage: checkpoint %s: entry %q contains a newline", name, buf[start:]))
		}
		buf = append(buf, '\n')
	}
	tmp := name + ".tmp"
	disk.Create(tmp)
	disk.Append(tmp, buf)
	// The sync must come before the rename: a rename made durable before the
	// content would let a power loss leave an empty or torn file under the
	// real name.
	disk.Sync(tmp)
	disk.Rename(tmp, name)
	disk.SyncDir()
	return buf
}

// ReadCheckpoint reads a file written by WriteCheckpoint. It returns the
// entry lines and true; false and a nil error when the file does not exist;
// false and an error naming the file and the problem when it is malformed
// (wrong version, a count that does not match the lines), which callers
// treat as absent, as Kafka fails the read and rebuilds from the log where
// it can. An empty file reads as present with no entries, as in Kafka, which
// creates its checkpoint files empty.
func ReadCheckpoint(disk *sim.Disk, name string) ([]string, bool, error) {
	if !disk.Exists(name) {
		return nil, false, nil
	}
	text := string(disk.Read(name))
	if text == "" {
		return nil, true, nil
	}
	if !strings.HasSuffix(text, "\n") {
		return nil, false, fmt.Errorf("checkpoint %s: does not end with a newline", name)
	}
	all := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if v, err := strconv.Atoi(all[0]); err != nil || v != checkpointVersion {
		return nil, false, fmt.Errorf("checkpoint %s: line 1: version %q, want %d", name, all[0], checkpointVersion)
	}
	if len(all) < 2 {
		return nil, true, nil // Kafka reads a file with only a version as empty
	}
	n, err := strconv.Atoi(all[1])
	if err != nil || n < 0 {
		return nil, false, fmt.Errorf("checkpoint %s: line 2: count %q is not a non-negative integer", name, all[1])
	}
	entries := all[2:]
	if len(entries) != n {
		return nil, false, fmt.Errorf("checkpoint %s: count says %d entries, found %d", name, n, len(entries))
	}
	return entries, true, nil
}
