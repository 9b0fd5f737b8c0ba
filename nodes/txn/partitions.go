package txn

import (
	"slices"

	"kafkasim/model"
)

// A transaction's partitions are kept sorted and without repeats, so
// that the records and the markers list them in one fixed order (Kafka
// keeps a HashSet).

func unionSorted(a, b []model.TopicPartition) []model.TopicPartition {
	out := slices.Concat(a, b)
	slices.SortFunc(out, model.TopicPartition.Compare)
	return slices.Compact(out)
}

func containsAll(set, sub []model.TopicPartition) bool {
	for _, tp := range sub {
		if _, ok := slices.BinarySearchFunc(set, tp, model.TopicPartition.Compare); !ok {
			return false
		}
	}
	return true
}

func equalSorted(a, b []model.TopicPartition) bool { return slices.Equal(a, b) }

// PartitionFor is the __transaction_state partition of a transactional.id:
// TransactionStateManager.partitionFor,
// Utils.abs(transactionalId.hashCode) % transaction.state.log.num.partitions.
func PartitionFor(transactionalID string, partitions int32) int32 {
	return model.CoordinatorPartition(transactionalID, partitions)
}
