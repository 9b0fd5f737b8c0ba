package scenarios

import (
	"fmt"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/sim"
)

// txnEra is the transactional bugs' cluster beside the safe baseline:
// read_committed consumers and a __transaction_state of 3 partitions (as
// txn-chaos has it). Their workload is fixture.TxnSpec's: one
// transactional producer writing topic txn, six records over its three
// partitions a transaction, every fourth aborted on purpose.
var txnEra = []string{"isolation.level=read_committed", "transaction.state.log.num.partitions=3"}

// txnProducerNode is the node of the workload's transactional producer
// "txn-producer-1" (fixture.addTxn names it).
func txnProducerNode(s *Scripted) sim.NodeID {
	for _, id := range s.Sim.Nodes() {
		if s.Sim.Name(id) == "txn-producer-1" {
			return id
		}
	}
	panic("scenarios: the fixture has no transactional producer")
}

// txnCoordinator is the broker that leads txn-1's __transaction_state
// partition: its transaction coordinator.
func txnCoordinator(s *Scripted) model.BrokerID {
	return s.Leader(s.TxnCoordinatorTPs()[0])
}

// slowTxnPartition is the last partition of the transactional topic whose
// leader is not the coordinator's broker, and that leader: the
// producer's link to it is the one slowed, so that the clog on its link
// to the coordinator delays nothing else.
func slowTxnPartition(s *Scripted, coord model.BrokerID) (model.TopicPartition, model.BrokerID) {
	spec := s.TxnSpec()
	for p := spec.Partitions - 1; p >= 0; p-- {
		tp := model.TP(spec.Topic, p)
		if l := s.Leader(tp); l != coord && l != model.NoBroker {
			return tp, l
		}
	}
	panic(fmt.Sprintf("scenarios: every partition of %s is led by the coordinator %v", spec.Topic, coord))
}

// kafka17754Schedule: the producer's link to one partition leader is
// slow (+2 s, below request.timeout.ms, so nothing times out): every
// transaction waits about 2 s for that partition's batch before its
// EndTxn(commit) can go, its other partitions written already. At 10 s
// the producer's link to the coordinator holds what it carries for
// request.timeout.ms plus 1 s, for 2.5 s: the EndTxn sent in that window
// (the producer is waiting for the slow batch nearly all the time) is
// answered by nobody in time. The producer gives up on it, closes the
// connection and sends it again on a new one, which commits the
// transaction; it begins the next. The first EndTxn, still on the wire,
// then reaches the coordinator 1 s later, in the middle of that next
// transaction: under transaction.version 0 its producer id and epoch are
// the current ones, and the coordinator commits the transaction with
// only the partitions written so far. The slow partition's batch then
// finds the transaction over: its verification is refused, the
// transaction fails at the client, and its first records are committed
// (an aborted read). With transaction.version=2 every end bumps the
// epoch and the late EndTxn is fenced.
func kafka17754Schedule(s *Scripted) faults.Schedule {
	producer := txnProducerNode(s)
	// __transaction_state is created when the producer first looks for
	// its coordinator: a twin runs on until it has a leader.
	p := s.probeUntil(s.ready, s.ready+10*time.Second, func(p *Scripted) bool { return txnCoordinator(p) != model.NoBroker })
	coord := txnCoordinator(p)
	_, slow := slowTxnPartition(p, coord)
	late := s.Config.Client.RequestTimeout + 5*time.Second
	return schedule("kafka-17754-delayed-endtxn", `
from %v to %v clog %d %v +2s
from 10s to 12500ms clog %d %v +%v
`, s.ready+time.Second, 100*time.Second, int(producer), slow, int(producer), coord, late)
}

// hangingTxnStop is when the hanging-transaction workload begins its last
// transaction, just after the clog of hangingTxnSchedule starts.
const hangingTxnStop = 10500 * time.Millisecond

// hangingTxnSchedule: from 10 s the producer's link to one partition
// leader (not the coordinator's broker) holds what it carries for 40 s,
// for 32 s; the producer begins its last transaction then
// (TxnSpec.Stop). That transaction's batch there is not answered: the
// request times out at request.timeout.ms (30 s) and its retry is
// clogged too, so the batch expires at delivery.timeout.ms (35 s) with
// its fate unknown; the producer aborts the transaction (EndTxn with
// the transaction's epoch: its markers carry it) and bumps its epoch
// afterwards. The first attempt, still on the wire, reaches the leader
// 40 s after it was sent, after the abort marker. Without
// transaction.partition.verification.enable the leader takes it as the
// first batch of a new transaction of the producer; the coordinator
// knows of none, nothing ever ends it, and the partition's last stable
// offset stays behind it. With verification the leader asks the
// coordinator, which has no such transaction, and refuses it.
func hangingTxnSchedule(s *Scripted) faults.Schedule {
	producer := txnProducerNode(s)
	p := s.probeUntil(s.ready, s.ready+10*time.Second, func(p *Scripted) bool { return txnCoordinator(p) != model.NoBroker })
	_, slow := slowTxnPartition(p, txnCoordinator(p))
	return schedule("hanging-transaction", `
from 10s to 42s clog %d %v +40s
`, int(producer), slow)
}
