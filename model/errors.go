package model

import (
	"fmt"
	"strconv"
)

// ErrorCode is a Kafka protocol error code, with Kafka's numeric value
// (clients/src/main/java/org/apache/kafka/common/protocol/Errors.java).
// Expected protocol conditions travel in responses as these codes, never as
// Go errors, so that a history and a trace read like Kafka's own logs and a
// client can apply Kafka's retry rules to them.
//
// Only the codes the simulated cluster can produce or a client must handle
// are declared; String names any other code by its number.
type ErrorCode int16

// The codes, named as in Kafka without the SCREAMING_CASE. NoError is
// Kafka's NONE.
const (
	UnknownServerError           ErrorCode = -1
	NoError                      ErrorCode = 0
	OffsetOutOfRange             ErrorCode = 1
	CorruptMessage               ErrorCode = 2
	UnknownTopicOrPartition      ErrorCode = 3
	LeaderNotAvailable           ErrorCode = 5
	NotLeaderOrFollower          ErrorCode = 6
	RequestTimedOut              ErrorCode = 7
	BrokerNotAvailable           ErrorCode = 8
	ReplicaNotAvailable          ErrorCode = 9
	MessageTooLarge              ErrorCode = 10
	StaleControllerEpoch         ErrorCode = 11
	NetworkException             ErrorCode = 13
	CoordinatorLoadInProgress    ErrorCode = 14
	CoordinatorNotAvailable      ErrorCode = 15
	NotCoordinator               ErrorCode = 16
	InvalidTopicException        ErrorCode = 17
	NotEnoughReplicas            ErrorCode = 19
	NotEnoughReplicasAfterAppend ErrorCode = 20
	InvalidRequiredAcks          ErrorCode = 21
	IllegalGeneration            ErrorCode = 22
	InconsistentGroupProtocol    ErrorCode = 23
	InvalidGroupID               ErrorCode = 24
	UnknownMemberID              ErrorCode = 25
	InvalidSessionTimeout        ErrorCode = 26
	RebalanceInProgress          ErrorCode = 27
	InvalidCommitOffsetSize      ErrorCode = 28
	TopicAlreadyExists           ErrorCode = 36
	InvalidPartitions            ErrorCode = 37
	InvalidReplicationFactor     ErrorCode = 38
	InvalidReplicaAssignment     ErrorCode = 39
	InvalidConfig                ErrorCode = 40
	NotController                ErrorCode = 41
	InvalidRequest               ErrorCode = 42
	OutOfOrderSequenceNumber     ErrorCode = 45
	DuplicateSequenceNumber      ErrorCode = 46
	InvalidProducerEpoch         ErrorCode = 47
	InvalidTxnState              ErrorCode = 48
	InvalidProducerIDMapping     ErrorCode = 49
	InvalidTransactionTimeout    ErrorCode = 50
	ConcurrentTransactions       ErrorCode = 51
	TransactionCoordinatorFenced ErrorCode = 52
	KafkaStorageError            ErrorCode = 56
	UnknownProducerID            ErrorCode = 59
	NonEmptyGroup                ErrorCode = 68
	GroupIDNotFound              ErrorCode = 69
	FetchSessionIDNotFound       ErrorCode = 70
	InvalidFetchSessionEpoch     ErrorCode = 71
	FencedLeaderEpoch            ErrorCode = 74
	UnknownLeaderEpoch           ErrorCode = 75
	StaleBrokerEpoch             ErrorCode = 77
	OffsetNotAvailable           ErrorCode = 78
	MemberIDRequired             ErrorCode = 79
	PreferredLeaderNotAvailable  ErrorCode = 80
	GroupMaxSizeReached          ErrorCode = 81
	FencedInstanceID             ErrorCode = 82
	EligibleLeadersNotAvailable  ErrorCode = 83
	ElectionNotNeeded            ErrorCode = 84
	NoReassignmentInProgress     ErrorCode = 85
	UnstableOffsetCommit         ErrorCode = 88
	ProducerFenced               ErrorCode = 90
	InvalidUpdateVersion         ErrorCode = 95
	DuplicateBrokerRegistration  ErrorCode = 101
	BrokerIDNotRegistered        ErrorCode = 102
	TransactionalIDNotFound      ErrorCode = 105
	IneligibleReplica            ErrorCode = 107
	NewLeaderElected             ErrorCode = 108
	UnreleasedInstanceID         ErrorCode = 111
	TransactionAbortable         ErrorCode = 120
)

// errorInfo is what Kafka says about a code: its name and whether its
// exception is a RetriableException (Kafka's protocol documentation lists
// the same column).
type errorInfo struct {
	code      ErrorCode
	name      string
	retriable bool
}

