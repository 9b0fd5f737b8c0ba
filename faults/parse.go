package faults

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ParseError is a schedule file's bad input: where, and why. Its text is
// "file:line: reason", the form editors and the command line understand.
type ParseError struct {
	File   string
	Line   int
	Reason string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason) }

// lineMax bounds one line of a schedule file: a line is one fault, and no
// fault needs more than a few hundred characters.
const lineMax = 64 << 10

// Parse reads a schedule file. name is used in errors ("name:line: reason").
// The format is line-oriented:
//
//	# a comment; blank lines are ignored
//	at 12s crash leader-of t/0
//	from 20s to 40s partition isolate controller
//
// Times are Go durations of absolute virtual time and must not go
// backwards from one line to the next. Any error refuses the whole file:
// nothing of a bad schedule runs.
func Parse(r io.Reader, name string) (Schedule, error) {
	s, _, err := ParseLines(r, name)
	return s, err
}

// ParseLines is Parse that also says on which line of the file each fault
// was written (lines[i] is the line of fault i), so that a later check of
// the schedule against the run it is given to (a partition the run does
// not have, a fault after the run's end) can name the line as well.
//
// A UTF-8 byte order mark at the start of the file is skipped, and a line
// may end in CRLF: editors on Windows write both, and neither changes
// what a line says.
func ParseLines(r io.Reader, name string) (Schedule, []int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), lineMax)
	var out Schedule
	var lines []int
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text() // bufio.ScanLines drops the \r of a CRLF
		if line == 1 {
			text = strings.TrimPrefix(text, byteOrderMark)
		}
		f, ok, err := parseLine(text)
		if err != nil {
			return nil, nil, &ParseError{File: name, Line: line, Reason: err.Error()}
		}
		if !ok {
			continue
		}
		if n := len(out); n > 0 && f.At < out[n-1].At {
			return nil, nil, &ParseError{File: name, Line: line, Reason: fmt.Sprintf("time out of order: %v comes after %v", f.At, out[n-1].At)}
		}
		if len(out) == faultsMax {
			return nil, nil, &ParseError{File: name, Line: line, Reason: fmt.Sprintf("more than %d faults", faultsMax)}
		}
		out = append(out, f)
		lines = append(lines, line)
	}
	if err := sc.Err(); err != nil {
		reason := err.Error()
		if errors.Is(err, bufio.ErrTooLong) {
			reason = fmt.Sprintf("line longer than %d bytes", lineMax)
		}
		return nil, nil, &ParseError{File: name, Line: line + 1, Reason: reason}
	}
	return out, lines, nil
}

// byteOrderMark is U+FEFF as UTF-8, which some editors put first in a
// text file.
const byteOrderMark = "\uFEFF"

// tokens splits a line into words, with ',' and '|' as words of their own
// and everything from a comment's '#' on dropped. A '#' that starts a
// word and is followed by a digit is a selector's index ("member-of g
// #2"), not a comment.
func tokens(line string) []string {
	for i := 0; i < len(line); i++ {
		if line[i] != '#' {
			continue
		}
		index := i+1 < len(line) && line[i+1] >= '0' && line[i+1] <= '9' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t')
		if !index {
			line = line[:i]
			break
		}
	}
	var out []string
	for _, field := range strings.Fields(line) {
		start := 0
		for i := 0; i < len(field); i++ {
			if isPunct(field[i : i+1]) {
				if i > start {
					out = append(out, field[start:i])
				}
				out = append(out, field[i:i+1])
				start = i + 1
			}
		}
		if start < len(field) {
			out = append(out, field[start:])
		}
	}
	return out
}

func isPunct(t string) bool { return t == "," || t == "|" }

// cursor walks a line's tokens.
type cursor struct {
	tok []string
	i   int
}

func (c *cursor) done() bool { return c.i >= len(c.tok) }

func (c *cursor) peek() string {
	if c.done() {
		return ""
	}
	return c.tok[c.i]
}

