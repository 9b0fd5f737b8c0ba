package model

import "testing"

// A produce request from NewProduceRequest carries the room for one
// answer, as a fetch does; ReuseProduceRequest empties both, and a request
// built otherwise gets a new answer every time.
func TestAProduceRequestsRoomServesOneAnswerAndIsReused(t *testing.T) {
	req := NewProduceRequest()
	req.CorrelationID, req.TP = 4, TP("t", 0)
	digest := req.Digest()
	first := NewProduceResponseFor(req)
	*first = ProduceResponse{CorrelationID: 4, BaseOffset: 9}
	if req.Digest() != digest {
		t.Fatal("answering changed the request's digest")
	}
	if second := NewProduceResponseFor(req); second == first || second.BaseOffset != 0 {
		t.Fatal("a second answer took the first one's room")
	}
	again := ReuseProduceRequest(req)
	if again != req || again.CorrelationID != 0 || again.Digest() != NewProduceRequest().Digest() {
		t.Fatalf("reused request not empty: %v", again)
	}
	if r := NewProduceResponseFor(again); r != first || r.BaseOffset != 0 {
		t.Fatal("the reused request's room was not free and empty")
	}
	plain := &ProduceRequest{CorrelationID: 1}
	if a, b := NewProduceResponseFor(plain), NewProduceResponseFor(plain); a == b {
		t.Fatal("answers to a request without room share memory")
	}
	if r := ReuseProduceRequest(plain); r == plain {
		t.Fatal("a request not made by NewProduceRequest was reused")
	}
}
