package checkers

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A minimal reader for the subset of EDN that Jepsen writes in a
// history.edn: maps, vectors, lists, sets, keywords, integers, floats,
// strings, characters, nil, booleans and symbols. A tagged element
// (#inst "...", #jepsen.history.Op{...}) reads as the element it tags, so
// record literals read as maps; #_ discards the next form. Anything else
// is an error naming the line.

type ednKind uint8

const (
	ednNil ednKind = iota
	ednBool
	ednInt
	ednFloat
	ednString
	ednChar
	ednKeyword
	ednSymbol
	ednVector
	ednList
	ednSet
	ednMap
)

func (k ednKind) String() string {
	return [...]string{"nil", "boolean", "integer", "float", "string", "character", "keyword", "symbol", "vector", "list", "set", "map"}[k]
}

// ednValue is one EDN form. Scalars keep their text in s (a keyword
// without its colon); collections keep their items, a map as key, value,
// key, value.
type ednValue struct {
	kind  ednKind
	s     string
	i     int64
	b     bool
	items []ednValue
	line  int
}

// get returns a map's value for a keyword key.
func (v *ednValue) get(keyword string) (ednValue, bool) {
	for j := 0; j+1 < len(v.items); j += 2 {
		if k := v.items[j]; k.kind == ednKeyword && k.s == keyword {
			return v.items[j+1], true
		}
	}
	return ednValue{}, false
}

