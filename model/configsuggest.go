package model

import (
	"fmt"
	"sort"
	"strings"
)

// unknownSettingError is Set's error for a name that is not a setting: it
// offers the nearest names, so that a typo or a wrong case ("Acks",
// "min.isr.replicas", "idempotence") points at the setting meant. Names
// stay case-sensitive, as in Kafka: a suggestion is never applied.
func unknownSettingError(name string) error {
	near := SuggestSettings(name)
	if len(near) == 0 {
		return fmt.Errorf("unknown configuration %q (kafkasim config lists every setting)", name)
	}
	return fmt.Errorf("unknown configuration %q (did you mean %s?)", name, strings.Join(near, ", "))
}

// CheckSettingName is nil for a setting's name, else the error Set gives
// for it, with the nearest names.
func CheckSettingName(name string) error {
	if _, ok := configFields[name]; ok {
		return nil
	}
	return unknownSettingError(name)
}

// SuggestSettings returns up to three setting names nearest to name: by
// edit distance, ignoring case, within a third of the name's length (at
// least 2), or holding name whole (at least 4 letters of it; a name that
// starts with it comes first); nearest first, ties by name.
func SuggestSettings(name string) []string {
	q := strings.ToLower(name)
	// Scores are doubled edit distances, so that a name starting with q
	// (1) ranks before one holding it elsewhere (2).
	limit := 2 * max(2, len(q)/3)
	type scored struct {
		name string
		d    int
	}
	var near []scored
	for _, n := range configNames {
		d := 2 * editDistance(q, strings.ToLower(n))
		switch {
		case len(q) >= 4 && strings.HasPrefix(n, q):
			d = min(d, 1)
		case len(q) >= 4 && strings.Contains(n, q):
			d = min(d, 2)
		}
		if d <= limit {
			near = append(near, scored{n, d})
		}
	}
	sort.Slice(near, func(i, j int) bool {
		if near[i].d != near[j].d {
			return near[i].d < near[j].d
		}
		return near[i].name < near[j].name
	})
	var out []string
	for i := 0; i < len(near) && i < 3; i++ {
		out = append(out, near[i].name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, by bytes
// (setting names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
