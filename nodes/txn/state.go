package txn

// State is a transaction's state, with Kafka's byte id as its value
// (TransactionState.id, which the log record stores).
type State int8

// The states, as TransactionState names them.
const (
	Empty             State = 0 // no transaction yet, or the last one is forgotten
	Ongoing           State = 1 // partitions added, not yet ended
	PrepareCommit     State = 2 // EndTxn(commit) written; markers being sent
	PrepareAbort      State = 3 // EndTxn(abort) or a fence written; markers being sent
	CompleteCommit    State = 4 // every commit marker written
	CompleteAbort     State = 5 // every abort marker written
	Dead              State = 6 // transactional.id expired, being removed
	PrepareEpochFence State = 7 // an InitProducerId or timeout is fencing the producer
)

var stateNames = [...]string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort",
	"CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"}

func (s State) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "UnknownState"
}

// validPrevious is TransactionState.validPreviousStates: the states a
// transition into the key may start from. With transaction version 2 a
// client may abort from Empty, CompleteCommit and CompleteAbort (it may
// not know the coordinator's state), so PrepareAbort admits them.
var validPrevious = map[State][]State{
	Empty:             {Empty, CompleteCommit, CompleteAbort},
	Ongoing:           {Ongoing, Empty, CompleteCommit, CompleteAbort},
	PrepareCommit:     {Ongoing},
	PrepareAbort:      {Ongoing, PrepareEpochFence, Empty, CompleteCommit, CompleteAbort},
	CompleteCommit:    {PrepareCommit},
	CompleteAbort:     {PrepareAbort},
	Dead:              {Empty, CompleteAbort, CompleteCommit},
	PrepareEpochFence: {Ongoing},
}

// canFollow says whether a transition from prev into s is legal.
func (s State) canFollow(prev State) bool {
	for _, p := range validPrevious[s] {
		if p == prev {
			return true
		}
	}
	return false
}

// expirationAllowed is TransactionState.isExpirationAllowed: only a
// transactional.id with no transaction in flight may expire.
func (s State) expirationAllowed() bool {
	return s == Empty || s == CompleteCommit || s == CompleteAbort
}
