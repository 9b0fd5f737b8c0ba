package raft

import (
	"encoding/binary"
	"hash/crc32"

	"kafkasim/model"
	"kafkasim/sim"
)

// The quorum state (Kafka's quorum-state file, FileQuorumStateStore): the
// epoch, whom this voter voted for in it, and the leader it knows. It is
// written beside the old file, synced and renamed into place, so that a
// power loss leaves either the old state or the new one, and it is durable
// before the vote or the epoch it records is acted on: a voter that
// forgot its vote could vote twice in one epoch.

type quorumState struct {
	epoch    model.Epoch
	votedFor model.BrokerID
	leader   model.BrokerID
}

func writeQuorumState(disk *sim.Disk, name string, q quorumState) {
	p := binary.AppendVarint(nil, int64(q.epoch))
	p = binary.AppendVarint(p, int64(q.votedFor))
	p = binary.AppendVarint(p, int64(q.leader))
	writeFileAtomic(disk, name, p)
}

func readQuorumState(disk *sim.Disk, name string) (quorumState, bool) {
	q := quorumState{votedFor: model.NoBroker, leader: model.NoBroker}
	p, ok := readFileChecked(disk, name)
	if !ok {
		return q, false
	}
	r := reader{b: p}
	q.epoch = model.Epoch(r.varint())
	q.votedFor = model.BrokerID(r.varint())
	q.leader = model.BrokerID(r.varint())
	if r.bad {
		return quorumState{votedFor: model.NoBroker, leader: model.NoBroker}, false
	}
	return q, true
}

// writeSnapshot stores a snapshot ending at offset (KIP-630's
// <offset>-<epoch>.checkpoint, one file here).
func writeSnapshot(disk *sim.Disk, name string, offset int64, epoch model.Epoch, data []byte) {
	p := binary.AppendUvarint(nil, uint64(offset))
	p = binary.AppendVarint(p, int64(epoch))
	p = append(p, data...)
	writeFileAtomic(disk, name, p)
}

func readSnapshot(disk *sim.Disk, name string) (int64, model.Epoch, []byte, bool) {
	p, ok := readFileChecked(disk, name)
	if !ok {
		return 0, 0, nil, false
	}
	r := reader{b: p}
	off := int64(r.uvarint())
	epoch := model.Epoch(r.varint())
	if r.bad || off < 1 {
		return 0, 0, nil, false
	}
	return off, epoch, r.b, true
}

// writeFileAtomic writes a checksummed payload to name.tmp, syncs it and
// renames it over name, then syncs the directory.
func writeFileAtomic(disk *sim.Disk, name string, payload []byte) {
	f := make([]byte, frameHeader, frameHeader+len(payload))
	binary.BigEndian.PutUint32(f, uint32(len(payload)))
	binary.BigEndian.PutUint32(f[4:], crc32.Checksum(payload, castagnoli))
	f = append(f, payload...)
	tmp := name + ".tmp"
	disk.Create(tmp)
	disk.Append(tmp, f)
	disk.Sync(tmp)
	disk.Rename(tmp, name)
	disk.SyncDir()
}

// readFileChecked reads a file written by writeFileAtomic; false if it is
// missing or damaged.
func readFileChecked(disk *sim.Disk, name string) ([]byte, bool) {
	if !disk.Exists(name) {
		return nil, false
	}
	b := disk.Read(name)
	if len(b) < frameHeader {
		return nil, false
	}
	n := int(binary.BigEndian.Uint32(b))
	if n != len(b)-frameHeader || crc32.Checksum(b[frameHeader:], castagnoli) != binary.BigEndian.Uint32(b[4:]) {
		return nil, false
	}
	return b[frameHeader:], true
}
