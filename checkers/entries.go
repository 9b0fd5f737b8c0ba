package checkers

import "kafkasim/model"

// entry is the compact summary of one history entry that the checks
// read instead of the entry itself, built by analyze in its first pass:
// analysis.entries[i] sums up analysis.h[i].
//
// It exists for speed. A model.Op is 352 bytes, and the fields a check
// reads to decide whether an entry concerns it (what it did, its outcome,
// its transaction, its process, a send's offset, a poll's records) are
// spread over five of its cache lines, with a poll's records behind two
// more pointers. The checks walk the history a dozen times, some of them
// per process, and on a history of a million operations those walks were
// most of the checking time. Thirty-two bytes an entry, which hold every
// field those walks read (a send's partition is its record's, and its
// value its record's name), and the records of every poll in one flat
// slice, bring a walk down to the memory it needs: after analyze's three
// passes (summarize, addWriters, addReaders) no check reads a send's or a
// poll's model.Op unless it has found something to report.
type entry struct {
	// op is the client operation the entry belongs to, numbered in
	// history order: the micro-ops of one Txn share one.
	op int32
	// recs and nrecs are a poll's records: analysis.polledRecs[recs :
	// recs+nrecs], in the order the poll lists them.
	recs, nrecs int32
	// sent is the record a send with a known partition wrote, an index
	// into analysis.vals; -1 for other entries.
	sent int32
	// offset is a send's model.Op.Offset; NoOffset for other entries.
	offset model.Offset
	// proc is model.Op.Process when every process number of the history
	// is small (analysis.smallProcs), else 0.
	proc    int32
	kind    entryKind
	outcome entryOutcome
	// committed: the entry's operation must have taken effect (see
	// analysis.committed).
	committed bool
}

// entryKind is the part of model.OpF the checks branch on.
type entryKind uint8

const (
	kindOther entryKind = iota
	kindSend
	kindPoll
)

// entryOutcome is model.OpType as a small number.
type entryOutcome uint8

const (
	outcomeInvoke entryOutcome = iota
	outcomeOK
	outcomeFail
	outcomeInfo
)

func kindOf(f model.OpF) entryKind {
	switch f {
	case model.FSend:
		return kindSend
	case model.FPoll:
		return kindPoll
	}
	return kindOther
}

func outcomeOf(t model.OpType) entryOutcome {
	switch t {
	case model.OpOK:
		return outcomeOK
	case model.OpFail:
		return outcomeFail
	case model.OpInfo:
		return outcomeInfo
	}
	return outcomeInvoke
}

// completed is model.Op.Completed.
func (e *entry) completed() bool { return e.outcome != outcomeInvoke }

// indeterminate is model.OpType.Indeterminate.
func (e *entry) indeterminate() bool { return e.outcome == outcomeInfo || e.outcome == outcomeInvoke }

// polledRecord is one record a poll returned, as the checks need it: its
// offset, its record (partition and value: an index into analysis.vals,
// whose value analysis.names holds) and its partition (an index into
// analysis.parts).
type polledRecord struct {
	offset model.Offset
	id     int32
	part   int32
}
