package model

import "testing"

// Str and Bytes fold eight bytes at a time: a string that differs from
// another of its length in any one byte, at any place in a word or in the
// padded last one, digests differently, and so do strings that differ only
// in trailing zero bytes (the length tells them apart). A string and its
// bytes digest alike.
func TestStrFoldsEveryByteAndTheLength(t *testing.T) {
	base := "kafkasim-digest-0123" // two whole words and a partial one
	seen := map[Hash]string{}
	add := func(s string) {
		h := NewHash(1).Str(s)
		if other, dup := seen[h]; dup {
			t.Fatalf("%q and %q digest alike", s, other)
		}
		seen[h] = s
		if b := NewHash(1).Bytes([]byte(s)); b != h {
			t.Errorf("%q: Str %x, Bytes %x", s, h, b)
		}
	}
	add(base)
	for i := range len(base) {
		for _, c := range []byte{0, 1, 0x80, 0xff} {
			if base[i] == c {
				continue
			}
			b := []byte(base)
			b[i] = c
			add(string(b))
		}
	}
	for _, s := range []string{"", "\x00", "\x00\x00", "a", "a\x00", "a\x00\x00\x00\x00\x00\x00\x00", "a\x00\x00\x00\x00\x00\x00\x00\x00"} {
		add(s)
	}
}
