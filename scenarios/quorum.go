package scenarios

// nodes/raft numbers its log from 1, and its high watermark and snapshot
// offsets name the last entry they cover. The checkers speak Kafka's
// numbering, where both name the first entry past what they cover (the
// high watermark is exclusive; a snapshot id's end offset is the next
// offset to fetch). Entry offsets are kept as the nodes' traces print
// them; only these two ends move by one.

// raftEnd converts a raft "last covered" offset (a high watermark, a
// snapshot's last entry) to the checkers' exclusive end.
func raftEnd(last int64) int64 { return last + 1 }
