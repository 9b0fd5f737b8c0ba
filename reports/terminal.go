package reports

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// TerminalWidth is how many columns the command line's output fits by
// default: a terminal of 100 columns, or a review tool's diff, shows every
// line whole. -wide lifts the limit.
const TerminalWidth = 100

// Render prints t for a terminal. Headers read as written: tablewriter
// would otherwise upper-case them and split digits from letters
// ("election p50" becomes "ELECTION P 50"). Unless wide, the table fits
// TerminalWidth: long cells wrap at spaces, and a table still too wide
// loses whole columns (DropFirst first, then from the right, never the
// first column), which a last line names, so that -wide shows them.
func (t Table) Render(w io.Writer, wide bool) error {
	if wide {
		out, err := t.render(nil, 0)
		if err != nil {
			return err
		}
		_, err = w.Write(out)
		return err
	}
	var dropped []int
	order := t.dropOrder()
	for {
		out, err := t.render(dropped, TerminalWidth)
		if err != nil {
			return err
		}
		if widest(out) <= TerminalWidth || len(dropped) == len(order) {
			if len(dropped) > 0 {
				var names []string
				for c := range t.Header {
					if slices.Contains(dropped, c) {
						names = append(names, t.Header[c])
					}
				}
				out = fmt.Appendf(out, "(with -wide also: %s)\n", strings.Join(names, ", "))
			}
			_, err = w.Write(out)
			return err
		}
		dropped = append(dropped, order[len(dropped)])
	}
}

// dropOrder is the order columns go in when the table is too wide:
// DropFirst, then the rest from the right, never column 0.
func (t Table) dropOrder() []int {
	var order []int
	for _, c := range t.DropFirst {
		if c > 0 && c < len(t.Header) && !slices.Contains(order, c) {
			order = append(order, c)
		}
	}
	for c := len(t.Header) - 1; c > 0; c-- {
		if !slices.Contains(order, c) {
			order = append(order, c)
		}
	}
	return order
}

// render prints t without the dropped columns, at most limit columns
// wide if it can be (0: unbounded). It wraps the cells itself, at spaces,
// rather than leave it to tablewriter, whose own fitting shrinks every
// column alike: here the widest columns give way first, and no column
// gets narrower than its longest word (up to wordMax) or minWidth.
func (t Table) render(dropped []int, limit int) ([]byte, error) {
	keep := func(r []string) []string {
		var out []string
		for c, v := range r {
			if !slices.Contains(dropped, c) {
				out = append(out, v)
			}
		}
		return out
	}
	header := keep(t.Header)
	rows := make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		rows[i] = keep(r)
	}
	if limit > 0 {
		widths := fitWidths(header, rows, limit)
		header = wrapRow(header, widths)
		for i := range rows {
			rows[i] = wrapRow(rows[i], widths)
		}
	}
	var buf bytes.Buffer
	tbl := NewTerminalTable(&buf)
	tbl.Header(header)
	for _, r := range rows {
		if err := tbl.Append(r); err != nil {
			return nil, err
		}
	}
	if err := tbl.Render(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

const (
	// minWidth is the narrowest a column is wrapped to (unless all of
	// it is narrower).
	minWidth = 10
	// wordMax bounds the word a column keeps whole: a longer one (a
	// long value) is broken instead of holding its column wide.
	wordMax = 32
)

// fitWidths chooses each column's width: its widest cell, less what the
// table must lose to fit limit, taken from the widest columns first.
func fitWidths(header []string, rows [][]string, limit int) []int {
	n := len(header)
	widths, floors := make([]int, n), make([]int, n)
	for c := range n {
		cells := []string{header[c]}
		for _, r := range rows {
			if c < len(r) {
				cells = append(cells, r[c])
			}
		}
		word := 0
		for _, cell := range cells {
			for line := range strings.SplitSeq(cell, "\n") {
				widths[c] = max(widths[c], utf8.RuneCountInString(line))
				for _, w := range strings.Fields(line) {
					word = max(word, min(utf8.RuneCountInString(w), wordMax))
				}
			}
		}
		floors[c] = max(word, min(widths[c], minWidth))
	}
	total := 3*n + 1 // "│ " before each cell, " " after, the last "│"
	for _, w := range widths {
		total += w
	}
	for total > limit {
		widest := -1
		for c := range n {
			if widths[c] > floors[c] && (widest < 0 || widths[c] > widths[widest]) {
				widest = c
			}
		}
		if widest < 0 {
			break // Render drops a column
		}
		widths[widest]--
		total--
	}
	return widths
}

// wrapRow wraps each cell to its column's width.
func wrapRow(r []string, widths []int) []string {
	out := make([]string, len(r))
	for c, cell := range r {
		out[c] = wrapText(cell, widths[c])
	}
	return out
}

// wrapText breaks text into lines of at most width runes, at spaces, and
// a word longer than the line wherever it must.
func wrapText(text string, width int) string {
	var lines []string
	for para := range strings.SplitSeq(text, "\n") {
		line := ""
		for _, w := range strings.Fields(para) {
			for utf8.RuneCountInString(w) > width {
				if line != "" {
					lines = append(lines, line)
					line = ""
				}
				rs := []rune(w)
				lines = append(lines, string(rs[:width]))
				w = string(rs[width:])
			}
			switch {
			case line == "":
				line = w
			case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= width:
				line += " " + w
			default:
				lines = append(lines, line)
				line = w
			}
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// NewTerminalTable is the one tablewriter configuration of the command
// line: headers as written, left-aligned; cells keep the lines they are
// given (Render wraps them to fit).
func NewTerminalTable(w io.Writer) *tablewriter.Table {
	return tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
	)
}

// widest is the width of out's longest line, a rune a column (the
// tables' borders and our text are all one column wide).
func widest(out []byte) int {
	n := 0
	for line := range strings.SplitSeq(string(out), "\n") {
		n = max(n, utf8.RuneCountInString(line))
	}
	return n
}

// FitLines wraps every line of text longer than width at spaces, the
// continuation indented four spaces more, so that prose (a finding's
// detail, a note) fits a terminal like the tables do. A line that is a
// command ("go run ...", "go test ...", "kafkasim ...") is left whole, to
// be copied and pasted as it is; so is a table's line, which Render
// fitted.
func FitLines(text string, width int) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		body, nl := strings.CutSuffix(line, "\n")
		body = strings.ReplaceAll(body, "\t", "    ") // as wide as a terminal's tab after the flag package's indent
		if utf8.RuneCountInString(body) <= width || isCommand(body) || strings.ContainsAny(body, "│┌└├") {
			b.WriteString(line)
			continue
		}
		indent := strings.Repeat(" ", len(body)-len(strings.TrimLeft(body, " ")))
		first := wrapText(body, width-len(indent))
		head, rest, _ := strings.Cut(first, "\n")
		b.WriteString(indent + head)
		if rest != "" {
			more := indent + "    "
			for l := range strings.SplitSeq(wrapText(strings.ReplaceAll(rest, "\n", " "), width-len(more)), "\n") {
				b.WriteString("\n" + more + l)
			}
		}
		if nl {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func isCommand(line string) bool {
	line = strings.TrimLeft(line, " ")
	for _, p := range []string{"go run ", "go test ", "kafkasim ", "bin/kafkasim ", "./kafkasim "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}
