package raft

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// listSM is the tiny state machine the tests replicate: a list of strings
// with the offset each was committed at.
type listSM struct {
	w       *world
	id      model.BrokerID
	offsets []int64
	values  []string
	leader  model.BrokerID
	epoch   model.Epoch
	isMe    bool
}

func (s *listSM) Apply(offset int64, epoch model.Epoch, data []byte) {
	if n := len(s.offsets); n > 0 && offset <= s.offsets[n-1] {
		s.w.fail("%v applied offset %d after %d", s.id, offset, s.offsets[n-1])
	}
	s.offsets = append(s.offsets, offset)
	s.values = append(s.values, string(data))
}

func (s *listSM) Snapshot() []byte {
	var b []byte
	b = binary.AppendUvarint(b, uint64(len(s.values)))
	for i := range s.values {
		b = binary.AppendUvarint(b, uint64(s.offsets[i]))
		b = binary.AppendUvarint(b, uint64(len(s.values[i])))
		b = append(b, s.values[i]...)
	}
	return b
}

func (s *listSM) Restore(offset int64, epoch model.Epoch, data []byte) {
	s.offsets, s.values = nil, nil
	r := reader{b: data}
	n := r.uvarint()
	for i := uint64(0); i < n; i++ {
		s.offsets = append(s.offsets, int64(r.uvarint()))
		s.values = append(s.values, string(r.bytes()))
	}
	if r.bad {
		s.w.fail("%v: bad snapshot", s.id)
	}
}

func (s *listSM) LeaderChanged(leader model.BrokerID, epoch model.Epoch, isMe bool) {
	s.leader, s.epoch, s.isMe = leader, epoch, isMe
}

// host is a sim.Node that runs nothing but a Raft and its listSM.
type host struct {
	cfg Config
	w   *world
	sm  *listSM
	r   *Raft
	env *sim.Env
}

func (h *host) Start(env *sim.Env) {
	h.env = env
	h.sm = &listSM{w: h.w, id: h.cfg.ID, leader: model.NoBroker}
	h.r = New(h.cfg, h.sm)
	h.r.Start(env)
}

func (h *host) Receive(env *sim.Env, from sim.NodeID, m sim.Message) {
	if !h.r.Receive(env, from, m) {
		panic(fmt.Sprintf("host: not a raft message: %T", m))
	}
}

func (h *host) Fire(env *sim.Env, t sim.Timer) {
	if !h.r.Fire(env, t) {
		panic("host: not a raft timer: " + t.Kind)
	}
}

func (h *host) Disconnected(env *sim.Env, peer sim.NodeID) { h.r.Disconnected(env, peer) }

// watch checks the safety invariants as the nodes report: one leader per
// epoch, committed entries never change, high watermarks never go back
// (per incarnation).
type watch struct {
	w       *world
	leaders map[model.Epoch]model.BrokerID
	digests map[int64]uint64
	hw      map[model.BrokerID]int64
	snaps   map[model.BrokerID]int
	elected int
}

func (o *watch) QuorumLeader(n model.BrokerID, epoch model.Epoch) {
	o.elected++
	if l, ok := o.leaders[epoch]; ok && l != n {
		o.w.fail("two leaders in epoch %d: %v and %v", epoch, l, n)
	}
	o.leaders[epoch] = n
}

func (o *watch) QuorumHighWatermark(n model.BrokerID, epoch model.Epoch, hw int64) {
	if hw < o.hw[n] {
		o.w.fail("%v: high watermark went back from %d to %d", n, o.hw[n], hw)
	}
	o.hw[n] = hw
}

func (o *watch) QuorumApplied(n model.BrokerID, off int64, epoch model.Epoch, digest uint64) {
	if d, ok := o.digests[off]; ok && d != digest {
		o.w.fail("%v: committed offset %d changed", n, off)
	}
	o.digests[off] = digest
}

func (o *watch) QuorumSnapshotLoaded(n model.BrokerID, off int64) { o.snaps[n]++ }

var recordTrace = false

// world is a quorum of voters and observers over the kernel.
// tb is what the world needs of a test: *testing.T and *rapid.T both.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
	Fatal(args ...any)
}

type world struct {
	t         tb
	s         *sim.Sim
	voters    []model.BrokerID
	observers []model.BrokerID
	watch     *watch
	failures  []string
	proposed  int
	accepted  map[string]int64 // value -> offset proposed at
}

type worldOptions struct {
	voters, observers int
	snapshotEvery     int
	loadRate          int64
	_                 struct{}
}

func newWorld(t tb, seed uint64, o worldOptions) *world {
	w := &world{t: t, accepted: map[string]int64{}}
	w.watch = &watch{w: w, leaders: map[model.Epoch]model.BrokerID{}, digests: map[int64]uint64{},
		hw: map[model.BrokerID]int64{}, snaps: map[model.BrokerID]int{}}
	w.s = sim.New(sim.Config{Seed: seed, EventLimit: 20_000_000, Record: recordTrace,
		Link: sim.LinkConfig{Latency: sim.Latency{Min: 500 * time.Microsecond, Max: 1500 * time.Microsecond}}})
	for i := 0; i < o.voters; i++ {
		w.voters = append(w.voters, model.BrokerID(100+i))
	}
	for i := 0; i < o.observers; i++ {
		w.observers = append(w.observers, model.BrokerID(1+i))
	}
	for _, id := range append(slices.Clone(w.voters), w.observers...) {
		cfg := Config{ID: id, Voters: w.voters, Observer: id < 100, Dir: "__cluster_metadata-0/",
			SnapshotEvery: o.snapshotEvery, LoadRate: o.loadRate, Watch: w.watch}
		w.s.AddNode(sim.NodeID(id), id.String(), func() sim.Node { return &host{cfg: cfg, w: w} })
		w.s.Disk(sim.NodeID(id)).SetTornWrites(true)
	}
	for _, id := range w.s.Nodes() {
		w.s.Start(id)
	}
	return w
}

