package checkers

import (
	"hash/maphash"
	"strconv"
	"testing"
)

// The table gives each value one id, the same on every later look-up,
// through growth far past the size it was made for, and finds no value
// it was not given; with one seed or another, the ids are the same.
func TestRecordIDs(t *testing.T) {
	for _, seed := range []maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()} {
		var names []string
		tab := newRecordIDs(seed, 1)
		add := func(v string) (int32, bool) {
			next := int32(len(names))
			names = append(names, v)
			id, added := tab.getOrAdd(v, tab.hash(v), next, names)
			if !added {
				names = names[:next]
			}
			return id, added
		}
		const n = 5000
		for i := range n {
			if id, added := add("v" + strconv.Itoa(i)); !added || id != int32(i) {
				t.Fatalf("v%d: id %d, added %v", i, id, added)
			}
		}
		for i := range n {
			v := "v" + strconv.Itoa(i)
			if id, added := add(v); added || id != int32(i) {
				t.Fatalf("%s again: id %d, added %v", v, id, added)
			}
			if id, ok := tab.get(v, names); !ok || id != int32(i) {
				t.Fatalf("get %s: %d, %v", v, id, ok)
			}
		}
		if _, ok := tab.get("v"+strconv.Itoa(n), names); ok {
			t.Fatal("found a value never added")
		}
		if len(names) != n || 2*tab.count > len(tab.slots) {
			t.Fatalf("%d names, %d of %d slots used", len(names), tab.count, len(tab.slots))
		}
	}
	var empty recordIDs
	if _, ok := empty.get("x", nil); ok {
		t.Fatal("an empty table found a value")
	}
}
