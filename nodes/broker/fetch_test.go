package broker

import (
	"fmt"
	"strings"

	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/storage"
	"kafkasim/sim"
)

// fetchDouble is a consumer that sends fetches on command and logs the
// answers, fetches and ListOffsets.
type fetchDouble struct {
	answers *[]*model.FetchResponse
	listed  *[]model.ListOffsetsResponse
}

func (c *fetchDouble) Start(env *sim.Env) {}
func (c *fetchDouble) Receive(env *sim.Env, from sim.NodeID, m sim.Message) {
	switch r := m.(type) {
	case *model.FetchResponse:
		*c.answers = append(*c.answers, r)
	case model.ListOffsetsResponse:
		*c.listed = append(*c.listed, r)
	}
}
func (c *fetchDouble) Fire(env *sim.Env, t sim.Timer)             {}
func (c *fetchDouble) Disconnected(env *sim.Env, peer sim.NodeID) {}

const consumerID = 1001

// consumerFetch makes the consumer double send a long-polled fetch of the
// rig's partition to broker 1.
func (r *rig) consumerFetch(at time.Duration, corr int32, off model.Offset, wait time.Duration) {
	r.s.At(at, "fetch", func() {
		req := model.NewFetchRequest(1)
		req.CorrelationID = corr
		req.ReplicaID = model.NoBroker
		req.BrokerEpoch = model.NoEpoch
		req.MaxWait = wait
		req.MinBytes = r.minBytes
		req.MaxBytes = 1 << 20
		req.Partitions = append(req.Partitions, model.FetchPartition{
			TP: r.tp, FetchOffset: off, CurrentLeaderEpoch: model.NoEpoch, LastFetchedEpoch: model.NoEpoch, MaxBytes: 1 << 20,
		})
		r.s.SendAs(consumerID, 1, req)
	})
}

func (r *rig) broker(id model.BrokerID) *Broker { return r.s.Node(sim.NodeID(id)).(*Broker) }

// Parked fetches are answered once each, with their own correlation id and
// what their own offset reads, when data arrives or their wait runs out;
// an answered fetch's parking record goes back to the broker's free list
// for the next one.
func TestParkedFetchesAreAnsweredOnceAndTheirRecordsReused(t *testing.T) {
	r := newRig(t, testConfig())

	r.consumerFetch(2*time.Second, 1, 0, 500*time.Millisecond)
	r.produce(2*time.Second+100*time.Millisecond, 1, model.AcksAll, "v0")
	r.consumerFetch(3*time.Second, 2, 1, 500*time.Millisecond)
	r.produce(3*time.Second+100*time.Millisecond, 1, model.AcksAll, "v1")
	r.consumerFetch(4*time.Second, 3, 2, 200*time.Millisecond) // nothing comes: expires
	parked := false
	r.s.At(2*time.Second+50*time.Millisecond, "check parked", func() {
		for _, df := range r.broker(1).fetches {
			parked = parked || df.from == consumerID
		}
	})
	r.s.Run(5 * time.Second)

	got := *r.fetched
	if !parked {
		t.Fatal("the consumer's fetch at the log end was not parked")
	}
	if len(got) != 3 {
		t.Fatalf("got %d answers, want 3", len(got))
	}
	for i, want := range []struct {
		corr  int32
		first model.Offset // -1: no batch
	}{{1, 0}, {2, 1}, {3, -1}} {
		a := got[i]
		if a.CorrelationID != want.corr || len(a.Partitions) != 1 || a.Partitions[0].Error != model.NoError {
			t.Fatalf("answer %d: %v", i, a)
		}
		bs := a.Partitions[0].Batches
		switch {
		case want.first < 0 && len(bs) != 0:
			t.Fatalf("answer %d: %v, want no batch", i, a)
		case want.first >= 0 && (len(bs) != 1 || bs[0].BaseOffset != want.first):
			t.Fatalf("answer %d: %v, want the batch at %d", i, a, want.first)
		}
	}
	b := r.broker(1)
	if len(b.freeFetches) == 0 {
		t.Fatal("no answered fetch went back to the free list")
	}
	for _, df := range b.freeFetches {
		if df.req != nil || df.links != 0 || df.done {
			t.Fatalf("a free record still holds a fetch: %+v", *df)
		}
	}
}

