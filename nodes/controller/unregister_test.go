package controller

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

func TestUnregisterBrokerRecordRoundTrip(t *testing.T) {
	r := UnregisterBrokerRecord{ID: 4, Epoch: 12}
	if r.String() != "UnregisterBroker b4 epoch=12" {
		t.Errorf("String: %s", r)
	}
	enc := r.appendTo(nil)
	d := decoder{b: enc}
	if got := d.record(); d.err != nil || len(d.b) != 0 || !reflect.DeepEqual(got, r) {
		t.Fatalf("%v decoded as %v (err %v)", r, got, d.err)
	}
	for n := 0; n < len(enc); n++ {
		d := decoder{b: enc[:n]}
		if got := d.record(); d.err == nil && reflect.DeepEqual(got, r) {
			t.Fatalf("a %d-byte prefix decoded whole", n)
		}
	}
}

// TestUnregisterBroker: an unknown broker is refused
// BROKER_ID_NOT_REGISTERED; a registered one that is down leaves every
// ISR, its leaderships move, and its registration goes, also from a
// snapshot; the replica assignments still name it, as Kafka leaves them.
func TestUnregisterBroker(t *testing.T) {
	c := started(t, testConfig(), 3)
	c.createTopic(model.TopicSpec{Name: "t", Partitions: 3, ReplicationFactor: 3})
	if code := c.ctrl().UnregisterBroker(nil, 9); code != model.BrokerIDNotRegistered {
		t.Fatalf("unregistering b9: %v, want BROKER_ID_NOT_REGISTERED", code)
	}
	c.s.Crash(sim.NodeID(1))
	if code := c.ctrl().UnregisterBroker(nil, 1); code != model.NoError {
		t.Fatalf("UnregisterBroker b1: %v", code)
	}
	c.runFor(100 * time.Millisecond)
	ctl := c.ctrl()
	if registered := slices.ContainsFunc(ctl.Brokers(), func(b BrokerState) bool { return b.ID == 1 }); registered {
		t.Fatal("b1 still registered")
	}
	if _, ok := ctl.sessions[1]; ok {
		t.Fatal("the controller kept b1's session")
	}
	for _, ps := range ctl.Partitions() {
		if slices.Contains(ps.ISR, 1) || ps.Leader == 1 || ps.Leader == model.NoBroker {
			t.Errorf("%v after unregistering b1: %v", ps.TP, ps)
		}
		if !slices.Contains(ps.Replicas, 1) {
			t.Errorf("%v: the assignment lost b1 (Kafka keeps it, offline): %v", ps.TP, ps.Replicas)
		}
	}
	if got := restoreState(c.cfg, ctl.state.snapshot()); !reflect.DeepEqual(got, ctl.state) {
		t.Fatal("the snapshot after an unregistration restores another state")
	}
	if code := ctl.UnregisterBroker(nil, 1); code != model.BrokerIDNotRegistered {
		t.Fatalf("unregistering b1 twice: %v", code)
	}
}