func (v ednValue) String() string {
	switch v.kind {
	case ednNil:
		return "nil"
	case ednBool:
		return strconv.FormatBool(v.b)
	case ednInt:
		return strconv.FormatInt(v.i, 10)
	case ednString:
		return strconv.Quote(v.s)
	case ednKeyword:
		return ":" + v.s
	case ednFloat, ednSymbol, ednChar:
		return v.s
	}
	open, close := "[", "]"
	switch v.kind {
	case ednList:
		open, close = "(", ")"
	case ednSet:
		open, close = "#{", "}"
	case ednMap:
		open, close = "{", "}"
	}
	parts := make([]string, len(v.items))
	for j, it := range v.items {
		parts[j] = it.String()
	}
	s := open + strings.Join(parts, " ") + close
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

type ednReader struct {
	src  string
	pos  int
	line int
}

// maxEDNDepth bounds nesting so that hostile input cannot exhaust the
// stack; Jepsen's histories nest five or six deep.
const maxEDNDepth = 200

// errEOF marks the clean end of the input between forms.
var errEOF = fmt.Errorf("end of input")

func (r *ednReader) errorf(line int, format string, args ...any) error {
	return &lineError{line: line, msg: fmt.Sprintf(format, args...)}
}

// lineError is a reason with the line it applies to; the caller adds the
// file name.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return fmt.Sprintf("%d: %s", e.line, e.msg) }

// skipSpace skips whitespace, commas and comments.
func (r *ednReader) skipSpace() {
	for r.pos < len(r.src) {
		c := r.src[r.pos]
		switch {
		case c == '\n':
			r.line++
			r.pos++
		case c == ' ' || c == '\t' || c == '\r' || c == ',' || c == '\f':
			r.pos++
		case c == ';':
			for r.pos < len(r.src) && r.src[r.pos] != '\n' {
				r.pos++
			}
		default:
			return
		}
	}
}

// next reads one form; at the end of input it returns errEOF.
func (r *ednReader) next(depth int) (ednValue, error) {
	r.skipSpace()
	if r.pos >= len(r.src) {
		return ednValue{}, errEOF
	}
	if depth > maxEDNDepth {
		return ednValue{}, r.errorf(r.line, "nested deeper than %d", maxEDNDepth)
	}
	line := r.line
	c := r.src[r.pos]
	switch c {
	case '(':
		r.pos++
		return r.collection(ednList, ')', line, depth)
	case '[':
		r.pos++
		return r.collection(ednVector, ']', line, depth)
	case '{':
		r.pos++
		return r.collection(ednMap, '}', line, depth)
	case ')', ']', '}':
		return ednValue{}, r.errorf(line, "unexpected %q", c)
	case '"':
		s, err := r.str()
		return ednValue{kind: ednString, s: s, line: line}, err
	case '\\':
		r.pos++
		tok := r.token()
		if tok == "" && r.pos < len(r.src) {
			_, n := utf8.DecodeRuneInString(r.src[r.pos:])
			tok = r.src[r.pos : r.pos+n]
			r.pos += n
		}
		if tok == "" {
			return ednValue{}, r.errorf(line, "character literal at end of input")
		}
		return ednValue{kind: ednChar, s: `\` + tok, line: line}, nil
	case '#':
		return r.dispatch(line, depth)
	case ':':
		r.pos++
		tok := r.token()
		if tok == "" {
			return ednValue{}, r.errorf(line, "empty keyword")
		}
		return ednValue{kind: ednKeyword, s: tok, line: line}, nil
	}
	tok := r.token()
	if tok == "" {
		return ednValue{}, r.errorf(line, "unexpected %q", c)
	}
	return r.atom(tok, line)
}

func (r *ednReader) dispatch(line, depth int) (ednValue, error) {
	r.pos++ // '#'
	if r.pos >= len(r.src) {
		return ednValue{}, r.errorf(line, "# at end of input")
	}
	switch c := r.src[r.pos]; {
	case c == '{':
		r.pos++
		return r.collection(ednSet, '}', line, depth)
	case c == '_':
		r.pos++
		if _, err := r.next(depth + 1); err != nil {
			if err == errEOF {
				return ednValue{}, r.errorf(line, "#_ discards nothing")
			}
			return ednValue{}, err
		}
		return r.next(depth)
	case c == '#':
		r.pos++
		return ednValue{kind: ednSymbol, s: "##" + r.token(), line: line}, nil
	case c == '"':
		s, err := r.str()
		return ednValue{kind: ednString, s: s, line: line}, err
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		tag := r.token()
		v, err := r.next(depth + 1)
		if err == errEOF {
			return ednValue{}, r.errorf(line, "tag #%s tags nothing", tag)
		}
		return v, err
	default:
		return ednValue{}, r.errorf(line, "unsupported dispatch #%c", c)
	}
}

func (r *ednReader) collection(kind ednKind, closer byte, line, depth int) (ednValue, error) {
	v := ednValue{kind: kind, line: line}
	for {
		r.skipSpace()
		if r.pos >= len(r.src) {
			return ednValue{}, r.errorf(line, "unclosed %s opened here", kind)
		}
		if r.src[r.pos] == closer {
			r.pos++
			if kind == ednMap && len(v.items)%2 != 0 {
				return ednValue{}, r.errorf(line, "map with an odd number of forms")
			}
			return v, nil
		}
		it, err := r.next(depth + 1)
		if err == errEOF {
			return ednValue{}, r.errorf(line, "unclosed %s opened here", kind)
		}
		if err != nil {
			return ednValue{}, err
		}
		v.items = append(v.items, it)
	}
}

func (r *ednReader) str() (string, error) {
	line := r.line
	r.pos++ // opening quote
	var b strings.Builder
	for r.pos < len(r.src) {
		c := r.src[r.pos]
		switch c {
		case '"':
			r.pos++
			return b.String(), nil
		case '\n':
			r.line++
		case '\\':
			r.pos++
			if r.pos >= len(r.src) {
				return "", r.errorf(line, "unterminated string")
			}
			e := r.src[r.pos]
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '"', '\\':
				b.WriteByte(e)
			case 'u':
				if r.pos+4 >= len(r.src) {
					return "", r.errorf(r.line, "short \\u escape")
				}
				n, err := strconv.ParseUint(r.src[r.pos+1:r.pos+5], 16, 32)
				if err != nil {
					return "", r.errorf(r.line, "bad \\u escape %q", r.src[r.pos+1:r.pos+5])
				}
				b.WriteRune(rune(n))
				r.pos += 4
			default:
				return "", r.errorf(r.line, "unknown escape \\%c", e)
			}
			r.pos++
			continue
		}
		b.WriteByte(c)
		r.pos++
	}
	return "", r.errorf(line, "unterminated string")
}

func isSymbolStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("*+!-_?$%&=<>./'", c) >= 0 || c >= 0x80
}

func isSymbolChar(c byte) bool {
	return isSymbolStart(c) || c >= '0' && c <= '9' || c == ':' || c == '#'
}

// token reads a run of symbol characters.
func (r *ednReader) token() string {
	start := r.pos
	for r.pos < len(r.src) && isSymbolChar(r.src[r.pos]) {
		r.pos++
	}
	return r.src[start:r.pos]
}

func (r *ednReader) atom(tok string, line int) (ednValue, error) {
	switch tok {
	case "nil":
		return ednValue{kind: ednNil, line: line}, nil
	case "true", "false":
		return ednValue{kind: ednBool, b: tok == "true", line: line}, nil
	}
	c := tok[0]
	if c >= '0' && c <= '9' || (c == '-' || c == '+') && len(tok) > 1 && tok[1] >= '0' && tok[1] <= '9' {
		t := strings.TrimSuffix(tok, "N")
		if i, err := strconv.ParseInt(t, 10, 64); err == nil {
			return ednValue{kind: ednInt, i: i, s: tok, line: line}, nil
		}
		if _, err := strconv.ParseFloat(strings.TrimSuffix(tok, "M"), 64); err == nil {
			return ednValue{kind: ednFloat, s: tok, line: line}, nil
		}
		if strings.Count(tok, "/") == 1 { // a ratio
			return ednValue{kind: ednFloat, s: tok, line: line}, nil
		}
		return ednValue{}, r.errorf(line, "malformed number %q", tok)
	}
	return ednValue{kind: ednSymbol, s: tok, line: line}, nil
}
