package checkers

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"kafkasim/model"
)

// The cases of Jepsen's Kafka checker tests (kafka_test.clj in
// jepsen-io/jepsen) whose input is a history and whose assertion names the
// errors found, each judged here as that file judges it. The histories are
// kafkasim's own copies in testdata/jepsen, read through ReadJepsenEDN as
// a user's history.edn would be. Jepsen's `o` helper gives each event the
// time of its index, and so do the copies: an operation is named below by
// its completion's index in the Jepsen test, which is our op's End.
//
// The transactional cases (g0, g1c-pure-wr, g1c-ww-wr, int-send-skip,
// int-nonmonotonic-send, precommitted-read) are ported with the
// dependency-graph analyses that judge them.

// jepsenFile reads testdata/jepsen/name.
func jepsenFile(t *testing.T, name string) model.History {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "jepsen", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := ReadJepsenEDN(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// judgeJepsen runs the history checks as Jepsen's analysis does (no
// porcupine, which Jepsen's Kafka checker does not run).
func judgeJepsen(t *testing.T, h model.History, opts Options) Result {
	t.Helper()
	opts.LinearizabilityBudget = -1
	return check(t, Input{History: h}, opts)
}

// jepsenWant is one error as kafka_test.clj states it.
type jepsenWant struct {
	part    int32    // the key's partition: :x is 0 and :y 1 (first appearance), an integer key itself
	ends    []int    // the operations involved, by completion index; nil: the test names none
	values  []string // as the test lists them (skipped values for skips)
	offsets []int64  // nil: the test states none
	set     bool     // values are a set in the test: compare in any order
}

// operations maps a finding's op indices to the completion indices of the
// Jepsen operations they belong to: the micro-ops of one operation are one.
func operations(h model.History, ops []int) []int {
	var out []int
	last := -1
	for _, i := range ops {
		if i < 0 || i >= len(h) {
			return append(out, -1)
		}
		if h[i].Txn > 0 && last >= 0 && h[last].Txn == h[i].Txn {
			continue
		}
		out = append(out, int(h[i].End))
		last = i
	}
	return out
}

// mustJepsen asserts that the findings Jepsen files under key are exactly
// wants, in any order.
func mustJepsen(t *testing.T, h model.History, r Result, key string, wants ...jepsenWant) {
	t.Helper()
	var got []Violation
	for _, v := range r.Violations {
		if v.Jepsen == key {
			got = append(got, v)
		}
	}
	matches := func(v Violation, w jepsenWant) bool {
		if v.Partition != model.TP(JepsenTopic, w.part) {
			return false
		}
		if w.ends != nil && !slices.Equal(operations(h, v.Ops), w.ends) {
			return false
		}
		vals, want := slices.Clone(v.Values), slices.Clone(w.values)
		if w.set {
			slices.Sort(vals)
			slices.Sort(want)
		}
		if !slices.Equal(vals, want) {
			return false
		}
		if w.offsets != nil {
			os := make([]int64, len(v.Offsets))
			for i, o := range v.Offsets {
				os[i] = int64(o)
			}
			if !slices.Equal(os, w.offsets) {
				return false
			}
		}
		return true
	}
	used := make([]bool, len(got))
	ok := len(got) == len(wants)
	for _, w := range wants {
		found := false
		for i, v := range got {
			if !used[i] && matches(v, w) {
				used[i], found = true, true
				break
			}
		}
		ok = ok && found
	}
	if !ok {
		var b strings.Builder
		for _, v := range got {
			fmt.Fprintf(&b, "  %s\n    operations %v, values %q, offsets %v\n", v.String(), operations(h, v.Ops), v.Values, v.Offsets)
		}
		t.Fatalf("%s: want %d findings %+v; got %d:\n%s", key, len(wants), wants, len(got), b.String())
	}
}

// mustNoJepsen asserts that no finding has a Jepsen key at all: Jepsen's
// analysis would report no errors.
func mustNoJepsen(t *testing.T, r Result) {
	t.Helper()
	for _, v := range r.Violations {
		if v.Jepsen != "" {
			t.Fatalf("want no errors Jepsen would report; got %s", v.String())
		}
	}
}

func TestJepsenVersionOrders(t *testing.T) {
	h := jepsenFile(t, "version-orders.edn")
	r := judgeJepsen(t, h, Options{})
	mustJepsen(t, h, r, "inconsistent-offsets", jepsenWant{part: 0, offsets: []int64{1}, values: []string{":b", ":c"}, set: true})
}

func TestJepsenVersionOrdersRealWorld(t *testing.T) {
	h := jepsenFile(t, "version-orders-real-world.edn")
	r := judgeJepsen(t, h, Options{})
	mustJepsen(t, h, r, "inconsistent-offsets", jepsenWant{part: 11, offsets: []int64{537}, values: []string{"641", "645"}, set: true})
}

func TestJepsenInconsistentOffsetsInfoConflicts(t *testing.T) {
	h := jepsenFile(t, "inconsistent-offsets-info.edn")
	mustJepsen(t, h, judgeJepsen(t, h, Options{}), "inconsistent-offsets")
	h = jepsenFile(t, "inconsistent-offsets-info-read.edn")
	mustJepsen(t, h, judgeJepsen(t, h, Options{}), "inconsistent-offsets",
		jepsenWant{part: 0, offsets: []int64{0}, values: []string{"1", "2"}, set: true})
}

func TestJepsenG1a(t *testing.T) {
	h := jepsenFile(t, "g1a.edn")
	r := judgeJepsen(t, h, Options{})
	mustJepsen(t, h, r, "G1a", jepsenWant{part: 0, ends: []int{1, 3}, values: []string{"2"}})
	// Reported under kafkasim's name too.
	if v := find(r, AbortedRead); len(v) != 1 || v[0].Jepsen != "G1a" || !v[0].Error {
		t.Fatalf("want one aborted-read error filed as G1a: %+v", v)
	}
}

func TestJepsenLostWriteConsistent(t *testing.T) {
	h := jepsenFile(t, "lost-write-consistent.edn")
	mustJepsen(t, h, judgeJepsen(t, h, Options{}), "lost-write",
		jepsenWant{part: 0, ends: []int{1, 7}, values: []string{":a"}, offsets: []int64{0}},
		jepsenWant{part: 0, ends: []int{3, 7}, values: []string{":b"}, offsets: []int64{1}})
}

func TestJepsenLostWriteInconsistent(t *testing.T) {
	h := jepsenFile(t, "lost-write-inconsistent.edn")
	mustJepsen(t, h, judgeJepsen(t, h, Options{}), "lost-write",
		jepsenWant{part: 0, ends: []int{1, 5}, values: []string{":a"}, offsets: []int64{0}})
}

func TestJepsenLostWriteAtomic(t *testing.T) {
	// Without the poll of a nothing proves the first operation committed.
	h := jepsenFile(t, "lost-write-atomic-unproven.edn")
	mustJepsen(t, h, judgeJepsen(t, h, Options{}), "lost-write")
	h = jepsenFile(t, "lost-write-atomic.edn")
	mustJepsen(t, h, judgeJepsen(t, h, Options{}), "lost-write",
		jepsenWant{part: 1, ends: []int{1, 7}, values: []string{":b"}, offsets: []int64{0}})
}

func TestJepsenPollSkip(t *testing.T) {
	skips := []jepsenWant{
		{part: 0, ends: []int{1, 7}, values: []string{":c"}},
		{part: 0, ends: []int{7, 13}, values: []string{":f"}},
	}
	h := jepsenFile(t, "poll-skip.edn")
	mustJepsen(t, h, judgeJepsen(t, h, Options{}), "poll-skip", skips...)
	t.Run("with intermediate subscribe", func(t *testing.T) {
		h := jepsenFile(t, "poll-skip-subscribe-y.edn")
		mustJepsen(t, h, judgeJepsen(t, h, Options{}), "poll-skip")
		h = jepsenFile(t, "poll-skip-subscribe-xy.edn")
		mustJepsen(t, h, judgeJepsen(t, h, Options{}), "poll-skip", skips...)
	})
}

func TestJepsenPollSkipTxnAbort(t *testing.T) {
	t.Run("good", func(t *testing.T) {
		mustNoJepsen(t, judgeJepsen(t, jepsenFile(t, "poll-skip-txn-abort-good.edn"), Options{}))
	})
	t.Run("abort doesn't roll back", func(t *testing.T) {
		h := jepsenFile(t, "poll-skip-txn-abort-no-rollback.edn")
		mustJepsen(t, h, judgeJepsen(t, h, Options{}), "poll-skip",
			jepsenWant{part: 0, ends: []int{2, 6}, values: []string{"1", "2"}},
			jepsenWant{part: 0, ends: []int{2, 8}, values: []string{"1", "2", "3", "4"}})
	})
	t.Run("info can be a poll-skip", func(t *testing.T) {
		h := jepsenFile(t, "poll-skip-txn-abort-info.edn")
		mustJepsen(t, h, judgeJepsen(t, h, Options{}), "poll-skip",
			jepsenWant{part: 0, ends: []int{2, 6}, values: []string{"1", "2"}})
	})
}

func TestJepsenNonmonotonicPoll(t *testing.T) {
	rewind := jepsenWant{part: 0, ends: []int{3, 7}, values: []string{":c", ":b"}}
	t.Run("together", func(t *testing.T) {
		h := jepsenFile(t, "nonmonotonic-poll.edn")
		mustJepsen(t, h, judgeJepsen(t, h, Options{}), "nonmonotonic-poll", rewind)
	})
	t.Run("with intermediate subscribe", func(t *testing.T) {
		for _, name := range []string{"subscribe-y", "assign-y"} {
			h := jepsenFile(t, "nonmonotonic-poll-"+name+".edn")
			mustJepsen(t, h, judgeJepsen(t, h, Options{}), "nonmonotonic-poll")
		}
		for _, name := range []string{"subscribe-xy", "assign-xy"} {
			h := jepsenFile(t, "nonmonotonic-poll-"+name+".edn")
			mustJepsen(t, h, judgeJepsen(t, h, Options{}), "nonmonotonic-poll", rewind)
		}
	})
}

func TestJepsenNonmonotonicSend(t *testing.T) {
	back := jepsenWant{part: 0, ends: []int{1, 11}, values: []string{":d", ":a"}}
	h := jepsenFile(t, "nonmonotonic-send.edn")
	mustJepsen(t, h, judgeJepsen(t, h, Options{}), "nonmonotonic-send", back)
	t.Run("with intermediate subscribe", func(t *testing.T) {
		for _, name := range []string{"subscribe-y", "assign-y"} {
			h := jepsenFile(t, "nonmonotonic-send-"+name+".edn")
			mustJepsen(t, h, judgeJepsen(t, h, Options{}), "nonmonotonic-send")
		}
		for _, name := range []string{"subscribe-xy", "assign-xy"} {
			h := jepsenFile(t, "nonmonotonic-send-"+name+".edn")
			mustJepsen(t, h, judgeJepsen(t, h, Options{}), "nonmonotonic-send", back)
		}
	})
}

func TestJepsenIntPollSkip(t *testing.T) {
	h := jepsenFile(t, "int-poll-skip.edn")
	mustJepsen(t, h, judgeJepsen(t, h, Options{}), "int-poll-skip",
		jepsenWant{part: 0, ends: []int{3}, values: []string{":b"}},
		jepsenWant{part: 0, ends: []int{5}, values: []string{":b"}})
}

func TestJepsenIntNonmonotonicPoll(t *testing.T) {
	h := jepsenFile(t, "int-nonmonotonic-poll.edn")
	mustJepsen(t, h, judgeJepsen(t, h, Options{}), "int-nonmonotonic-poll",
		jepsenWant{part: 0, ends: []int{3}, values: []string{":c", ":a"}},
		jepsenWant{part: 0, ends: []int{5}, values: []string{":c", ":c"}})
}

func TestJepsenDuplicate(t *testing.T) {
	t.Run("basic", func(t *testing.T) {
		h := jepsenFile(t, "duplicate-basic.edn")
		mustJepsen(t, h, judgeJepsen(t, h, Options{}), "duplicate",
			jepsenWant{part: 0, values: []string{":a"}, offsets: []int64{1, 3}})
	})
	t.Run("hash-insensitive", func(t *testing.T) {
		h := jepsenFile(t, "duplicate-hash-insensitive.edn")
		r := judgeJepsen(t, h, Options{})
		var dups, all []jepsenWant
		var values []string
		for v := range 10 {
			dups = append(dups, jepsenWant{part: 0, values: []string{strconv.Itoa(v)}, offsets: []int64{0, 1}})
			values = append(values, strconv.Itoa(v))
		}
		mustJepsen(t, h, r, "duplicate", dups...)
		all = append(all,
			jepsenWant{part: 0, offsets: []int64{0}, values: values, set: true},
			jepsenWant{part: 0, offsets: []int64{1}, values: values, set: true})
		mustJepsen(t, h, r, "inconsistent-offsets", all...)
	})
	t.Run("aborted txns", func(t *testing.T) {
		h := jepsenFile(t, "duplicate-aborted-txns.edn")
		mustJepsen(t, h, judgeJepsen(t, h, Options{}), "duplicate",
			jepsenWant{part: 0, values: []string{"0"}, offsets: []int64{1, 11}})
	})
}

// TestJepsenUnseen: Jepsen's unseen is a series over the history, the
// count of acknowledged values no poll has returned yet after each op:
// 0, 2, 1, 0. kafkasim reports unseen once, at the end of what it is
// given, so each point of the series is the verdict on the history up to
// that op.
func TestJepsenUnseen(t *testing.T) {
	h := jepsenFile(t, "unseen.edn")
	// Ops: the empty poll, the two sends (one operation), then a poll of
	// a and a poll of b.
	for _, c := range []struct {
		ops    int
		unseen []string
	}{
		{1, nil},
		{3, []string{":a", ":b"}},
		{4, []string{":b"}},
		{5, nil},
	} {
		r := judgeJepsen(t, h[:c.ops], Options{})
		if c.unseen == nil {
			mustJepsen(t, h, r, "unseen")
			continue
		}
		mustJepsen(t, h, r, "unseen", jepsenWant{part: 0, values: c.unseen})
	}
}

// TestJepsenEmptyHistory: a history in which nothing was sent or polled is
// not valid for Jepsen; for kafkasim it is unknown.
func TestJepsenEmptyHistory(t *testing.T) {
	r := judgeJepsen(t, jepsenFile(t, "empty-history.edn"), Options{})
	if r.Valid != ValidUnknown || len(r.Violations) != 0 || !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "nothing to judge") }) {
		t.Fatalf("want unknown, saying there was nothing to judge; got:\n%s", dump(r))
	}
	// The nearby fine case: one poll that returned nothing was judged.
	h := hist(model.Op{Process: 0, Type: model.OpOK, F: model.FPoll, Time: 1, End: 2, Offset: model.NoOffset})
	if r := check(t, Input{History: h}, Options{}); r.Valid != ValidOK {
		t.Fatalf("a completed poll is something judged: got %s", r.Valid)
	}
	if r := check(t, Input{}, Options{}); r.Valid != ValidUnknown {
		t.Fatalf("an empty input: got %s", r.Valid)
	}
}
