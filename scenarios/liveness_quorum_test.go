package scenarios

import (
	"strings"
	"testing"

	"kafkasim/model"
)

func TestQuorumStuckSaysWhatIsStuck(t *testing.T) {
	up := func(id int, role string, epoch int, active bool) controllerLook {
		return controllerLook{ID: model.BrokerID(id), Up: true, Role: role, Epoch: model.Epoch(epoch), Active: active}
	}
	down := func(id int) controllerLook { return controllerLook{ID: model.BrokerID(id)} }
	ok := func(id int) brokerLook { return brokerLook{ID: model.BrokerID(id), Up: true, Registered: true} }
	healthy := []controllerLook{up(100, "follower", 3, false), up(101, "leader", 3, true), up(102, "follower", 3, false)}
	brokers := []brokerLook{ok(1), ok(2), ok(3)}
	if got := quorumStuck(healthy, brokers); got != "" {
		t.Fatalf("a healthy quorum is stuck: %s", got)
	}
	for _, c := range []struct {
		name        string
		controllers []controllerLook
		brokers     []brokerLook
		want        string
	}{
		{"no leader", []controllerLook{down(100), up(101, "candidate", 4, false), up(102, "leader", 3, false)}, brokers,
			"no active controller: b100 down, b101 candidate in epoch 4, b102 leader in epoch 3, not yet active"},
		{"all down", []controllerLook{down(100), down(101), down(102)}, brokers, "no active controller: b100 down, b101 down, b102 down"},
		{"two active", []controllerLook{up(100, "leader", 2, true), up(101, "leader", 3, true)}, brokers,
			"more than one active controller: b100 (epoch 2), b101 (epoch 3)"},
		{"an active leader that is down does not count", []controllerLook{{ID: 100, Active: true, Role: "leader"}, up(101, "follower", 3, false)}, brokers,
			"no active controller: b100 down, b101 follower in epoch 3"},
		{"fenced and unregistered brokers", healthy, []brokerLook{ok(1), {ID: 2, Up: true, Registered: true, Fenced: true}, {ID: 3, Up: true}},
			"active controller b101 (epoch 3): b2 is fenced, b3 is not registered"},
		{"a broker down", healthy, []brokerLook{ok(1), {ID: 2}, ok(3)}, "active controller b101 (epoch 3): b2 is down"},
		{"a broker registered only as its previous incarnation", healthy, []brokerLook{ok(1), {ID: 2, Up: true, Registered: true, Stale: true}, ok(3)},
			"active controller b101 (epoch 3): b2 is registered only as its previous incarnation"},
		{"a broker the controller has not heard from since it took over", healthy, []brokerLook{ok(1), ok(2), {ID: 3, Up: true, Registered: true, Unheard: true}},
			"active controller b101 (epoch 3): b3 has not been heard from since the controller took over"},
	} {
		if got := quorumStuck(c.controllers, c.brokers); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	if !strings.Contains(quorumStuck(nil, brokers), "no controllers") {
		t.Error("no controllers at all")
	}
}
