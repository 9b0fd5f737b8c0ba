package scenarios

import "testing"

// Kafka's producer-state snapshot keeps each producer's last batch only
// (ProducerSnapshot); kafkasim's keeps every batch the live state retains,
// and producer.snapshot.last.batch.only brings Kafka's format back. In
// coordinator-failover seed 2, broker 2 shuts down cleanly (23.15 s) with
// three single-record batches of the producer to t/5 in its log that the
// producer has not had acknowledged; it restarts, loads the snapshot its
// close wrote and becomes t/5's leader (epoch 4) while the producer still
// retries them. With
// Kafka's format it knows the last of the three only: the retry of the
// first gets OUT_OF_ORDER_SEQUENCE_NUMBER, the producer bumps its epoch
// (TransactionManager.canRetry, KIP-360) and all three are appended a
// second time, which the anomaly checker reports as an idempotence
// failure. With the default format the retries are answered as the
// duplicates they are.
//
// The run is the one described above on the announcing network
// (network.tcp=false), where it was found: the timing of the shutdown and
// the producer's retries is seed-specific, and on the TCP network seed 2
// runs differently and shows no duplicate with either format (a seed that
// shows it there has not been looked for).
func TestKafkasSnapshotFormatForgetsInFlightBatchesOnReload(t *testing.T) {
	sc, ok := Find("coordinator-failover")
	if !ok {
		t.Fatal("no scenario coordinator-failover")
	}
	announcing := "network.tcp=false"
	res, err := Run(sc, 2, Options{Set: []string{announcing}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK {
		t.Fatalf("default snapshot format: the run failed:\n%s", failureReport(sc, res))
	}
	res, err = Run(sc, 2, Options{Set: []string{announcing, "producer.snapshot.last.batch.only=true"}})
	if err != nil {
		t.Fatal(err)
	}
	dups := 0
	for _, v := range res.Violations {
		if v.Anomaly == "duplicate" && v.Error && v.Partition.Topic == "t" && v.Partition.Partition == 5 {
			dups++
		}
	}
	if res.OK || dups != 3 {
		t.Fatalf("Kafka's snapshot format: ok %v, %d duplicates on t/5, want the three in-flight batches appended twice; violations %v", res.OK, dups, res.Violations)
	}
}
