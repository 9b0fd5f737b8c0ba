package faults

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// A schedule saved by an editor on Windows (a byte order mark, CRLF line
// ends) says the same as the plain file, and ParseLines names the line of
// each fault.
func TestParseLinesAcceptsBOMAndCRLF(t *testing.T) {
	plain := "# two faults\nat 12s crash leader-of t/0\n\nfrom 20s to 40s pause b2\n"
	want, wantLines, err := ParseLines(strings.NewReader(plain), "plain")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(wantLines, []int{2, 4}) {
		t.Fatalf("lines %v, want [2 4]", wantLines)
	}
	windows := "\uFEFF" + strings.ReplaceAll(plain, "\n", "\r\n")
	got, lines, err := ParseLines(strings.NewReader(windows), "windows")
	if err != nil {
		t.Fatalf("BOM and CRLF refused: %v", err)
	}
	if got.String() != want.String() || !slices.Equal(lines, wantLines) {
		t.Fatalf("BOM and CRLF read as %q lines %v, want %q lines %v", got, lines, want, wantLines)
	}
}

// Only a mark at the very start is skipped: one inside the file is still
// a bad line, named by its line.
func TestParseLinesRefusesBOMInsideTheFile(t *testing.T) {
	_, _, err := ParseLines(strings.NewReader("at 1s crash b1\n\uFEFFat 2s crash b2\n"), "s.txt")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 {
		t.Fatalf("err %v, want a ParseError on line 2", err)
	}
}
