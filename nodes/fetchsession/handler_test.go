package fetchsession

import (
	"slices"
	"testing"

	"kafkasim/model"
)

func tpsOf(ps []model.FetchPartition) []model.TopicPartition {
	var tps []model.TopicPartition
	for _, p := range ps {
		tps = append(tps, p.TP)
	}
	return tps
}

func full3() []model.FetchPartition {
	return []model.FetchPartition{
		{TP: model.TP("t", 0), FetchOffset: 10},
		{TP: model.TP("t", 1), FetchOffset: 20},
		{TP: model.TP("t", 2), FetchOffset: 30},
	}
}

// TestHandlerIncrementalLists checks what FetchSessionHandler.Builder
// puts in a request: everything in a full fetch; in an incremental one
// the new partitions, then the altered ones, and the dropped ones as
// forgotten.
func TestHandlerIncrementalLists(t *testing.T) {
	var h Handler
	want := full3()
	md, send, forget := h.Build(want, nil, nil)
	if md != Initial || len(send) != 3 || len(forget) != 0 {
		t.Fatalf("first fetch: %+v, %d partitions, %d forgotten", md, len(send), len(forget))
	}
	// The broker answers all three with a session.
	if !h.HandleResponse(&model.FetchResponse{SessionID: 42, Partitions: answers(want, 0)}) {
		t.Fatal("a full answer with a session was refused")
	}
	if h.Next() != (Metadata{SessionID: 42, Epoch: 1}) {
		t.Fatalf("after the full answer: %+v", h.Next())
	}
	md, send, forget = h.Build(full3(), nil, nil)
	if md.Epoch != 1 || len(send) != 0 || len(forget) != 0 {
		t.Errorf("nothing changed: %+v lists %v forgets %v", md, tpsOf(send), forget)
	}
	h.HandleResponse(&model.FetchResponse{SessionID: 42})
	// t/1 moves on, t/0 is dropped, u/0 is new.
	want = full3()[1:]
	want[0].FetchOffset = 25
	want = append(want, model.FetchPartition{TP: model.TP("u", 0)})
	md, send, forget = h.Build(want, nil, nil)
	if md.Epoch != 2 || !slices.Equal(tpsOf(send), []model.TopicPartition{model.TP("u", 0), model.TP("t", 1)}) ||
		!slices.Equal(forget, []model.TopicPartition{model.TP("t", 0)}) {
		t.Errorf("incremental: %+v lists %v forgets %v", md, tpsOf(send), forget)
	}
	if send[1].FetchOffset != 25 {
		t.Errorf("t/1 asked at %d, want 25", send[1].FetchOffset)
	}
}

// TestHandlerErrors checks FetchSessionHandler.handleResponse and
// handleError: FETCH_SESSION_ID_NOT_FOUND starts over without a session;
// another error, a failed request or an answer naming a partition outside
// the session closes the session with a full fetch.
func TestHandlerErrors(t *testing.T) {
	session := func() *Handler {
		h := &Handler{}
		h.Build(full3(), nil, nil)
		h.HandleResponse(&model.FetchResponse{SessionID: 42, Partitions: answers(full3(), 0)})
		h.Build(full3(), nil, nil)
		return h
	}
	h := session()
	if h.HandleResponse(&model.FetchResponse{Error: model.FetchSessionIDNotFound}) || h.Next() != Initial {
		t.Errorf("FETCH_SESSION_ID_NOT_FOUND: next %+v", h.Next())
	}
	if _, send, _ := h.Build(full3(), nil, nil); len(send) != 3 {
		t.Errorf("the fetch after FETCH_SESSION_ID_NOT_FOUND lists %d partitions, want all 3", len(send))
	}
	h = session()
	if h.HandleResponse(&model.FetchResponse{Error: model.InvalidFetchSessionEpoch, SessionID: 42}) || h.Next() != (Metadata{SessionID: 42, Epoch: 0}) {
		t.Errorf("INVALID_FETCH_SESSION_EPOCH: next %+v", h.Next())
	}
	h = session()
	if h.HandleError(); h.Next() != (Metadata{SessionID: 42, Epoch: 0}) {
		t.Errorf("a failed fetch: next %+v", h.Next())
	}
	h = session()
	alien := &model.FetchResponse{SessionID: 42, Partitions: []model.FetchPartitionResponse{{TP: model.TP("x", 0)}}}
	if h.HandleResponse(alien) || h.Next().Epoch != 0 {
		t.Errorf("an answer outside the session was taken: next %+v", h.Next())
	}
	h = &Handler{}
	h.Build(full3(), nil, nil)
	if h.HandleResponse(&model.FetchResponse{SessionID: 42, Partitions: answers(full3()[:2], 0)}) {
		t.Error("a full answer leaving a partition out was taken")
	}
	h = &Handler{}
	h.Build(full3(), nil, nil)
	if !h.HandleResponse(&model.FetchResponse{Partitions: answers(full3(), 0)}) || h.Next() != Initial {
		t.Errorf("a full answer without a session: next %+v", h.Next())
	}
}