func (w *world) fail(format string, args ...any) {
	w.failures = append(w.failures, fmt.Sprintf("%v: ", w.s.Now())+fmt.Sprintf(format, args...))
}

func (w *world) check() {
	w.t.Helper()
	if len(w.failures) > 0 {
		w.t.Fatalf("seed %d: %s", w.s.Seed(), strings.Join(w.failures, "\n"))
	}
}

func (w *world) host(id model.BrokerID) *host {
	h, _ := w.s.Node(sim.NodeID(id)).(*host)
	return h
}

func (w *world) run(d time.Duration) { w.s.Run(w.s.Now() + d) }

// leader is the usable leader of the highest epoch (a deposed leader cut
// off from the others may still think it leads until it resigns).
func (w *world) leader() (model.BrokerID, bool) {
	found, best := model.NoBroker, model.Epoch(-1)
	for _, id := range w.voters {
		if h := w.host(id); h != nil && !w.s.IsPaused(sim.NodeID(id)) && h.r.IsLeader() && h.r.Epoch() > best {
			found, best = id, h.r.Epoch()
		}
	}
	return found, found != model.NoBroker
}

// waitNewLeader runs until a usable leader other than old exists, up to d.
func (w *world) waitNewLeader(old model.BrokerID, d time.Duration) model.BrokerID {
	w.t.Helper()
	end := w.s.Now() + d
	for w.s.Now() < end {
		if id, ok := w.leader(); ok && id != old {
			return id
		}
		w.run(10 * time.Millisecond)
	}
	w.t.Fatalf("seed %d: no new leader after %v", w.s.Seed(), d)
	return model.NoBroker
}

// waitLeader runs until a usable leader exists, up to d.
func (w *world) waitLeader(d time.Duration) model.BrokerID {
	w.t.Helper()
	end := w.s.Now() + d
	for w.s.Now() < end {
		if id, ok := w.leader(); ok {
			return id
		}
		w.run(10 * time.Millisecond)
	}
	w.t.Fatalf("seed %d: no leader after %v", w.s.Seed(), d)
	return model.NoBroker
}

// propose asks the usable leader to append one value; false if none
// took it.
func (w *world) propose(value string) bool {
	id, ok := w.leader()
	if !ok {
		return false
	}
	h := w.host(id)
	off, ok := h.r.Propose(h.env, [][]byte{[]byte(value)})
	if ok {
		w.accepted[value] = off
		w.proposed++
	}
	return ok
}

// proposeN proposes n values, one every step of virtual time.
func (w *world) proposeN(prefix string, n int, step time.Duration) int {
	took := 0
	for i := 0; i < n; i++ {
		if w.propose(fmt.Sprintf("%s%d", prefix, i)) {
			took++
		}
		w.run(step)
	}
	return took
}

// values is what a node's state machine holds.
func (w *world) values(id model.BrokerID) []string {
	h := w.host(id)
	if h == nil {
		return nil
	}
	return h.sm.values
}

// converged checks that every live node applied the same values, equal to
// want when want is not nil.
func (w *world) converged(want []string) {
	w.t.Helper()
	var ref []string
	var refID model.BrokerID
	for _, id := range append(slices.Clone(w.voters), w.observers...) {
		if w.host(id) == nil {
			continue
		}
		v := w.values(id)
		if ref == nil {
			ref, refID = v, id
			continue
		}
		if !slices.Equal(v, ref) {
			w.t.Fatalf("seed %d: %v applied %d values, %v applied %d (%v vs %v)", w.s.Seed(), id, len(v), refID, len(ref), tail(v), tail(ref))
		}
	}
	if want != nil && !slices.Equal(ref, want) {
		w.t.Fatalf("seed %d: applied %v, want %v", w.s.Seed(), tail(ref), tail(want))
	}
}

func tail(v []string) []string {
	if len(v) > 5 {
		return v[len(v)-5:]
	}
	return v
}

func (w *world) isolate(id model.BrokerID) {
	for _, o := range w.s.Nodes() {
		if o != sim.NodeID(id) {
			w.s.Cut(sim.NodeID(id), o)
			w.s.Cut(o, sim.NodeID(id))
		}
	}
}

// restart brings a node back; its high-watermark history starts over.
func (w *world) restart(id model.BrokerID) {
	delete(w.watch.hw, id)
	w.s.Restart(sim.NodeID(id))
}

func (w *world) crash(id model.BrokerID)     { w.s.Crash(sim.NodeID(id)) }
func (w *world) powerLoss(id model.BrokerID) { w.s.PowerLoss(sim.NodeID(id)) }
