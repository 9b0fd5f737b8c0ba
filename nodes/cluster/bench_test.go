package cluster

import (
	"runtime"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/client"
	"kafkasim/sim"
)

// BenchmarkCluster runs a 3-broker cluster (one topic, 3 partitions,
// replication factor 3) with a producer sending 1,000 records per virtual
// second (acks=all, linger.ms=5) and one consumer reading every
// partition, and reports how fast the simulation goes.
//
// The producer is paced in one of two ways:
//   - keyless: records without a key, so Kafka's default partitioner
//     (sticky, KIP-794) chooses, two every 2 ms as kafka-producer-perf-test
//     --throughput 1000 sends them. This is the figure the README gives.
//   - round-robin: one record every millisecond, each pinned to the next
//     partition in turn. Each partition's batch then holds about two
//     records, the worst case for batching; it is kept to compare with
//     the figures measured this way before.
func BenchmarkCluster(b *testing.B) {
	for _, pace := range []struct {
		name       string
		partitions int32 // pinned round-robin over this many; 0: keyless
		interval   time.Duration
		burst      int
	}{
		{"keyless", 0, 2 * time.Millisecond, 2},
		{"round-robin", 3, time.Millisecond, 1},
	} {
		b.Run(pace.name, func(b *testing.B) {
			work := &Sequence{Topic: "t", Partitions: pace.partitions, Prefix: "v"}
			benchmarkCluster(b, work, pace.interval, pace.burst)
		})
	}
}

func benchmarkCluster(b *testing.B, work *Sequence, interval time.Duration, burst int) {
	kc := model.DefaultConfig()
	kc.Broker.DefaultReplicationFactor = 3
	kc.Topic.MinInsyncReplicas = 2
	kc.Producer.Linger = 5 * time.Millisecond
	kc.Consumer.AutoOffsetReset = model.ResetEarliest
	c, err := New(Options{Seed: 1, Config: kc, Topics: []model.TopicSpec{{Name: "t", Partitions: 3, ReplicationFactor: 3}}})
	if err != nil {
		b.Fatal(err)
	}
	tps := []model.TopicPartition{model.TP("t", 0), model.TP("t", 1), model.TP("t", 2)}
	c.AddClient("producer", func() sim.Node {
		return client.NewProducer(client.ProducerOptions{Bootstrap: c.Brokers, Config: kc, Recorder: c.History,
			Topics: []string{"t"}, Workload: work, SendInterval: interval, SendBurst: burst})
	})
	c.AddClient("consumer", func() sim.Node {
		return client.NewConsumer(client.ConsumerOptions{Bootstrap: c.Brokers, Config: kc, Recorder: c.History, Assignment: tps})
	})
	c.Start()
	if err := c.RunUntilReady(10 * time.Second); err != nil {
		b.Fatal(err)
	}
	const slice = time.Second // virtual time per iteration
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	startT, startE, startR := c.Sim.Now(), c.Sim.Stats().Events, work.Sent()
	for b.Loop() {
		c.Sim.Run(c.Sim.Now() + slice)
	}
	wall := b.Elapsed().Seconds()
	records := float64(work.Sent() - startR)
	b.ReportMetric((c.Sim.Now()-startT).Seconds()/wall, "sim-s/s")
	b.ReportMetric(float64(c.Sim.Stats().Events-startE)/wall, "events/s")
	b.ReportMetric(records/wall, "records/s")
	b.ReportMetric(float64(c.Sim.Stats().Events-startE)/records, "events/record")
	// What the run keeps for good (history, logs, observations): b.Loop
	// has stopped the timer, so the collection is not timed.
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/records, "kept-B/record")
	runtime.KeepAlive(c)
}
