package txn

import "time"

// Config is a transaction coordinator's configuration, with Kafka's names
// and Kafka 4.1's defaults (DefaultConfig). The host fills it from the
// run's settings once it hosts the coordinator.
type Config struct {
	// TransactionalIDExpiration is transactional.id.expiration.ms: a
	// transactional id with no transaction in flight and no update for
	// this long is removed (7 days).
	TransactionalIDExpiration time.Duration
	// TransactionMaxTimeout is transaction.max.timeout.ms: the largest
	// transaction.timeout.ms a producer may ask for (15 minutes).
	TransactionMaxTimeout time.Duration
	// AbortTimedOutTransactionsInterval is
	// transaction.abort.timed.out.transaction.cleanup.interval.ms: how
	// often the coordinator looks for transactions past their timeout
	// (10 s).
	AbortTimedOutTransactionsInterval time.Duration
	// RemoveExpiredTransactionalIDsInterval is
	// transaction.remove.expired.transaction.cleanup.interval.ms (1 hour).
	RemoveExpiredTransactionalIDsInterval time.Duration
	// TransactionVersion is the transaction.version feature level
	// (TransactionVersion TV_0, TV_1, TV_2). From 1 the state records are
	// flexible (value version 1); from 2 every transaction end bumps the
	// producer epoch (KIP-890 part 2). Kafka 4.0 and later enable 2 on a
	// new cluster; 3.x has 0. kafkasim's clients are taken to speak the
	// newest version the coordinator supports, as Kafka 4.x clients do.
	TransactionVersion int16
	// OffsetsTopicPartitions is offsets.topic.num.partitions, for the
	// partition AddOffsetsToTxn adds (50).
	OffsetsTopicPartitions int32
	// MarkerRetryBackoff is how long a marker waits before it is sent
	// again after a retriable failure, or while its partition has no
	// known leader. Kafka's marker sender thread retries on its next
	// loop, paced by the network client's backoff (retry.backoff.ms,
	// 100 ms); kafkasim waits this fixed time.
	MarkerRetryBackoff time.Duration
}

// DefaultConfig is Kafka 4.1's configuration.
func DefaultConfig() Config {
	return Config{
		TransactionalIDExpiration:             7 * 24 * time.Hour,
		TransactionMaxTimeout:                 15 * time.Minute,
		AbortTimedOutTransactionsInterval:     10 * time.Second,
		RemoveExpiredTransactionalIDsInterval: time.Hour,
		TransactionVersion:                    2,
		OffsetsTopicPartitions:                50,
		MarkerRetryBackoff:                    100 * time.Millisecond,
	}
}

// tv2 is TransactionVersion.supportsEpochBump.
func (c Config) tv2() bool { return c.TransactionVersion >= 2 }

// logValueVersion is TransactionVersion.transactionLogValueVersion.
func (c Config) logValueVersion() int16 {
	if c.TransactionVersion >= 1 {
		return 1
	}
	return 0
}
