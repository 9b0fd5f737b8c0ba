package scenarios

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Where a key of an experiment file is, and what a mistyped key was meant
// to be: the decoder reports an unknown key without its position, and the
// checks after decoding name keys by path.

// experimentKeys are the keys each table of the format takes, by the
// table's path ("" the top level, "topics", "workload.groups"), read from
// the struct tags so that they cannot drift from what decodes.
func experimentKeys() map[string][]string {
	out := map[string][]string{}
	var walk func(path string, t reflect.Type)
	walk = func(path string, t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
			if name == "" || name == "-" {
				continue
			}
			out[path] = append(out[path], name)
			sub := name
			if path != "" {
				sub = path + "." + name
			}
			walk(sub, t.Field(i).Type)
		}
		sort.Strings(out[path])
	}
	walk("", reflect.TypeFor[Experiment]())
	return out
}

// unknownKeyReason says that k is not a key of the format and which valid
// key of its table is nearest, if one is near.
func unknownKeyReason(k toml.Key) string {
	table := strings.Join(k[:len(k)-1], ".")
	name := k[len(k)-1]
	valid, ok := experimentKeys()[table]
	if !ok {
		return fmt.Sprintf("unknown key %q: [%s] takes no keys", k.String(), table)
	}
	best, bestD := "", max(2, len(name)/3)+1
	for _, v := range valid {
		if d := keyDistance(name, v); d < bestD {
			best, bestD = v, d
		}
	}
	where := "at the top level"
	if table != "" {
		where = "in [" + table + "]"
	}
	if best == "" {
		return fmt.Sprintf("unknown key %q %s (valid: %s)", name, where, strings.Join(valid, ", "))
	}
	return fmt.Sprintf("unknown key %q %s (did you mean %q?)", name, where, best)
}

// keyDistance is the Levenshtein distance between a and b, by bytes.
func keyDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// locateKey finds key k in data: the line and column of its name, or
// of its name inside an inline table on its parent's line, or else the
// header of the nearest table holding it (column 0), or 0, 0. A path
// names the elements of an array of tables by index ("topics", "0",
// "partitions"); a path without indices (the decoder's undecoded keys)
// matches any element. It reads lines as TOML writes them, which is
// enough to point at a key and never decides anything.
func locateKey(data []byte, k []string) (line, col int) {
	indexed := slices.ContainsFunc(k, isIndex)
	norm := func(p []string) string {
		if !indexed {
			p = slices.DeleteFunc(slices.Clone(p), isIndex)
		}
		return strings.Join(p, "\x00")
	}
	target := norm(k)
	counts := map[string]int{} // array tables seen, by dotted name
	var ctx []string
	bestLine, bestLen := 0, -1
	for i, raw := range bytes.Split(data, []byte("\n")) {
		l := strings.TrimSpace(string(raw))
		if strings.HasPrefix(l, "[") {
			array := strings.HasPrefix(l, "[[")
			name := l
			if j := strings.Index(name, "]"); j >= 0 {
				name = name[:j]
			}
			segs := splitKey(strings.Trim(name, "[ \t"))
			if array {
				counts[strings.Join(segs, ".")]++
			}
			ctx = nil
			for j := range segs {
				ctx = append(ctx, segs[j])
				if n := counts[strings.Join(segs[:j+1], ".")]; n > 0 {
					ctx = append(ctx, fmt.Sprint(n-1))
				}
			}
			if c := norm(ctx); c == target {
				return i + 1, len(raw) - len(bytes.TrimLeft(raw, " \t")) + 1
			}
			if c := norm(ctx); strings.HasPrefix(target, c+"\x00") && len(ctx) > bestLen {
				bestLine, bestLen = i+1, len(ctx)
			}
			continue
		}
		key, _, ok := strings.Cut(l, "=")
		if !ok || strings.HasPrefix(l, "#") {
			continue
		}
		full := append(slices.Clone(ctx), splitKey(strings.TrimSpace(key))...)
		switch c := norm(full); {
		case c == target:
			return i + 1, len(raw) - len(bytes.TrimLeft(raw, " \t")) + 1
		case strings.HasPrefix(target, c+"\x00"):
			leaf := k[len(k)-1]
			if j := strings.Index(string(raw), leaf); j >= 0 {
				return i + 1, j + 1
			}
			return i + 1, 0
		}
	}
	return bestLine, 0
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// splitKey splits a dotted TOML key, keeping quoted parts whole.
func splitKey(s string) []string {
	var out []string
	var cur strings.Builder
	quote := rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote = r
		case r == '.':
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	return append(out, strings.TrimSpace(cur.String()))
}