func (c *cursor) next() string {
	t := c.peek()
	c.i++
	return t
}

// parseLine reads one line: ok is false for a blank or comment line.
func parseLine(line string) (f Fault, ok bool, err error) {
	c := &cursor{tok: tokens(line)}
	if c.done() {
		return Fault{}, false, nil
	}
	switch w := c.next(); w {
	case "at":
		if f.At, err = c.time("at"); err != nil {
			return f, false, err
		}
	case "from":
		if f.At, err = c.time("from"); err != nil {
			return f, false, err
		}
		if t := c.next(); t != "to" {
			return f, false, fmt.Errorf("want \"to\" after \"from %v\", got %s", f.At, quoteTok(t))
		}
		if f.End, err = c.time("to"); err != nil {
			return f, false, err
		}
		if f.End <= f.At {
			return f, false, fmt.Errorf("from %v is not before to %v", f.At, f.End)
		}
	case "on":
		ev := c.next()
		if !slices.Contains(Events(), ev) {
			return f, false, fmt.Errorf("on %s: want an event, one of %s", quoteTok(ev), strings.Join(Events(), ", "))
		}
		tp, err := parseTP(c.next())
		if err != nil {
			return f, false, fmt.Errorf("on %s: %v", ev, err)
		}
		if t := c.next(); t != "after" {
			return f, false, fmt.Errorf("want \"after T\" after \"on %s %v\", got %s", ev, tp, quoteTok(t))
		}
		if f.At, err = c.time("after"); err != nil {
			return f, false, err
		}
		f.On = &Trigger{Event: ev, TP: tp}
		if c.peek() == "for" {
			c.next()
			if f.On.For, err = c.time("for"); err != nil {
				return f, false, err
			}
			if f.On.For <= 0 {
				return f, false, fmt.Errorf("for %v: a window is longer than 0", f.On.For)
			}
		}
	default:
		return f, false, fmt.Errorf("a line starts with \"at T\", \"from T to U\" or \"on EVENT T/P after T\", not %q", w)
	}
	if err := c.fault(&f); err != nil {
		return f, false, err
	}
	if !c.done() {
		return f, false, fmt.Errorf("unexpected %q after %q", c.peek(), f.What())
	}
	if err := f.Validate(); err != nil {
		return f, false, err
	}
	return f, true, nil
}

func quoteTok(t string) string {
	if t == "" {
		return "end of line"
	}
	return strconv.Quote(t)
}

// time reads a point of virtual time after the word w.
func (c *cursor) time(w string) (time.Duration, error) {
	t := c.next()
	if t == "" {
		return 0, fmt.Errorf("missing time after %q", w)
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		return 0, fmt.Errorf("bad duration %q after %q (want Go syntax, as in 1.5s or 200ms)", t, w)
	}
	if d < 0 {
		return 0, fmt.Errorf("bad time %q: virtual time starts at 0", t)
	}
	return d, nil
}

// fault reads the part after the time: kind, selectors, amount.
func (c *cursor) fault(f *Fault) error {
	w := c.next()
	if w == "" {
		return fmt.Errorf("missing fault after the time")
	}
	if w == "partition" {
		return c.partition(f)
	}
	k := Kind(w)
	spec, ok := specs[k]
	if !ok || spec.partition {
		return fmt.Errorf("unknown fault %q (want one of %s)", w, kindList())
	}
	f.Kind = k
	return c.rest(f, spec)
}