// A fetch parked on two partitions and answered through one stays in the
// other's delayed list, marked done; its record is freed only when the last
// list drops it, so that no list ever holds a record reused for another
// fetch.
func TestADelayedFetchIsFreedOnlyWhenNoPartitionHoldsIt(t *testing.T) {
	b := &Broker{}
	p1, p2 := &partition{tp: model.TP("t", 0)}, &partition{tp: model.TP("t", 1)}
	df := b.newDelayedFetch()
	*df = delayedFetch{id: 1, req: model.NewFetchRequest(2), links: 2}
	live := b.newDelayedFetch()
	*live = delayedFetch{id: 2, req: model.NewFetchRequest(1), links: 1}
	p1.delayed = []*delayedFetch{df}
	p2.delayed = []*delayedFetch{df, live}

	df.done = true // answered through p1's wake, say
	b.sweepDelayed(p1)
	if len(b.freeFetches) != 0 || df.links != 1 {
		t.Fatalf("freed while p2 still holds it: links %d, free %d", df.links, len(b.freeFetches))
	}
	b.sweepDelayed(p2)
	if len(b.freeFetches) != 1 || b.freeFetches[0] != df || df.req != nil {
		t.Fatalf("not freed once no list holds it: free %v", b.freeFetches)
	}
	if len(p2.delayed) != 1 || p2.delayed[0] != live || live.req == nil {
		t.Fatalf("the sweep touched a fetch still parked: %v", p2.delayed)
	}
	if again := b.newDelayedFetch(); again != df {
		t.Fatal("the free record was not reused")
	}
}

// A fetch delivered twice (a datagram link duplicates it) is answered
// twice, and the second answer does not take the room the first answer
// already uses in the request: each keeps what the log held when it was
// built.
func TestADuplicatedFetchGetsTwoIntactAnswers(t *testing.T) {
	r := newRig(t, testConfig())
	// The copy arrives one link latency after the original.
	r.s.SetLink(consumerID, 1, sim.LinkConfig{Latency: sim.Fixed(50 * time.Millisecond), Datagram: &sim.Datagram{DupProb: 1}})
	r.consumerFetch(2*time.Second, 1, 0, 0)                              // answered at once: nothing yet
	r.produce(2*time.Second+55*time.Millisecond, 1, model.AcksAll, "v0") // committed before the copy arrives
	r.s.Run(3 * time.Second)

	got := *r.fetched
	if len(got) != 2 {
		t.Fatalf("got %d answers, want 2", len(got))
	}
	first, second := got[0], got[1]
	if first == second {
		t.Fatal("both answers are one object")
	}
	if p := first.Partitions[0]; p.HighWatermark != 0 || len(p.Batches) != 0 {
		t.Fatalf("the first answer changed after it was sent: %v", first)
	}
	if p := second.Partitions[0]; p.HighWatermark != 1 || len(p.Batches) != 1 {
		t.Fatalf("the second answer: %v, want the committed batch", second)
	}
}

// A follower's fetcher reuses its request's memory round after round, over
// a connection and over a link that delivers messages twice (whose second
// delivery is the network's own clone, sim.Cloner), and replication comes
// out the same: a duplicate that shared the reused request would reach the
// leader as the next fetch.
func TestAFollowerReusesItsFetchAlsoOverALinkThatDuplicates(t *testing.T) {
	for _, dup := range []bool{false, true} {
		r := newRig(t, testConfig())
		if dup {
			r.s.SetLink(2, 1, sim.LinkConfig{Latency: sim.Fixed(time.Millisecond), Datagram: &sim.Datagram{DupProb: 0.5}})
		}
		for i := 0; i < 20; i++ {
			r.produce(time.Second+time.Duration(i)*10*time.Millisecond, 1, model.AcksAll, fmt.Sprintf("v%d", i))
		}
		seen := map[*model.FetchRequest]bool{}
		for at := time.Second; at <= 1300*time.Millisecond; at += 5 * time.Millisecond {
			r.s.Run(at)
			if f := r.s.Node(2).(*Broker).fetchers[1]; f != nil && f.last != nil {
				seen[f.last] = true
			}
		}
		r.s.Run(3 * time.Second)
		if len(seen) != 1 {
			t.Errorf("dup=%v: the follower used %d fetch objects, want 1", dup, len(seen))
		}
		if len(*r.answers) != 20 {
			t.Fatalf("dup=%v: %d produce answers, want 20", dup, len(*r.answers))
		}
		lead, fol := r.replica(1), r.replica(2)
		if fol.LEO != 20 || lead.HW != 20 {
			t.Fatalf("dup=%v: follower LEO %d, leader HW %d, want 20", dup, fol.LEO, lead.HW)
		}
		if lv, fv := logValues(lead.Log), logValues(fol.Log); lv != fv {
			t.Fatalf("dup=%v: follower log %s differs from the leader's %s", dup, fv, lv)
		}
	}
}

// logValues lists a log's records as offset=value pairs.
func logValues(l *storage.Log) string {
	var b strings.Builder
	for _, batch := range l.Read(l.LogStartOffset(), 1<<30) {
		for _, r := range batch.Records {
			fmt.Fprintf(&b, "%d=%s ", r.Offset, r.Value)
		}
	}
	return b.String()
}

