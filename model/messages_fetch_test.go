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
	if first != &req.room.answer.box.resp {
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
	if r := NewFetchResponseFor(two, 2); r == &two.room.answer.box.resp || cap(r.Partitions) != 2 {
		t.Fatal("two partitions in a room for one")
	}
	if r := NewFetchResponseFor(two, 1); r != &two.room.answer.box.resp {
		t.Fatal("the room was taken by an answer that did not use it")
	}
}

// ReuseFetchRequest gives back the same memory, emptied as NewFetchRequest
// makes it, with the room for the answer free again; it keeps a larger
// partition list, and never reuses a request it did not make.
func TestReuseFetchRequestEmptiesTheRequestAndItsRoom(t *testing.T) {
	req := NewFetchRequest(1)
	req.CorrelationID, req.ReplicaID, req.MaxWait = 3, 2, 500
	req.Partitions = append(req.Partitions, FetchPartition{TP: TP("t", 0), FetchOffset: 4})
	ans := NewFetchResponseFor(req, 1)
	ans.Partitions = append(ans.Partitions, FetchPartitionResponse{TP: TP("t", 0), HighWatermark: 5, Batches: []*Batch{{}}})

	again := ReuseFetchRequest(req, 1)
	if again != req {
		t.Fatal("a request from NewFetchRequest was not reused")
	}
	fresh := NewFetchRequest(1)
	if again.Digest() != fresh.Digest() || len(again.Partitions) != 0 || cap(again.Partitions) != 1 {
		t.Fatalf("reused request not empty: %v (cap %d)", again, cap(again.Partitions))
	}
	if r := NewFetchResponseFor(again, 1); r != ans || len(r.Partitions) != 0 || r.CorrelationID != 0 {
		t.Fatalf("the answer room was not freed: %v", r)
	}

	big := NewFetchRequest(3)
	parts := big.Partitions
	for i := range 3 {
		big.Partitions = append(big.Partitions, FetchPartition{TP: TP("t", int32(i))})
	}
	if r := ReuseFetchRequest(big, 2); r != big || len(r.Partitions) != 0 || cap(r.Partitions) != 3 || &r.Partitions[:1][0] != &parts[:1][0] {
		t.Fatal("a request for fewer partitions did not keep its list")
	}
	if r := ReuseFetchRequest(big, 4); r != big || cap(r.Partitions) != 4 {
		t.Fatal("a request for more partitions did not get a longer list")
	}

	plain := &FetchRequest{CorrelationID: 9}
	if r := ReuseFetchRequest(plain, 1); r == plain || r.CorrelationID != 0 {
		t.Fatal("a request not made by NewFetchRequest was reused")
	}
}
