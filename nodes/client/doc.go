// Package client holds the simulated Kafka clients: a Producer, a
// Consumer (manual assignment, or a consumer group member) and an Admin,
// each a sim.Node that speaks the model's
// request and response messages to brokers and records every operation it
// performs in the run's shared history (model.Recorder), which is what the
// checkers judge.
//
// The clients follow the Java client's behaviour, class by class, where it
// decides what a history can show:
//
//   - metadata.go: the cluster view (Metadata, ProducerMetadata), refreshed
//     on errors, disconnects, timeouts and every metadata.max.age.ms, never
//     moving back to an older leader epoch (KIP-320).
//   - network.go: correlation ids, requests in flight, request.timeout.ms
//     closing the connection, reconnect backoff (NetworkClient).
//   - partitioner.go: murmur2 of the key, or sticky for keyless records
//     (BuiltInPartitioner, KIP-794).
//   - accumulator.go: batching by linger.ms and batch.size, retry queues
//     (RecordAccumulator, ProducerBatch).
//   - sender.go: sending, retries with exponential backoff (KIP-580),
//     delivery.timeout.ms (KIP-91), outcomes (Sender).
//   - idempotence.go: producer ids, sequences, epoch bumps (KIP-98, KIP-360;
//     TransactionManager without transactions).
//   - transactions.go, txn_sender.go, txn_app.go: the transactional
//     producer (a transactional.id): TransactionManager's states and
//     request queue, the coordinator's requests and their handlers
//     (Sender.maybeSendAndPollTransactionalRequest), and the application's
//     begin, send, commit and abort, each transaction one :txn operation of
//     the history (ok when committed, fail when aborted, info when unknown).
//   - fetch_isolation.go: what a fetch's batches give poll, control batches
//     skipped and, under isolation.level=read_committed, the aborted
//     transactions' batches dropped (CompletedFetch).
//   - consumer.go, fetcher.go, positions.go: assignment, poll, fetch,
//     auto.offset.reset, KIP-320 position validation (KafkaConsumer,
//     AbstractFetch, FetchCollector, SubscriptionState, OffsetFetcher).
//   - group.go and the group_*.go files: the classic group protocol's
//     member, a type of its own (member) that owns the protocol's state:
//     coordinator discovery, join and sync, heartbeats, eager and
//     cooperative (KIP-429) revocation with the rebalance callbacks, auto
//     and manual commits, committed offsets as starting positions, and
//     kafkasim's consumer.self.fencing switch (AbstractCoordinator,
//     ConsumerCoordinator). It shares the consumer's network and metadata
//     and reaches its partitions only through a narrow interface
//     (subscriptions, SubscriptionState's share).
//   - consumer_group.go: the Consumer's group API (subscribe, commit,
//     close), each call handed to the member, and the subscriptions the
//     Consumer lends it.
//   - admin.go: the admin client's createTopics call through a broker,
//     with retries, per-topic outcomes and the wait for leaders
//     (KafkaAdminClient).
//   - fastpath.go: the producer's caches, skip flags and scratch buffers,
//     which only save work: a producer without them would make the same
//     run.
//   - freelist.go: the free lists that let answered requests and released
//     batches be reused, once no delivery can read them again.
//
// # Outcomes in the history
//
// A send is ok with its offset when a leader acknowledged it; fail only when
// it certainly was not written (it never left the producer, or every
// attempt was refused by a leader before appending); info when it may have
// been written (an attempt timed out, lost its connection, or got an answer
// a leader can give after appending, such as NOT_LEADER_OR_FOLLOWER under
// acks=all, or acks=0). A crashed client's unfinished operations stay
// invoke: nobody learns their fate, and checkers treat them as info.
//
// # What the package must never do
//
// A client is a synchronous state machine driven by package sim: it never
// starts a goroutine, uses channels or package sync, reads the real clock,
// touches the real file system or network, or draws randomness from
// anywhere but its sim.Env; it never lets map iteration order reach
// behaviour; it imports only sim, model, nodes/group (the assignors a
// group leader runs) and the standard library. It uses
// env.Now() (its own, possibly skewed clock) for every protocol decision
// and env.ObserverNow() only to stamp history operations. Its state dies
// with it: whatever must survive a crash (the history, a workload's value
// counter) lives outside the node and is handed to its constructor.
package client