// The broker reads every fetch into one list of its own before it makes
// an answer of it (readFetch, fetchAnswer). An answer must not share that
// list: here a fetch answered at once is followed, before its answer is
// delivered, by one that reads nothing and parks, and the first answer
// must still carry what it read.
func TestAnAnswerKeepsWhatItsFetchRead(t *testing.T) {
	r := newRig(t, testConfig())
	r.produce(time.Second, 1, model.AcksAll, "v0")
	r.consumerFetch(2*time.Second, 1, 0, 0)                    // reads the batch at 0
	r.consumerFetch(2*time.Second, 2, 1, 500*time.Millisecond) // at the end: parks
	r.s.Run(2*time.Second + 100*time.Millisecond)

	got := *r.fetched
	if len(got) != 1 {
		t.Fatalf("got %d answers, want 1 (the second fetch is parked)", len(got))
	}
	a := got[0]
	if a.CorrelationID != 1 || len(a.Partitions) != 1 {
		t.Fatalf("answer %v", a)
	}
	if p := a.Partitions[0]; p.Error != model.NoError || len(p.Batches) != 1 || p.Batches[0].BaseOffset != 0 || p.HighWatermark != 1 {
		t.Fatalf("the answer to the first fetch carries %+v, want the batch at 0", p)
	}
}

// Followers take the leader's log start offset from its fetch answers
// (ReplicaFetcherThread.processPartitionData): the leader's start moves to
// 5 (as its retention or a DeleteRecords would move it) and both
// followers' logs then start at 5 too, with the records above it kept.
func TestFollowersAdoptTheLeadersLogStartOffset(t *testing.T) {
	r := newRig(t, testConfig())
	for i := 0; i < 10; i++ {
		r.produce(time.Second+time.Duration(i)*10*time.Millisecond, 1, model.AcksAll, fmt.Sprintf("v%d", i))
	}
	r.s.At(2*time.Second, "raise the leader's log start", func() {
		if l := r.replica(1).Log; !l.MaybeIncrementLogStartOffset(5, r.replica(1).HW) {
			t.Errorf("leader HW %d: log start not raised", r.replica(1).HW)
		}
	})
	r.produce(2500*time.Millisecond, 1, model.AcksAll, "after")
	r.s.Run(4 * time.Second)
	for id := model.BrokerID(1); id <= 3; id++ {
		if v := r.replica(id); v.LogStart != 5 || v.LEO != 11 {
			t.Fatalf("b%d log start %d LEO %d, want 5 and 11", id, v.LogStart, v.LEO)
		}
	}
}

// The leader holds a fetch until its min bytes are readable or its wait
// runs out (ReplicaManager.fetchMessages, DelayedFetch.tryComplete): a
// consumer asking for 64 KiB gets one small record only when its 1.5 s
// run out, while one asking for a byte (Kafka's default fetch.min.bytes)
// gets it as soon as it is committed. The same holds for followers under
// replica.fetch.min.bytes: an acks=all write waits for the followers'
// replica.fetch.wait.max.ms (500 ms) instead of being acknowledged within
// a few round trips.
func TestTheLeaderHonoursFetchMinBytes(t *testing.T) {
	for _, minBytes := range []int32{1, 64 << 10} {
		kc := testConfig()
		kc.Broker.ReplicaFetchMinBytes = minBytes
		r := newRig(t, kc)
		r.minBytes = minBytes
		r.consumerFetch(2*time.Second, 1, 0, 1500*time.Millisecond)
		r.produce(2*time.Second+10*time.Millisecond, 1, model.AcksAll, "v0")
		var fetchedEarly, ackedEarly int
		r.s.At(2*time.Second+300*time.Millisecond, "look", func() {
			fetchedEarly, ackedEarly = len(*r.fetched), len(*r.answers)
		})
		r.s.Run(4 * time.Second)
		wantEarly := 0
		if minBytes == 1 {
			wantEarly = 1
		}
		if fetchedEarly != wantEarly || ackedEarly != wantEarly {
			t.Fatalf("min bytes %d: %d fetch answers and %d acks within 300 ms, want %d each", minBytes, fetchedEarly, ackedEarly, wantEarly)
		}
		got := *r.fetched
		if len(got) != 1 || len(got[0].Partitions[0].Batches) != 1 || len(*r.answers) != 1 || (*r.answers)[0].Error != model.NoError {
			t.Fatalf("min bytes %d: fetch answers %v, acks %v: want the record and its ack in the end", minBytes, got, *r.answers)
		}
	}
}
