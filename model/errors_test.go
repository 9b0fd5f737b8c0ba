package model

import (
	"encoding/json"
	"testing"
)

// TestErrorCodeValues pins the numbers and names to Kafka's Errors.java, so
// that a typo in the table fails here rather than in a history read by
// someone who knows Kafka.
func TestErrorCodeValues(t *testing.T) {
	cases := []struct {
		code      ErrorCode
		num       int16
		name      string
		retriable bool
	}{
		{UnknownServerError, -1, "UNKNOWN_SERVER_ERROR", false},
		{NoError, 0, "NONE", false},
		{OffsetOutOfRange, 1, "OFFSET_OUT_OF_RANGE", false},
		{CorruptMessage, 2, "CORRUPT_MESSAGE", true},
		{UnknownTopicOrPartition, 3, "UNKNOWN_TOPIC_OR_PARTITION", true},
		{LeaderNotAvailable, 5, "LEADER_NOT_AVAILABLE", true},
		{NotLeaderOrFollower, 6, "NOT_LEADER_OR_FOLLOWER", true},
		{RequestTimedOut, 7, "REQUEST_TIMED_OUT", true},
		{StaleControllerEpoch, 11, "STALE_CONTROLLER_EPOCH", false},
		{NetworkException, 13, "NETWORK_EXCEPTION", true},
		{CoordinatorLoadInProgress, 14, "COORDINATOR_LOAD_IN_PROGRESS", true},
		{CoordinatorNotAvailable, 15, "COORDINATOR_NOT_AVAILABLE", true},
		{NotCoordinator, 16, "NOT_COORDINATOR", true},
		{NotEnoughReplicas, 19, "NOT_ENOUGH_REPLICAS", true},
		{NotEnoughReplicasAfterAppend, 20, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", true},
		{IllegalGeneration, 22, "ILLEGAL_GENERATION", false},
		{InconsistentGroupProtocol, 23, "INCONSISTENT_GROUP_PROTOCOL", false},
		{UnknownMemberID, 25, "UNKNOWN_MEMBER_ID", false},
		{InvalidSessionTimeout, 26, "INVALID_SESSION_TIMEOUT", false},
		{RebalanceInProgress, 27, "REBALANCE_IN_PROGRESS", false},
		{NotController, 41, "NOT_CONTROLLER", true},
		{OutOfOrderSequenceNumber, 45, "OUT_OF_ORDER_SEQUENCE_NUMBER", false},
		{DuplicateSequenceNumber, 46, "DUPLICATE_SEQUENCE_NUMBER", false},
		{InvalidProducerEpoch, 47, "INVALID_PRODUCER_EPOCH", false},
		{InvalidTxnState, 48, "INVALID_TXN_STATE", false},
		{InvalidProducerIDMapping, 49, "INVALID_PRODUCER_ID_MAPPING", false},
		{InvalidTransactionTimeout, 50, "INVALID_TRANSACTION_TIMEOUT", false},
		{ConcurrentTransactions, 51, "CONCURRENT_TRANSACTIONS", true},
		{TransactionCoordinatorFenced, 52, "TRANSACTION_COORDINATOR_FENCED", false},
		{UnknownProducerID, 59, "UNKNOWN_PRODUCER_ID", false},
		{FencedLeaderEpoch, 74, "FENCED_LEADER_EPOCH", true},
		{UnknownLeaderEpoch, 75, "UNKNOWN_LEADER_EPOCH", true},
		{StaleBrokerEpoch, 77, "STALE_BROKER_EPOCH", false},
		{MemberIDRequired, 79, "MEMBER_ID_REQUIRED", false},
		{FencedInstanceID, 82, "FENCED_INSTANCE_ID", false},
		{InvalidUpdateVersion, 95, "INVALID_UPDATE_VERSION", false},
		{BrokerIDNotRegistered, 102, "BROKER_ID_NOT_REGISTERED", false},
		{TransactionalIDNotFound, 105, "TRANSACTIONAL_ID_NOT_FOUND", false},
		{IneligibleReplica, 107, "INELIGIBLE_REPLICA", false},
		{TransactionAbortable, 120, "TRANSACTION_ABORTABLE", false},
		{NewLeaderElected, 108, "NEW_LEADER_ELECTED", false},
	}
	for _, c := range cases {
		if int16(c.code) != c.num {
			t.Errorf("%s = %d, Kafka says %d", c.name, c.code, c.num)
		}
		if got := c.code.String(); got != c.name {
			t.Errorf("ErrorCode(%d).String() = %q, want %q", c.num, got, c.name)
		}
		if got := c.code.Retriable(); got != c.retriable {
			t.Errorf("%s.Retriable() = %v, want %v", c.name, got, c.retriable)
		}
	}
}

// TestErrorCodeTable checks the table itself: sorted, no repeated code or
// name, so that String and ParseErrorCode are inverse.
func TestErrorCodeTable(t *testing.T) {
	codes := ErrorCodes()
	if len(codes) < 50 {
		t.Fatalf("only %d codes declared", len(codes))
	}
	names := map[string]bool{}
	for i, c := range codes {
		if i > 0 && codes[i-1] >= c {
			t.Errorf("codes not strictly increasing at %d: %d then %d", i, codes[i-1], c)
		}
		n := c.String()
		if names[n] {
			t.Errorf("name %s used twice", n)
		}
		names[n] = true
		back, err := ParseErrorCode(n)
		if err != nil || back != c {
			t.Errorf("ParseErrorCode(%q) = %d, %v; want %d", n, back, err, c)
		}
	}
}

func TestErrorCodeUnknown(t *testing.T) {
	c := ErrorCode(4242)
	if got := c.String(); got != "ERROR_CODE_4242" {
		t.Errorf("String() = %q", got)
	}
	if c.Retriable() {
		t.Error("an unknown code must not be retriable")
	}
	for _, s := range []string{"ERROR_CODE_4242", "4242"} {
		if back, err := ParseErrorCode(s); err != nil || back != c {
			t.Errorf("ParseErrorCode(%q) = %d, %v", s, back, err)
		}
	}
	for _, s := range []string{"", "NOT_A_CODE", "ERROR_CODE_", "99999"} {
		if _, err := ParseErrorCode(s); err == nil {
			t.Errorf("ParseErrorCode(%q) succeeded", s)
		}
	}
}

func TestErrorCodeJSON(t *testing.T) {
	in := map[string]ErrorCode{"e": NotEnoughReplicas}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"e":"NOT_ENOUGH_REPLICAS"}` {
		t.Errorf("json = %s", b)
	}
	var out map[string]ErrorCode
	if err := json.Unmarshal(b, &out); err != nil || out["e"] != NotEnoughReplicas {
		t.Errorf("round trip = %v, %v", out, err)
	}
	if err := json.Unmarshal([]byte(`{"e":"BOGUS"}`), &out); err == nil {
		t.Error("unmarshal of a bogus name succeeded")
	}
}