// errorList holds every declared code in numeric order. It is only read.
var errorList = []errorInfo{
	{UnknownServerError, "UNKNOWN_SERVER_ERROR", false},
	{NoError, "NONE", false},
	{OffsetOutOfRange, "OFFSET_OUT_OF_RANGE", false},
	{CorruptMessage, "CORRUPT_MESSAGE", true},
	{UnknownTopicOrPartition, "UNKNOWN_TOPIC_OR_PARTITION", true},
	{LeaderNotAvailable, "LEADER_NOT_AVAILABLE", true},
	{NotLeaderOrFollower, "NOT_LEADER_OR_FOLLOWER", true},
	{RequestTimedOut, "REQUEST_TIMED_OUT", true},
	{BrokerNotAvailable, "BROKER_NOT_AVAILABLE", false},
	{ReplicaNotAvailable, "REPLICA_NOT_AVAILABLE", true},
	{MessageTooLarge, "MESSAGE_TOO_LARGE", false},
	{StaleControllerEpoch, "STALE_CONTROLLER_EPOCH", false},
	{NetworkException, "NETWORK_EXCEPTION", true},
	{CoordinatorLoadInProgress, "COORDINATOR_LOAD_IN_PROGRESS", true},
	{CoordinatorNotAvailable, "COORDINATOR_NOT_AVAILABLE", true},
	{NotCoordinator, "NOT_COORDINATOR", true},
	{InvalidTopicException, "INVALID_TOPIC_EXCEPTION", false},
	{NotEnoughReplicas, "NOT_ENOUGH_REPLICAS", true},
	{NotEnoughReplicasAfterAppend, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", true},
	{InvalidRequiredAcks, "INVALID_REQUIRED_ACKS", false},
	{IllegalGeneration, "ILLEGAL_GENERATION", false},
	{InconsistentGroupProtocol, "INCONSISTENT_GROUP_PROTOCOL", false},
	{InvalidGroupID, "INVALID_GROUP_ID", false},
	{UnknownMemberID, "UNKNOWN_MEMBER_ID", false},
	{InvalidSessionTimeout, "INVALID_SESSION_TIMEOUT", false},
	{RebalanceInProgress, "REBALANCE_IN_PROGRESS", false},
	{InvalidCommitOffsetSize, "INVALID_COMMIT_OFFSET_SIZE", false},
	{TopicAlreadyExists, "TOPIC_ALREADY_EXISTS", false},
	{InvalidPartitions, "INVALID_PARTITIONS", false},
	{InvalidReplicationFactor, "INVALID_REPLICATION_FACTOR", false},
	{InvalidReplicaAssignment, "INVALID_REPLICA_ASSIGNMENT", false},
	{InvalidConfig, "INVALID_CONFIG", false},
	{NotController, "NOT_CONTROLLER", true},
	{InvalidRequest, "INVALID_REQUEST", false},
	{OutOfOrderSequenceNumber, "OUT_OF_ORDER_SEQUENCE_NUMBER", false},
	{DuplicateSequenceNumber, "DUPLICATE_SEQUENCE_NUMBER", false},
	{InvalidProducerEpoch, "INVALID_PRODUCER_EPOCH", false},
	{InvalidTxnState, "INVALID_TXN_STATE", false},
	{InvalidProducerIDMapping, "INVALID_PRODUCER_ID_MAPPING", false},
	{InvalidTransactionTimeout, "INVALID_TRANSACTION_TIMEOUT", false},
	{ConcurrentTransactions, "CONCURRENT_TRANSACTIONS", true},
	{TransactionCoordinatorFenced, "TRANSACTION_COORDINATOR_FENCED", false},
	{KafkaStorageError, "KAFKA_STORAGE_ERROR", true},
	{UnknownProducerID, "UNKNOWN_PRODUCER_ID", false},
	{NonEmptyGroup, "NON_EMPTY_GROUP", false},
	{GroupIDNotFound, "GROUP_ID_NOT_FOUND", false},
	{FetchSessionIDNotFound, "FETCH_SESSION_ID_NOT_FOUND", true},
	{InvalidFetchSessionEpoch, "INVALID_FETCH_SESSION_EPOCH", true},
	{FencedLeaderEpoch, "FENCED_LEADER_EPOCH", true},
	{UnknownLeaderEpoch, "UNKNOWN_LEADER_EPOCH", true},
	{StaleBrokerEpoch, "STALE_BROKER_EPOCH", false},
	{OffsetNotAvailable, "OFFSET_NOT_AVAILABLE", true},
	{MemberIDRequired, "MEMBER_ID_REQUIRED", false},
	{PreferredLeaderNotAvailable, "PREFERRED_LEADER_NOT_AVAILABLE", true},
	{GroupMaxSizeReached, "GROUP_MAX_SIZE_REACHED", false},
	{FencedInstanceID, "FENCED_INSTANCE_ID", false},
	{EligibleLeadersNotAvailable, "ELIGIBLE_LEADERS_NOT_AVAILABLE", true},
	{ElectionNotNeeded, "ELECTION_NOT_NEEDED", true},
	{NoReassignmentInProgress, "NO_REASSIGNMENT_IN_PROGRESS", false},
	{UnstableOffsetCommit, "UNSTABLE_OFFSET_COMMIT", true},
	{ProducerFenced, "PRODUCER_FENCED", false},
	{InvalidUpdateVersion, "INVALID_UPDATE_VERSION", false},
	{SnapshotNotFound, "SNAPSHOT_NOT_FOUND", false},
	{DuplicateBrokerRegistration, "DUPLICATE_BROKER_REGISTRATION", false},
	{BrokerIDNotRegistered, "BROKER_ID_NOT_REGISTERED", false},
	{TransactionalIDNotFound, "TRANSACTIONAL_ID_NOT_FOUND", false},
	{IneligibleReplica, "INELIGIBLE_REPLICA", false},
	{NewLeaderElected, "NEW_LEADER_ELECTED", false},
	{UnreleasedInstanceID, "UNRELEASED_INSTANCE_ID", false},
	{TransactionAbortable, "TRANSACTION_ABORTABLE", false},
}

// errorByCode indexes errorList for String and Retriable.
var errorByCode = func() map[ErrorCode]errorInfo {
	m := make(map[ErrorCode]errorInfo, len(errorList))
	for _, e := range errorList {
		m[e.code] = e
	}
	return m
}()

// String gives Kafka's name, as in "NOT_LEADER_OR_FOLLOWER", or
// "ERROR_CODE_123" for a code this package does not declare.
func (c ErrorCode) String() string {
	if e, ok := errorByCode[c]; ok {
		return e.name
	}
	return "ERROR_CODE_" + strconv.Itoa(int(c))
}

// Retriable follows Kafka's classification: true when Kafka's exception for
// the code is a RetriableException, so that a client may send the same
// request again (after refreshing metadata, for the "invalid metadata"
// ones such as NOT_LEADER_OR_FOLLOWER). Group errors such as
// REBALANCE_IN_PROGRESS are not retriable in this sense: the member must
// rejoin, not resend. Unknown codes are not retriable, as in Kafka's client.
func (c ErrorCode) Retriable() bool { return errorByCode[c].retriable }

// MarshalText writes the name, so that histories say NOT_ENOUGH_REPLICAS
// rather than 19.
func (c ErrorCode) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a name written by MarshalText, or a bare number.
func (c *ErrorCode) UnmarshalText(b []byte) error {
	v, err := ParseErrorCode(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// ParseErrorCode reads a Kafka error name ("NOT_LEADER_OR_FOLLOWER"), the
// "ERROR_CODE_n" form String gives unknown codes, or a number.
func ParseErrorCode(s string) (ErrorCode, error) {
	for _, e := range errorList {
		if e.name == s {
			return e.code, nil
		}
	}
	num := s
	if len(s) > len("ERROR_CODE_") && s[:len("ERROR_CODE_")] == "ERROR_CODE_" {
		num = s[len("ERROR_CODE_"):]
	}
	n, err := strconv.ParseInt(num, 10, 16)
	if err != nil {
		return 0, fmt.Errorf("error code %q: not a Kafka error name or number", s)
	}
	return ErrorCode(n), nil
}

// ErrorCodes returns every declared code in numeric order, for tests and
// for tables that list them.
func ErrorCodes() []ErrorCode {
	cs := make([]ErrorCode, len(errorList))
	for i, e := range errorList {
		cs[i] = e.code
	}
	return cs
}

// CoordinatorAppendError is what a coordinator's client is told when the
// coordinator's append to its internal topic failed, as Kafka's group and
// transaction coordinators map it
// (GroupMetadataManager.appendGroupMetadataErrorToResponseError,
// GroupCoordinatorService.handleOperationException and
// TransactionStateManager.appendTransactionToLog): a partition that
// cannot take the write now is a coordinator that is not available; a
// partition this broker no longer leads is not its coordinator any more;
// a write too large is a server error.
func CoordinatorAppendError(code ErrorCode) ErrorCode {
	switch code {
	case UnknownTopicOrPartition, NotEnoughReplicas, NotEnoughReplicasAfterAppend, RequestTimedOut:
		return CoordinatorNotAvailable
	case NotLeaderOrFollower, KafkaStorageError:
		return NotCoordinator
	case MessageTooLarge:
		return UnknownServerError
	}
	return code
}