// partition reads "partition SHAPE ..." or "partition GROUP | GROUP ...".
func (c *cursor) partition(f *Fault) error {
	w := c.peek()
	if k := Kind(w); specs[k].partition && k != KindSplit {
		c.next()
		f.Kind = k
		return c.rest(f, specs[k])
	}
	if w == "" {
		return fmt.Errorf("partition needs a shape (isolate, halves, bridge, ring, oneway) or groups, as in \"partition b1, b2 | b3\"")
	}
	f.Kind = KindSplit
	group := []Selector{}
	for {
		s, err := c.selector()
		if err != nil {
			return err
		}
		group = append(group, s)
		switch c.peek() {
		case ",":
			c.next()
			continue
		case "|":
			c.next()
			f.Groups = append(f.Groups, group)
			group = []Selector{}
			continue
		}
		break
	}
	f.Groups = append(f.Groups, group)
	if len(f.Groups) < 2 {
		return fmt.Errorf("partition %s: want groups separated by '|', as in \"partition b1, b2 | b3\" (or a shape: isolate, halves, bridge, ring, oneway)", group[0])
	}
	return nil
}

// rest reads a kind's selectors, scope and amount.
func (c *cursor) rest(f *Fault, spec kindSpec) error {
	var err error
	switch spec.args {
	case argsNode:
		f.Target, err = c.selector()
	case argsTwo:
		if f.Target, err = c.selector(); err == nil {
			f.Peer, err = c.selector()
		}
	case argsTP, argsReassign:
		err = c.operation(f, spec)
	case argsCreateTopic, argsTopic, argsAddPartitions, argsAlterConfig:
		err = c.topicOperation(f, spec)
	case argsBroker:
		err = c.memberOperation(f)
	case argsRounds:
		err = c.rollingArgs(f)
	}
	if err != nil {
		return fmt.Errorf("%s: %v", f.Kind, err)
	}
	if spec.scope && c.peek() == "from" {
		c.next()
		t := c.next()
		s, ok := parseScope(t)
		if !ok {
			return fmt.Errorf("isolate from %s: want servers, brokers, controllers or all", quoteTok(t))
		}
		f.Scope = s
	}
	switch spec.amount {
	case amountExtra, amountSigned, amountDelay:
		t := c.next()
		if t == "" {
			return fmt.Errorf("%s: missing duration (%s)", f.Kind, amountExample(spec.amount))
		}
		d, err := time.ParseDuration(t)
		if err != nil {
			return fmt.Errorf("%s: bad duration %q (%s)", f.Kind, t, amountExample(spec.amount))
		}
		f.Delay = d
	case amountRate:
		t := c.next()
		r, err := strconv.ParseFloat(t, 64)
		if t == "" || err != nil || math.IsInf(r, 0) || math.IsNaN(r) {
			return fmt.Errorf("drift: bad rate %s (want a number such as +0.01, which gains 10ms a second)", quoteTok(t))
		}
		f.Rate = r
	}
	return nil
}

func amountExample(a amount) string {
	switch a {
	case amountExtra:
		return "want an extra delay such as +200ms"
	case amountSigned:
		return "want a clock step such as +5s or -5s"
	}
	return "want a duration such as 200ms"
}

// selector reads one selector from the cursor.
func (c *cursor) selector() (Selector, error) {
	if c.done() || isPunct(c.peek()) {
		return Selector{}, fmt.Errorf("missing node (want b2, controller, random-broker, random-controller, all-controllers, leader-of T/P, isr-follower T/P, follower-of T/P, out-of-isr T/P, coordinator-of G, member-of G or rack R), got %s", quoteTok(c.peek()))
	}
	s, n, err := parseSelectorTokens(c.tok[c.i:])
	if err != nil {
		return Selector{}, err
	}
	c.i += n
	return s, nil
}

// kindList names the fault words a line may use, for the unknown-fault
// error.
func kindList() string {
	var words []string
	for _, k := range kindOrder {
		if !specs[k].partition {
			words = append(words, string(k))
		}
	}
	return strings.Join(words, ", ") + ", partition"
}

// MustParse parses a schedule written in the program (a scripted
// scenario's faults as a text constant) and panics on an error: there a
// bad schedule is the programmer's mistake, not the user's input.
func MustParse(name, text string) Schedule {
	s, err := Parse(strings.NewReader(text), name)
	if err != nil {
		panic("faults: " + err.Error())
	}
	return s
}
