package broker

import (
	"strconv"

	"kafkasim/model"
	"kafkasim/nodes/storage"
	"kafkasim/sim"
)

// producerIDAllocator hands out producer ids unique across the cluster
// and across restarts: the broker id, a block number persisted (synced) at
// every start, and a counter. Kafka gets blocks of ids from the
// controller (KIP-730); a per-broker block is enough for uniqueness here.
type producerIDAllocator struct {
	broker model.BrokerID
	block  int64
	next   int64
}

const producerIDFile = "producer-id-block"

func (a *producerIDAllocator) start(d *sim.Disk, id model.BrokerID) {
	a.broker = id
	if lines, ok, err := storage.ReadCheckpoint(d, producerIDFile); ok && err == nil && len(lines) == 1 {
		if n, err := strconv.ParseInt(lines[0], 10, 64); err == nil {
			a.block = n + 1
		}
	}
	storage.WriteCheckpoint(d, producerIDFile, []string{strconv.FormatInt(a.block, 10)})
}

func (a *producerIDAllocator) allocate() model.ProducerID {
	a.next++
	return model.ProducerID(int64(a.broker)<<40 | a.block<<20 | a.next)
}

func (b *Broker) handleInitProducerID(from model.BrokerID, m model.InitProducerIDRequest) {
	b.send(from, model.InitProducerIDResponse{
		CorrelationID: m.CorrelationID,
		ProducerID:    b.producerIDs.allocate(),
		ProducerEpoch: 0,
	})
}
