package model

import "testing"

// A request from NewFetchRequest carries the room for one answer: the
// first answer takes it, a second answer to the same request (a duplicated
// delivery) gets its own, and a request built otherwise has none. An
// answer never shares memory with another.
func TestAFetchRequestsRoomServesOneAnswer(t *testing.T) {
	req := NewFetchRequest(1)
	req.Partitions = append(req.Partitions, FetchPartition{TP: TP("t", 0), FetchOffset: 4})
	digest := req.Digest()

	first := NewFetchResponseFor(req, 1)
	if first != &req.answer.box.resp {
		t.Fatal("the first answer did not use the request's room")
	}
	first.CorrelationID = 7
	first.Partitions = append(first.Partitions, FetchPartitionResponse{TP: TP("t", 0), HighWatermark: 5})
	if req.Digest() != digest {
		t.Fatal("answering changed the request's digest")
	}

	second := NewFetchResponseFor(req, 1)
	if second == first || len(second.Partitions) != 0 {
		t.Fatalf("a second answer reused the first: %v", second)
	}
	second.Partitions = append(second.Partitions, FetchPartitionResponse{TP: TP("t", 0), HighWatermark: 9})
	if first.CorrelationID != 7 || first.Partitions[0].HighWatermark != 5 {
		t.Fatalf("the second answer changed the first: %v", first)
	}

	plain := &FetchRequest{Partitions: []FetchPartition{{TP: TP("t", 0)}}}
	if a, b := NewFetchResponseFor(plain, 1), NewFetchResponseFor(plain, 1); a == b {
		t.Fatal("answers to a request without room share memory")
	}
	// An answer with more partitions than the room holds is allocated,
	// and leaves the room for the next one.
	two := NewFetchRequest(2)
	if r := NewFetchResponseFor(two, 2); r == &two.answer.box.resp || cap(r.Partitions) != 2 {
		t.Fatal("two partitions in a room for one")
	}
	if r := NewFetchResponseFor(two, 1); r != &two.answer.box.resp {
		t.Fatal("the room was taken by an answer that did not use it")
	}
}
