package cluster

import (
	"strconv"

	"kafkasim/nodes/client"
	"kafkasim/sim"
)

// Sequence is a producer workload of unique values "<prefix>0",
// "<prefix>1", ... spread round-robin over a topic's partitions, up to
// Count records (0: no end). It lives outside the producer node so that a
// restarted producer never reuses a value.
type Sequence struct {
	Topic      string
	Partitions int32
	Prefix     string
	Count      int
	next       int
	stopped    bool
}

// Next implements client.Workload.
func (w *Sequence) Next(env *sim.Env) (client.Message, bool) {
	if w.stopped || (w.Count > 0 && w.next >= w.Count) {
		return client.Message{}, false
	}
	n := w.next
	w.next++
	m := client.Message{Topic: w.Topic, Value: w.Prefix + strconv.Itoa(n)}
	if w.Partitions > 0 {
		m.Partition, m.HasPartition = int32(n)%w.Partitions, true
	}
	return m, true
}

// Stop ends the workload: the producer sends nothing more.
func (w *Sequence) Stop() { w.stopped = true }

// Sent is how many values the workload has handed out.
func (w *Sequence) Sent() int { return w.next }
