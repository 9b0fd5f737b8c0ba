package cluster

import (
	"kafkasim/model"
	"kafkasim/nodes/storage"
	"kafkasim/sim"
)

// Replica is one broker's copy of a partition as it stands on that
// broker's disk: what an operator reading the log files would see.
type Replica struct {
	Broker   model.BrokerID
	TP       model.TopicPartition
	LogStart model.Offset
	LEO      model.Offset
	HW       model.Offset // -1 when the broker is down (only the disk is read)
	Records  []model.OffsetValue
}

// Replicas reads every broker's copy of tp. A running broker is read
// through its open log; a down broker's log is opened from its disk, as a
// restart would (recovering a torn tail), without changing the disk's
// durable state beyond what recovery itself writes.
func (c *Cluster) Replicas(tp model.TopicPartition) []Replica {
	var out []Replica
	for _, id := range c.Brokers {
		var log *storage.Log
		hw := model.Offset(-1)
		if b := c.Broker(id); b != nil {
			v, ok := b.Partition(tp)
			if !ok {
				continue
			}
			log, hw = v.Log, v.HW
		} else {
			d := c.Sim.Disk(sim.NodeID(id))
			dir := tp.Topic + "-" + itoa(int64(tp.Partition)) + "/"
			if len(d.List(dir)) == 0 {
				continue
			}
			log, _ = storage.Open(d, dir, storage.ConfigFrom(c.Config.Broker, c.Config.Topic), c.Sim.Now())
		}
		r := Replica{Broker: id, TP: tp, LogStart: log.LogStartOffset(), LEO: log.LEO(), HW: hw}
		for off := log.LogStartOffset(); off < log.LEO(); {
			batches := log.Read(off, 1<<20)
			if len(batches) == 0 {
				break
			}
			for _, b := range batches {
				for _, rec := range b.Records {
					if rec.Offset >= off {
						r.Records = append(r.Records, model.OffsetValue{Offset: rec.Offset, Value: rec.Value})
					}
				}
				off = b.NextOffset()
			}
		}
		out = append(out, r)
	}
	return out
}
