package broker

import "kafkasim/model"

// A broker applies each topic's own settings, not only the cluster's: a
// topic created with min.insync.replicas=3 refuses an acks=all write with
// two replicas in sync on every broker, as on the controller. Kafka's
// LogManager builds each log's LogConfig from the topic's configs laid over
// the broker's defaults, and Partition reads min.insync.replicas and
// UnifiedLog the retention settings from it.

// topicConfig is a topic's settings as the broker's metadata image has
// them: its overrides on the cluster's defaults. A broker without a
// metadata quorum (the push path some tests drive) learns no overrides
// and uses the defaults.
func (b *Broker) topicConfig(topic string) model.TopicConfig {
	if b.replay != nil {
		if cfg, ok := b.replay.img.TopicConfig(topic); ok {
			return cfg
		}
	}
	return b.cfg.Kafka.Topic
}

// effectiveMinISR is the partition's min.insync.replicas capped at its
// replica count (Partition.effectiveMinIsr): a topic may set a minimum
// above its replication factor, and the cap keeps such a partition
// writable once every replica is in sync, as the controller's
// getTopicEffectiveMinIsr does for elections.
func (p *partition) effectiveMinISR() int {
	return min(int(p.topic.MinInsyncReplicas), len(p.replicas))
}

// underMinISR is Partition.isUnderMinIsr: the committed ISR is smaller
// than the effective minimum.
func (p *partition) underMinISR() bool { return len(p.isr) < p.effectiveMinISR() }
