package broker_test

import (
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// A heartbeat waits behind the coordinator's uncommitted writes and fails
// with COORDINATOR_NOT_AVAILABLE after offsets.commit.timeout.ms, as
// Kafka's CoordinatorRuntime defers a write operation without records;
// with nothing pending it is answered at once.
func TestAHeartbeatWaitsBehindAnUncommittedWrite(t *testing.T) {
	r := newGroupRig(t, 3, groupConfig())
	coord, member, gen := r.joinedGroup("g")
	hb := model.HeartbeatRequest{GroupID: "g", GenerationID: gen, MemberID: member}
	start := r.c.Sim.Now()
	if resp := r.call(coord, hb, time.Second).(model.HeartbeatResponse); resp.Error != model.NoError {
		t.Fatalf("heartbeat with nothing pending: %v", resp)
	}
	if waited := r.c.Sim.Now() - start; waited > 10*time.Millisecond {
		t.Fatalf("heartbeat with nothing pending answered after %v", waited)
	}
	// Cut the coordinator from its followers: the commit is appended but
	// its high watermark never comes.
	r.c.Isolate(coord)
	r.corr++
	commit := model.OffsetCommitRequest{CorrelationID: r.corr, GroupID: "g", GenerationID: gen, MemberID: member,
		Offsets: []model.CommitOffset{{TP: model.TP("t", 0), Offset: 5}}}
	r.c.Sim.SendAs(r.id, sim.NodeID(coord), commit)
	r.c.Sim.Run(r.c.Sim.Now() + 100*time.Millisecond)
	start = r.c.Sim.Now()
	resp := r.call(coord, hb, 10*time.Second).(model.HeartbeatResponse)
	if resp.Error != model.CoordinatorNotAvailable {
		t.Fatalf("heartbeat behind an uncommitted write: %v", resp)
	}
	if waited := r.c.Sim.Now() - start; waited < groupConfig().Group.OffsetCommitTimeout {
		t.Fatalf("heartbeat behind an uncommitted write answered after %v, before offsets.commit.timeout.ms", waited)
	}
}

// The same heartbeat is answered NONE once the write it waits for
// commits: the cut heals before offsets.commit.timeout.ms.
func TestAHeartbeatBehindAWriteIsAnsweredWhenTheWriteCommits(t *testing.T) {
	r := newGroupRig(t, 3, groupConfig())
	coord, member, gen := r.joinedGroup("g")
	r.c.Isolate(coord)
	r.corr++
	commit := model.OffsetCommitRequest{CorrelationID: r.corr, GroupID: "g", GenerationID: gen, MemberID: member,
		Offsets: []model.CommitOffset{{TP: model.TP("t", 0), Offset: 5}}}
	r.c.Sim.SendAs(r.id, sim.NodeID(coord), commit)
	r.c.Sim.Run(r.c.Sim.Now() + 100*time.Millisecond)
	heal := r.c.Sim.Now() + 2*time.Second
	r.c.Sim.At(heal, "heal", func() { r.c.Sim.HealAll() })
	hb := model.HeartbeatRequest{GroupID: "g", GenerationID: gen, MemberID: member}
	resp := r.call(coord, hb, 10*time.Second).(model.HeartbeatResponse)
	if resp.Error != model.NoError {
		t.Fatalf("heartbeat released by the commit: %v", resp)
	}
	if now := r.c.Sim.Now(); now < heal || now > heal+groupConfig().Group.OffsetCommitTimeout {
		t.Fatalf("heartbeat answered at %v, heal at %v", now, heal)
	}
}
