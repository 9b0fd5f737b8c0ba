package broker

import (
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// createTopics makes the client double send a CreateTopics for topics to
// broker to at virtual time at.
func (r *rig) createTopics(at time.Duration, to model.BrokerID, corr int32, topics ...string) {
	req := model.CreateTopicsRequest{CorrelationID: corr}
	for _, t := range topics {
		req.Topics = append(req.Topics, model.TopicSpec{Name: t, Partitions: 1})
	}
	r.s.At(at, "create-topics", func() { r.s.SendAs(clientID, sim.NodeID(to), req) })
}

// wantCreated checks the client double's CreateTopics answers: one per
// correlation id in corrs, in that order, every topic answered with code.
func (r *rig) wantCreated(t *testing.T, code model.ErrorCode, corrs ...int32) {
	t.Helper()
	got := *r.created
	if len(got) != len(corrs) {
		t.Fatalf("answers %v, want %d", got, len(corrs))
	}
	for i, a := range got {
		if a.CorrelationID != corrs[i] || len(a.Topics) == 0 {
			t.Fatalf("answer %d is %v, want corr=%d", i, a, corrs[i])
		}
		for _, tr := range a.Topics {
			if tr.Error != code {
				t.Fatalf("answer %v, want %v for every topic", a, code)
			}
		}
	}
}

func TestCreateTopicsIsForwardedToTheControllerAndRelayed(t *testing.T) {
	r := newRig(t, testConfig())
	r.createTopics(time.Second, 2, 42, "a", "b")
	r.s.Run(2 * time.Second)
	r.wantCreated(t, model.NoError, 42)
	if r.ctl.creates != 1 {
		t.Fatalf("controller got %d CreateTopics, want 1", r.ctl.creates)
	}
}

// NOT_CONTROLLER is the forwarding channel's to handle: the request is
// sent again, and requests behind it wait their turn.
func TestForwardedCreateTopicsRetriesNotControllerInOrder(t *testing.T) {
	r := newRig(t, testConfig())
	r.ctl.createAnswers = []model.ErrorCode{model.NotController, model.NotController}
	r.createTopics(time.Second, 2, 1, "a")
	r.createTopics(time.Second, 2, 2, "b")
	r.s.Run(2 * time.Second)
	r.wantCreated(t, model.NoError, 1, 2)
	if r.ctl.creates != 4 {
		t.Fatalf("controller got %d CreateTopics, want 4 (a three times, then b)", r.ctl.creates)
	}
}

// A controller connection that breaks loses the attempt in flight; the
// channel sends it again rather than waiting for its timeout.
func TestForwardedCreateTopicsSurvivesALostControllerConnection(t *testing.T) {
	r := newRig(t, testConfig())
	r.ctl.createSilent = true
	r.createTopics(time.Second, 2, 7, "a")
	r.s.At(1500*time.Millisecond, "reset", func() {
		r.ctl.createSilent = false
		r.s.ResetConnection(2, controllerID)
	})
	r.s.Run(3 * time.Second)
	r.wantCreated(t, model.NoError, 7)
	if r.ctl.creates != 2 {
		t.Fatalf("controller got %d CreateTopics, want 2", r.ctl.creates)
	}
}

// A controller that never answers: each attempt times out after 30 s, and
// once the request has waited the channel's 60 s the client is told
// REQUEST_TIMED_OUT.
func TestForwardedCreateTopicsTimesOut(t *testing.T) {
	r := newRig(t, testConfig())
	r.ctl.createSilent = true
	r.createTopics(time.Second, 2, 9, "a")
	r.s.Run(61 * time.Second)
	if len(*r.created) != 0 {
		t.Fatalf("answered before the retry timeout: %v", *r.created)
	}
	r.s.Run(62 * time.Second)
	r.wantCreated(t, model.RequestTimedOut, 9)
	if r.ctl.creates != 2 {
		t.Fatalf("controller got %d CreateTopics, want 2 attempts", r.ctl.creates)
	}
}

// Until the controller has acknowledged it caught up, a broker takes no
// client requests: the client's connection is refused (on the TCP network;
// the announcing one has no connection to close).
func TestCreateTopicsBeforeCatchingUpIsRefused(t *testing.T) {
	r := newRigOn(t, testConfig(), sim.Config{TCP: true})
	r.createTopics(0, 2, 1, "a")
	r.s.Run(time.Second)
	if len(*r.created) != 0 || *r.clientDisconnects != 1 || r.ctl.creates != 0 {
		t.Fatalf("answers %v, disconnects %d, forwarded %d: want the connection refused",
			*r.created, *r.clientDisconnects, r.ctl.creates)
	}
	r.createTopics(time.Second, 2, 2, "a")
	r.s.Run(2 * time.Second)
	r.wantCreated(t, model.NoError, 2)
}
