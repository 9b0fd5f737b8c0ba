package checkers

import (
	"strings"
	"testing"

	"kafkasim/model"
)

// A record is (partition, value): the same value in two partitions is two
// records, neither a duplicate nor a phantom.
func TestRecordIdentityIsPartitionAndValue(t *testing.T) {
	h := hist(
		sendOK(0, t0, "1", 0, 0, 1),
		sendOK(0, t1, "1", 0, 0, 1),
		poll(1, 2, 3, recs(t0, 0, "1"), recs(t1, 0, "1")),
	)
	mustPass(t, check(t, Input{History: h}, Options{}))
	// Nearby: read in a partition it was never sent to, it is a phantom
	// that names the send.
	h = hist(
		sendOK(0, t0, "1", 0, 0, 1),
		poll(1, 2, 3, recs(t0, 0, "1"), recs(t1, 0, "1")),
	)
	v := mustFind(t, check(t, Input{History: h}, Options{}), Phantom, t1)
	if !strings.Contains(v.Detail, "sent to t/0 (op 0)") {
		t.Fatalf("phantom should name where it was sent: %s", v.Detail)
	}
	// And at two offsets of one partition, it is a duplicate.
	h = hist(
		sendOK(0, t0, "1", 0, 0, 1),
		poll(1, 2, 3, recs(t0, 0, "1", 1, "1")),
	)
	mustFind(t, check(t, Input{History: h}, Options{Idempotent: true}), Duplicate, t0, 0, 1)
}

// The same semantics hold for kafkasim's own JSON-lines histories: an
// indeterminate send's offset counts only once a read proves it
// committed, and the micro-ops of one operation travel as "txn".
func TestJSONLHistoryIndeterminateOffsets(t *testing.T) {
	const unproven = `{"process":0,"type":"info","f":"send","time":1,"end":2,"tp":"t/0","value":"a","offset":0,"txn":1}
{"process":0,"type":"info","f":"send","time":1,"end":2,"tp":"t/1","value":"b","txn":1}
{"process":1,"type":"ok","f":"send","time":3,"end":4,"tp":"t/0","value":"c","offset":0}
{"process":2,"type":"ok","f":"poll","time":5,"end":6,"records":{"t/0":[[0,"c"]]}}
`
	h, err := model.ReadHistory(strings.NewReader(unproven), "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	mustPass(t, check(t, Input{History: h}, Options{}))
	// A poll of b proves the operation committed: a at 0 now conflicts
	// with c, and a, below the read c, was lost.
	proven := unproven + `{"process":3,"type":"ok","f":"poll","time":7,"end":8,"records":{"t/1":[[0,"b"]]}}` + "\n"
	if h, err = model.ReadHistory(strings.NewReader(proven), "h.jsonl"); err != nil {
		t.Fatal(err)
	}
	r := check(t, Input{History: h}, Options{})
	mustFind(t, r, InconsistentOffsets, t0, 0)
	if v := mustFind(t, r, LostWrite, t0, 0); v.Values[0] != "a" || v.Ops[0] != 0 {
		t.Fatalf("lost-write should name a's send: %+v", v)
	}
	// Porcupine now holds a to offset 0 as well: two sends at one offset.
	if len(find(r, Nonlinearizable)) == 0 {
		t.Fatalf("a proven send's offset should reach linearizability:\n%s", dump(r))
	}
}

// A failed send's values were not written: a poll that returns one is an
// aborted read, and its offset is not a fact.
func TestFailedSendWroteNothing(t *testing.T) {
	fail := sendFail(0, t0, "a", 0, 1)
	fail.Offset = 0
	h := hist(fail, sendOK(1, t0, "b", 0, 2, 3), poll(2, 4, 5, recs(t0, 0, "b")))
	mustPass(t, check(t, Input{History: h}, Options{}))
	h = hist(fail, poll(2, 4, 5, recs(t0, 0, "a")))
	mustFind(t, check(t, Input{History: h}, Options{}), AbortedRead, t0, 0)
	// Read only by a poll of a failed operation, it is no aborted read:
	// that poll's own outcome is void (kafka.clj g1a-cases reads ok
	// operations only).
	bad := poll(2, 4, 5, recs(t0, 0, "a"))
	bad.Type = model.OpFail
	mustNotFind(t, check(t, Input{History: hist(fail, bad)}, Options{}), AbortedRead)
}

// A keyed send that did not complete never learned its partition: a read
// of its value in some partition is its record, not a phantom; a second
// read of the value in another partition is.
func TestUntargetedSendIsItsRecordsWriter(t *testing.T) {
	info := sendInfo(0, model.TopicPartition{}, "k1", 0, 5)
	info.Key = "k"
	h := hist(info, poll(1, 6, 7, recs(t0, 0, "k1")))
	mustPass(t, check(t, Input{History: h}, Options{}))
	h = hist(info, poll(1, 6, 7, recs(t0, 0, "k1"), recs(t1, 0, "k1")))
	if v := mustFind(t, check(t, Input{History: h}, Options{}), Phantom, t1); !strings.Contains(v.Detail, "a partition it never learned") {
		t.Fatalf("detail: %s", v.Detail)
	}
}
