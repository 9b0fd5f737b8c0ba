package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// sendNow makes node from send m to node to, as if its code had.
func sendNow(s *Sim, from, to NodeID, m Message) {
	s.nodes[s.index(from)].env.Send(to, m)
}

func TestLinkIsFIFOUnderRandomLatency(t *testing.T) {
	// Latency varies per message from 1ms to 50ms, yet a connection
	// delivers in the order sent, exactly once.
	s, log := world(t, 2, LinkConfig{Latency: Latency{Min: ms, Max: 50 * ms}}, plain)
	for i := 0; i < 200; i++ {
		i := i
		s.At(time.Duration(i)*100*time.Microsecond, "send", func() { sendNow(s, 0, 1, msg(i)) })
	}
	s.Run(time.Second)
	var got []int
	for _, l := range *log {
		var v int
		if _, err := fmt.Sscanf(strings.SplitN(l, " ", 2)[1], "n1 recv msg(%d) from n0", &v); err == nil {
			got = append(got, v)
		}
	}
	if len(got) != 200 {
		t.Fatalf("delivered %d messages, want 200 (exactly once)", len(got))
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("message %d delivered at position %d: not FIFO", v, i)
		}
	}
}

func TestLatencyIsDrawnPerMessageWithinBounds(t *testing.T) {
	s, log := world(t, 2, LinkConfig{Latency: Latency{Min: 10 * ms, Max: 20 * ms}}, plain)
	s.At(0, "send", func() { sendNow(s, 0, 1, msg(1)) })
	s.Run(time.Second)
	if len(*log) != 1 {
		t.Fatalf("log %v", *log)
	}
	d, _ := time.ParseDuration(strings.Fields((*log)[0])[0])
	if d < 10*ms || d > 20*ms {
		t.Fatalf("delivered after %v, want within [10ms, 20ms]", d)
	}
}

func TestNothingCrossesACut(t *testing.T) {
	s, log := world(t, 3, LinkConfig{Latency: Fixed(ms)}, plain)
	playCutAndHeal(s)
	mustContain(t, *log, "1ms n1 recv msg(1) from n0")
	// The partition broke the connection that existed: both ends told.
	mustContain(t, *log, "10ms n0 disconnect n1")
	mustContain(t, *log, "10ms n1 disconnect n0")
	for _, bad := range []string{"msg(3)", "msg(4)", "msg(5)"} {
		for _, l := range *log {
			if strings.Contains(l, bad) {
				t.Fatalf("%s crossed the partition: %s", bad, l)
			}
		}
	}
	mustContain(t, *log, "21ms n1 recv msg(6) from n2")
	mustContain(t, *log, "41ms n1 recv msg(7) from n0")
	if s.Stats().Dropped != 3 {
		t.Fatalf("dropped %d, want 3", s.Stats().Dropped)
	}
}

func TestOneWayCut(t *testing.T) {
	s, log := world(t, 2, LinkConfig{Latency: Fixed(ms)}, plain)
	s.Cut(0, 1)
	s.At(0, "send", func() { sendNow(s, 0, 1, msg(1)); sendNow(s, 1, 0, msg(2)) })
	s.Run(time.Second)
	mustNotContain(t, *log, "1ms n1 recv msg(1) from n0")
	mustContain(t, *log, "1ms n0 recv msg(2) from n1")
	if !s.IsCut(0, 1) || s.IsCut(1, 0) {
		t.Fatal("cut state wrong")
	}
}

func TestResetLosesInFlightAndTellsBothEnds(t *testing.T) {
	s, log := world(t, 2, LinkConfig{Latency: Fixed(10 * ms)}, plain)
	s.At(0, "send", func() { sendNow(s, 0, 1, msg(1)); sendNow(s, 1, 0, msg(2)) })
	s.At(5*ms, "reset", func() { s.ResetConnection(0, 1) })
	s.At(6*ms, "send", func() { sendNow(s, 0, 1, msg(3)) })
	s.Run(time.Second)
	mustContain(t, *log, "5ms n0 disconnect n1")
	mustContain(t, *log, "5ms n1 disconnect n0")
	mustNotContain(t, *log, "10ms n1 recv msg(1) from n0")
	mustNotContain(t, *log, "10ms n0 recv msg(2) from n1")
	mustContain(t, *log, "16ms n1 recv msg(3) from n0") // a new connection works at once
}

