package client

import "kafkasim/model"

// brokerVerdicts memoizes a yes-or-no answer per broker for the length of
// one walk over the assignment: next starts a new walk and forgets every
// answer of the last one without clearing anything.
type brokerVerdicts struct {
	walk uint64
	byID []brokerVerdict // indexed by broker id, below verdictIDs
}

type brokerVerdict struct {
	walk uint64 // the walk that judged; older means unknown
	ok   bool
}

// verdictIDs bounds the broker ids memoized: brokers are numbered from 1,
// and a larger id is judged afresh each time rather than growing the table.
const verdictIDs = 4096

func (v *brokerVerdicts) next() { v.walk++ }

func (v *brokerVerdicts) get(b model.BrokerID) (ok, known bool) {
	if b < 0 || int(b) >= len(v.byID) || v.byID[b].walk != v.walk {
		return false, false
	}
	return v.byID[b].ok, true
}

func (v *brokerVerdicts) put(b model.BrokerID, ok bool) {
	if b < 0 || b >= verdictIDs {
		return
	}
	if int(b) >= len(v.byID) {
		v.byID = append(v.byID, make([]brokerVerdict, int(b)+1-len(v.byID))...)
	}
	v.byID[b] = brokerVerdict{walk: v.walk, ok: ok}
}
