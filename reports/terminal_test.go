package reports

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func lineWidths(t *testing.T, out string) int {
	t.Helper()
	n := 0
	for line := range strings.SplitSeq(out, "\n") {
		n = max(n, utf8.RuneCountInString(line))
	}
	return n
}

// wideSummary is a sweep summary as wide as a -vary sweep makes it.
func wideSummary() Table {
	t := SummaryTable(nil)
	t.Rows = [][]string{
		{"leader-failover broker.session.timeout.ms=3000", "20000", "3", "19997", "pass", "lost-write 3, unseen 2, acked-write-lost 1, inconsistent-offsets 1", "80000", "8.936s", "9.608s", "9.618s", "19.700s"},
		{"leader-failover broker.session.timeout.ms=9000", "20000", "0", "20000", "pass", "", "80000", "8.178s", "8.936s", "8.667s", "16.777s"},
	}
	return t
}

// Headers read as written: tablewriter's own formatting would print
// "election p50" as "ELECTION P 50".
func TestRenderKeepsHeadersAsWritten(t *testing.T) {
	for _, wide := range []bool{false, true} {
		var b bytes.Buffer
		if err := wideSummary().Render(&b, wide); err != nil {
			t.Fatal(err)
		}
		// Narrow, a header may wrap at its space, never inside "p50".
		if !strings.Contains(b.String(), "p50") || strings.Contains(b.String(), "ELECTION") || strings.Contains(b.String(), "P 50") ||
			(wide && !strings.Contains(b.String(), "election p50")) {
			t.Fatalf("wide=%v: headers not as written:\n%s", wide, b.String())
		}
	}
}

// By default a table fits TerminalWidth: cells wrap, and what still does
// not fit is left out and named; -wide prints every column whole.
func TestRenderFitsTheTerminalUnlessWide(t *testing.T) {
	var narrow, wide bytes.Buffer
	if err := wideSummary().Render(&narrow, false); err != nil {
		t.Fatal(err)
	}
	if err := wideSummary().Render(&wide, true); err != nil {
		t.Fatal(err)
	}
	if n := lineWidths(t, narrow.String()); n > TerminalWidth {
		t.Fatalf("default table %d columns wide:\n%s", n, narrow.String())
	}
	if !strings.Contains(narrow.String(), "(with -wide also: ") || !strings.Contains(narrow.String(), "expects") {
		t.Fatalf("the dropped columns are not named:\n%s", narrow.String())
	}
	// Every value is still there, whole or wrapped at a space.
	for _, v := range []string{"broker.session.timeout.ms=3000", "19.700s", "acked-write-lost"} {
		if !strings.Contains(narrow.String(), v) {
			t.Fatalf("default table lost %q:\n%s", v, narrow.String())
		}
	}
	if n := lineWidths(t, wide.String()); n <= TerminalWidth {
		t.Fatalf("-wide table only %d columns wide", n)
	}
	for _, h := range SummaryTable(nil).Header {
		if !strings.Contains(wide.String(), h) {
			t.Fatalf("-wide lacks column %q", h)
		}
	}
	if strings.Contains(wide.String(), "with -wide") {
		t.Fatalf("-wide says columns were left out:\n%s", wide.String())
	}
}

// A table that fits is printed as it is: nothing wrapped, nothing left
// out, no note.
func TestRenderLeavesATableThatFitsAlone(t *testing.T) {
	tb := Table{Header: []string{"partition", "election"}, Rows: [][]string{{"t/0", "a value with spaces"}}}
	var narrow, wide bytes.Buffer
	if err := tb.Render(&narrow, false); err != nil {
		t.Fatal(err)
	}
	if err := tb.Render(&wide, true); err != nil {
		t.Fatal(err)
	}
	if narrow.String() != wide.String() || !strings.Contains(narrow.String(), "a value with spaces") {
		t.Fatalf("a fitting table changed:\n%s\nvs\n%s", narrow.String(), wide.String())
	}
}

func TestWrapText(t *testing.T) {
	for _, c := range []struct {
		in    string
		width int
		want  string
	}{
		{"a bb ccc dddd", 6, "a bb\nccc\ndddd"},
		{"abcdefghij", 4, "abcd\nefgh\nij"},
		{"fits", 10, "fits"},
		{"two\nlines here", 5, "two\nlines\nhere"},
	} {
		if got := wrapText(c.in, c.width); got != c.want {
			t.Errorf("wrapText(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
}

// Prose wraps with a hanging indent; a command line, a table line and a
// short line stay whole.
func TestFitLines(t *testing.T) {
	long := "note: " + strings.Repeat("word ", 40)
	cmd := "go run ./cmd/kafkasim run -scenario leader-failover -seed 2 -set acks=1 -set enable.idempotence=false -schedule runs/x/schedule.txt"
	table := "│ " + strings.Repeat("x", 120) + " │"
	got := FitLines(long+"\n"+cmd+"\n"+table+"\nshort\n", 40)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if lines[0] != "note: word word word word word word word" || !strings.HasPrefix(lines[1], "    word") {
		t.Fatalf("prose not wrapped with an indent:\n%s", got)
	}
	for _, l := range lines {
		if utf8.RuneCountInString(l) > 40 && l != cmd && l != table {
			t.Fatalf("line %q longer than 40", l)
		}
	}
	if !strings.Contains(got, "\n"+cmd+"\n") || !strings.Contains(got, "\n"+table+"\n") || !strings.HasSuffix(got, "\nshort\n") {
		t.Fatalf("a command, a table or a short line changed:\n%s", got)
	}
	if strings.Count(got, "word") != 40 {
		t.Fatalf("words lost:\n%s", got)
	}
}