func TestSendToDownNodeIsRefused(t *testing.T) {
	s, log := world(t, 2, LinkConfig{Latency: Fixed(ms)}, plain)
	s.Crash(1)
	s.At(0, "send", func() { sendNow(s, 0, 1, msg(1)) })
	s.Run(time.Second)
	mustContain(t, *log, "1ms n0 disconnect n1")
	if s.Stats().Delivered != 0 {
		t.Fatal("a down node received a message")
	}
}

func TestClogDelaysButKeepsOrder(t *testing.T) {
	s, log := world(t, 2, LinkConfig{Latency: Fixed(ms)}, plain)
	s.At(0, "clog", func() { s.Clog(0, 1, 100*ms, 50*ms) })
	s.At(10*ms, "send", func() { sendNow(s, 0, 1, msg(1)) })
	s.At(60*ms, "send", func() { sendNow(s, 0, 1, msg(2)) }) // clog over, but FIFO behind msg(1)
	s.At(200*ms, "send", func() { sendNow(s, 0, 1, msg(3)) })
	s.At(0, "send", func() { sendNow(s, 1, 0, msg(9)) }) // the other direction is not clogged
	s.Run(time.Second)
	want := []string{"1ms n0 recv msg(9) from n1", "111ms n1 recv msg(1) from n0", "111ms n1 recv msg(2) from n0", "201ms n1 recv msg(3) from n0"}
	if strings.Join(*log, "|") != strings.Join(want, "|") {
		t.Fatalf("got\n%s\nwant\n%s", join(*log), join(want))
	}
}

func TestDatagramModeDuplicatesAndReorders(t *testing.T) {
	dg := LinkConfig{Latency: Latency{Min: ms, Max: 2 * ms}, Datagram: &Datagram{DupProb: 0.5, ReorderProb: 0.5, ReorderMax: 20 * ms}}
	s, log := world(t, 2, LinkConfig{Latency: Fixed(ms)}, plain)
	s.SetLink(0, 1, dg)
	for i := 0; i < 100; i++ {
		i := i
		s.At(time.Duration(i)*ms, "send", func() { sendNow(s, 0, 1, msg(i)); sendNow(s, 1, 0, msg(1000+i)) })
	}
	s.Run(time.Second)
	seen := map[string]int{}
	var order []int
	var back []int
	for _, l := range *log {
		var v int
		f := strings.Fields(l)
		if len(f) >= 4 && f[1] == "n1" {
			fmt.Sscanf(f[3], "msg(%d)", &v)
			seen[f[3]]++
			order = append(order, v)
		}
		if len(f) >= 4 && f[1] == "n0" {
			fmt.Sscanf(f[3], "msg(%d)", &v)
			back = append(back, v)
		}
	}
	dups, reordered := 0, 0
	for _, c := range seen {
		if c > 1 {
			dups++
		}
	}
	for i := 1; i < len(order); i++ {
		if order[i] < order[i-1] {
			reordered++
		}
	}
	if dups == 0 || reordered == 0 {
		t.Fatalf("datagram link: %d duplicated, %d reordered; want both > 0", dups, reordered)
	}
	// The plain direction stays exactly-once FIFO.
	if len(back) != 100 {
		t.Fatalf("plain link delivered %d, want 100", len(back))
	}
	for i, v := range back {
		if v != 1000+i {
			t.Fatalf("plain link out of order at %d: %d", i, v)
		}
	}
}

// reused is a test message whose sender reuses its memory once the
// first delivery is handled, as the nodes' free lists do: a Cloner.
type reused struct{ v int64 }

func (m *reused) Digest() uint64 { return uint64(m.v) }
func (m *reused) String() string { return fmt.Sprintf("reused(%d)", m.v) }
func (m *reused) Clone() any     { c := *m; return &c }

// TestADuplicateOwnsItsMessage checks that a datagram path delivers a
// Cloner it duplicates as two clones made when it was sent, never as the
// sent object: the receiver writes over each delivery (as a sender reusing
// its memory would), and the other still reads what was sent. Cloning
// draws nothing and moves no event: a run of Cloners delivers as a run of
// plain values does, with the same trace hash.
func TestADuplicateOwnsItsMessage(t *testing.T) {
	play := func(mk func(int64) Message) (*Sim, []string) {
		s, log := world(t, 2, LinkConfig{Latency: Latency{Min: ms, Max: 5 * ms}, Datagram: &Datagram{DupProb: 1, ReorderProb: 0.5, ReorderMax: 3 * ms}}, plain)
		for i := int64(1); i <= 20; i++ {
			s.At(time.Duration(i)*10*ms, "send", func() { sendNow(s, 0, 1, mk(i)) })
		}
		s.Run(time.Second)
		return s, *log
	}
	seen, sent := map[*reused]int{}, map[*reused]bool{}
	sReused, logReused := play(func(v int64) Message { return &reused{v} })
	s, log := world(t, 2, LinkConfig{Latency: Fixed(ms), Datagram: &Datagram{DupProb: 1}}, func(id NodeID) *probe {
		return &probe{onRecv: func(env *Env, from NodeID, m Message) {
			r := m.(*reused)
			seen[r]++
			if sent[r] {
				t.Errorf("reused(%d) was delivered as the object sent", r.v)
			}
			if r.v < 0 {
				t.Errorf("a delivery read %d: the memory its sender reused", r.v)
			}
			r.v = -1 // the sender's next use writes over it
		}}
	})
	for i := int64(1); i <= 5; i++ {
		s.At(time.Duration(i)*10*ms, "send", func() {
			m := &reused{i}
			sent[m] = true
			sendNow(s, 0, 1, m)
		})
	}
	s.Run(time.Second)
	if len(*log) != 10 || len(seen) != 10 {
		t.Fatalf("%d deliveries of %d objects, want 10 of 10:\n%s", len(*log), len(seen), join(*log))
	}
	sPlain, logPlain := play(func(v int64) Message { return msg(v) })
	if len(logPlain) != 40 || sPlain.Hash() != sReused.Hash() {
		t.Fatalf("cloning changed the run: %d deliveries, hash %x, plain values %x", len(logReused), sReused.Hash(), sPlain.Hash())
	}
	for i := range logPlain {
		want := strings.Replace(logPlain[i], "msg(", "reused(", 1)
		if logReused[i] != want {
			t.Fatalf("delivery %d: %q with clones, %q with plain values", i, logReused[i], want)
		}
	}
}

// playCutAndHeal is the cut the two networks' cut tests share: n0 and n1
// talk, a cut parts n0 from n1 and n2 at 10 ms, messages are sent across
// it and beside it at 20 ms, it heals at 30 ms, and n0 sends again at 40
// ms. Each network's test says what its log must then show.
func playCutAndHeal(s *Sim) {
	s.At(0, "talk", func() { sendNow(s, 0, 1, msg(1)); sendNow(s, 1, 0, msg(2)) })
	s.At(10*ms, "cut", func() { s.Partition([]NodeID{0}, []NodeID{1, 2}) })
	s.At(20*ms, "send", func() {
		sendNow(s, 0, 1, msg(3))
		sendNow(s, 1, 0, msg(4))
		sendNow(s, 0, 2, msg(5))
		sendNow(s, 2, 1, msg(6)) // same side: crosses nothing
	})
	s.At(30*ms, "heal", func() { s.HealAll() })
	s.At(40*ms, "send", func() { sendNow(s, 0, 1, msg(7)) })
	s.Run(time.Second)
}
