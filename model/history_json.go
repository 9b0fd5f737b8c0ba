package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// The JSON-lines form of a History: one JSON object per line, one line per
// Op, in index order. Times are integer nanoseconds of virtual time;
// partitions are written "topic/partition"; a value is a JSON string (an
// integer is accepted on input and read as its decimal text). Fields that
// do not apply to an op are left out. "txn", when present, ties the
// micro-operations of one client operation together (Op.Txn);
// "resequenced", on a send, lists the epoch bumps that rewrote its record's
// sequence (Op.Resequenced), each {"at","from_epoch","from_seq","to_epoch",
// "to_seq"}, and "acked_as", on an ok one, the {"epoch","seq"} of the attempt
// whose answer acknowledged it when a bump rewrote the record after that
// attempt left (Op.AckedAs). For example:
//
//	{"index":0,"process":0,"type":"ok","f":"send","time":1000,"end":2000,"tp":"t/0","value":"v0","offset":0}
//	{"index":1,"process":1,"type":"ok","f":"poll","time":1500,"end":2500,"records":{"t/0":[[0,"v0"]]}}
//	{"index":2,"process":1,"type":"ok","f":"commit","time":2600,"end":2700,"group":"g","generation":1,"offsets":{"t/0":1}}
//
// The wire struct below is separate from Op so that Op stays plain Go and
// the wire form can say "absent" (a pointer) where Op uses NoOffset.
type opLine struct {
	Index      *int                         `json:"index,omitempty"`
	Process    int                          `json:"process"`
	Type       string                       `json:"type"`
	F          string                       `json:"f"`
	Time       int64                        `json:"time"`
	End        *int64                       `json:"end,omitempty"`
	Error      string                       `json:"error,omitempty"`
	TP         string                       `json:"tp,omitempty"`
	Key        string                       `json:"key,omitempty"`
	Value      json.RawMessage              `json:"value,omitempty"`
	Offset     *int64                       `json:"offset,omitempty"`
	Records    map[string][]json.RawMessage `json:"records,omitempty"`
	Partitions []string                     `json:"partitions,omitempty"`
	Topics     []string                     `json:"topics,omitempty"`
	Group      string                       `json:"group,omitempty"`
	Generation *int32                       `json:"generation,omitempty"`
	Offsets    map[string]int64             `json:"offsets,omitempty"`
	From       map[string]int64             `json:"from,omitempty"`
	Gained     []string                     `json:"gained,omitempty"`
	Lost       []string                     `json:"lost,omitempty"`
	Txn        int                          `json:"txn,omitempty"`
	Reseq      []reseqLine                  `json:"resequenced,omitempty"`
	AckedAs    *sentAsLine                  `json:"acked_as,omitempty"`
}

// sentAsLine is a SentAs on the wire, both fields required.
type sentAsLine struct {
	Epoch *int32 `json:"epoch"`
	Seq   *int32 `json:"seq"`
}

func toSentAsLine(a *SentAs) *sentAsLine {
	if a == nil {
		return nil
	}
	e, s := int32(a.Epoch), a.Seq
	return &sentAsLine{Epoch: &e, Seq: &s}
}

func parseSentAsLine(l *sentAsLine) (*SentAs, error) {
	if l == nil {
		return nil, nil
	}
	if l.Epoch == nil || l.Seq == nil {
		return nil, fmt.Errorf("acked_as: want \"epoch\" and \"seq\"")
	}
	return &SentAs{Epoch: Epoch(*l.Epoch), Seq: *l.Seq}, nil
}

// reseqLine is a Resequence on the wire: times in nanoseconds, and every
// field required.
type reseqLine struct {
	At        *int64 `json:"at"`
	FromEpoch *int32 `json:"from_epoch"`
	FromSeq   *int32 `json:"from_seq"`
	ToEpoch   *int32 `json:"to_epoch"`
	ToSeq     *int32 `json:"to_seq"`
}

func toReseqLines(rs []Resequence) []reseqLine {
	if len(rs) == 0 {
		return nil
	}
	out := make([]reseqLine, len(rs))
	for i, r := range rs {
		at, fe, fs, te, ts := int64(r.At), int32(r.FromEpoch), r.FromSeq, int32(r.ToEpoch), r.ToSeq
		out[i] = reseqLine{At: &at, FromEpoch: &fe, FromSeq: &fs, ToEpoch: &te, ToSeq: &ts}
	}
	return out
}

func parseReseqLines(ls []reseqLine) ([]Resequence, error) {
	if len(ls) == 0 {
		return nil, nil
	}
	out := make([]Resequence, len(ls))
	for i, l := range ls {
		if l.At == nil || l.FromEpoch == nil || l.FromSeq == nil || l.ToEpoch == nil || l.ToSeq == nil {
			return nil, fmt.Errorf("resequenced[%d]: want \"at\", \"from_epoch\", \"from_seq\", \"to_epoch\" and \"to_seq\"", i)
		}
		out[i] = Resequence{At: time.Duration(*l.At), FromEpoch: Epoch(*l.FromEpoch), FromSeq: *l.FromSeq, ToEpoch: Epoch(*l.ToEpoch), ToSeq: *l.ToSeq}
	}
	return out, nil
}

// WriteHistory writes h as JSON lines, one op a line.
func WriteHistory(w io.Writer, h History) error {
	bw := bufio.NewWriter(w)
	for i := range h {
		b, err := json.Marshal(toLine(&h[i]))
		if err != nil {
			return fmt.Errorf("op %d: %w", i, err)
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func toLine(op *Op) *opLine {
	idx := op.Index
	l := &opLine{
		Index:   &idx,
		Process: op.Process,
		Type:    string(op.Type),
		F:       string(op.F),
		Time:    int64(op.Time),
		Error:   op.Error,
		Key:     op.Key,
		Group:   op.Group,
		Topics:  op.Topics,
		Txn:     op.Txn,
		Reseq:   toReseqLines(op.Resequenced),
		AckedAs: toSentAsLine(op.AckedAs),
	}
	if op.Completed() {
		end := int64(op.End)
		l.End = &end
	}
	if op.TP.Topic != "" {
		l.TP = op.TP.String()
	}
	if op.Value != "" {
		l.Value, _ = json.Marshal(op.Value)
	}
	if op.Offset != NoOffset && op.F == FSend {
		o := int64(op.Offset)
		l.Offset = &o
	}
	if op.F == FCommit || op.F == FRebalance || op.Generation != 0 {
		g := int32(op.Generation)
		l.Generation = &g
	}
	if len(op.Records) > 0 {
		l.Records = make(map[string][]json.RawMessage, len(op.Records))
		for _, pr := range op.Records {
			pairs := make([]json.RawMessage, len(pr.Records))
			for j, r := range pr.Records {
				v, _ := json.Marshal(r.Value)
				pairs[j] = json.RawMessage(fmt.Sprintf("[%d,%s]", r.Offset, v))
			}
			l.Records[pr.TP.String()] = pairs
		}
	}
	l.Partitions = tpStrings(op.Partitions)
	l.Gained = tpStrings(op.Gained)
	l.Lost = tpStrings(op.Lost)
	if len(op.Offsets) > 0 {
		l.Offsets = make(map[string]int64, len(op.Offsets))
		for _, po := range op.Offsets {
			l.Offsets[po.TP.String()] = int64(po.Offset)
			if po.From != NoOffset {
				if l.From == nil {
					l.From = map[string]int64{}
				}
				l.From[po.TP.String()] = int64(po.From)
			}
		}
	}
	return l
}

func tpStrings(tps []TopicPartition) []string {
	if len(tps) == 0 {
		return nil
	}
	out := make([]string, len(tps))
	for i, tp := range tps {
		out[i] = tp.String()
	}
	return out
}

// maxHistoryLine bounds one line, so that a corrupt file (or a fuzzer)
// cannot make the reader hold an unbounded line in memory.
const maxHistoryLine = 64 << 20

// ReadHistory reads the JSON-lines form. name is the file name used in
// errors, which read "name:line: reason", for example
// `history.jsonl:17: unknown op type "okk"`. Blank lines are skipped. An
// "index", when present, must equal the op's position; the history must
// pass History.Validate.
func ReadHistory(r io.Reader, name string) (History, error) {
	br := bufio.NewReader(r)
	var h History
	var txns TxnCheck
	for line := 1; ; line++ {
		b, err := readLine(br)
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if len(bytes.TrimSpace(b)) > 0 {
			op, perr := parseLine(b, len(h))
			if perr != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, perr)
			}
			h = append(h, op)
			if terr := txns.Next(h, len(h)-1); terr != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, terr)
			}
		}
		if err == io.EOF {
			return h, nil
		}
	}
}

func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxHistoryLine {
			return nil, fmt.Errorf("line longer than %d bytes", maxHistoryLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return buf, err
	}
}

func parseLine(b []byte, pos int) (Op, error) {
	var l opLine
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return Op{}, jsonReason(err)
	}
	if dec.More() {
		return Op{}, errors.New("more than one JSON value on the line")
	}
	op, err := l.header(pos)
	if err != nil {
		return Op{}, err
	}
	if err := l.parseFields(&op); err != nil {
		return Op{}, err
	}
	if err := op.validate(pos); err != nil {
		return Op{}, err
	}
	return op, nil
}

// header is the op's plain fields, its number (pos), type, function and
// its end once completed; the fields with their own syntax are parseFields'.
func (l *opLine) header(pos int) (Op, error) {
	op := Op{
		Index:   pos,
		Process: l.Process,
		Type:    OpType(l.Type),
		F:       OpF(l.F),
		Time:    time.Duration(l.Time),
		Error:   l.Error,
		Key:     l.Key,
		Offset:  NoOffset,
		Group:   l.Group,
		Topics:  l.Topics,
		Txn:     l.Txn,
	}
	if l.Index != nil && *l.Index != pos {
		return Op{}, fmt.Errorf("index %d, want %d (ops are numbered by line)", *l.Index, pos)
	}
	if !op.Type.Valid() {
		return Op{}, fmt.Errorf("unknown op type %q", l.Type)
	}
	if !op.F.Valid() {
		return Op{}, fmt.Errorf("unknown op f %q", l.F)
	}
	if op.Completed() {
		if l.End == nil {
			return Op{}, fmt.Errorf("%s op without \"end\"", op.Type)
		}
		op.End = time.Duration(*l.End)
	} else if l.End != nil {
		return Op{}, errors.New("invoke op with an \"end\": it never completed")
	}
	return op, nil
}

// parseFields sets op's fields that the line writes in their own syntax
// (a partition, a value, record and partition lists, offsets,
// resequencings) or that only some ops have, in the line's order.
func (l *opLine) parseFields(op *Op) error {
	var err error
	if l.TP != "" {
		if op.TP, err = ParseTopicPartition(l.TP); err != nil {
			return err
		}
	}
	if len(l.Value) > 0 {
		if op.Value, err = parseValue(l.Value); err != nil {
			return err
		}
	}
	if l.Offset != nil {
		if op.F != FSend {
			return fmt.Errorf("%s op with an \"offset\": only a send has one", op.F)
		}
		op.Offset = Offset(*l.Offset)
	}
	if len(op.Topics) == 0 {
		op.Topics = nil
	}
	if l.Generation != nil {
		op.Generation = Epoch(*l.Generation)
	}
	if op.Records, err = parseRecords(l.Records); err != nil {
		return err
	}
	if op.Partitions, err = parseTPs(l.Partitions); err != nil {
		return err
	}
	if op.Gained, err = parseTPs(l.Gained); err != nil {
		return err
	}
	if op.Lost, err = parseTPs(l.Lost); err != nil {
		return err
	}
	if op.Offsets, err = parseOffsets(l.Offsets, l.From); err != nil {
		return err
	}
	if op.Resequenced, err = parseReseqLines(l.Reseq); err != nil {
		return err
	}
	op.AckedAs, err = parseSentAsLine(l.AckedAs)
	return err
}

// jsonReason shortens encoding/json's messages to the part a person fixing
// the file needs.
func jsonReason(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("malformed JSON at column %d: %s", se.Offset, se.Error())
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("field %q: want %s, got JSON %s", te.Field, te.Type, te.Value)
	}
	if err == io.EOF {
		return errors.New("empty JSON value")
	}
	return errors.New(strings.TrimPrefix(err.Error(), "json: "))
}

func parseValue(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("value %s: %v", raw, err)
		}
		if s == "" {
			return "", errors.New("empty value")
		}
		return s, nil
	}
	if _, err := strconv.ParseInt(string(raw), 10, 64); err != nil {
		return "", fmt.Errorf("value %s: want a string or an integer", raw)
	}
	return string(raw), nil
}

func parseRecords(m map[string][]json.RawMessage) ([]PartitionRecords, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make([]PartitionRecords, 0, len(m))
	for k, pairs := range m {
		tp, err := ParseTopicPartition(k)
		if err != nil {
			return nil, fmt.Errorf("records: %w", err)
		}
		pr := PartitionRecords{TP: tp, Records: make([]OffsetValue, len(pairs))}
		for j, raw := range pairs {
			var pair []json.RawMessage
			if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
				return nil, fmt.Errorf("records %s[%d]: want [offset, value], got %s", k, j, raw)
			}
			o, err := strconv.ParseInt(string(bytes.TrimSpace(pair[0])), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("records %s[%d]: offset %s is not an integer", k, j, pair[0])
			}
			v, err := parseValue(pair[1])
			if err != nil {
				return nil, fmt.Errorf("records %s[%d]: %w", k, j, err)
			}
			pr.Records[j] = OffsetValue{Offset: Offset(o), Value: v}
		}
		out = append(out, pr)
	}
	// Map order is random; the history's order must not be.
	SortRecords(out)
	return out, nil
}

func parseTPs(ss []string) ([]TopicPartition, error) {
	if len(ss) == 0 {
		return nil, nil
	}
	out := make([]TopicPartition, len(ss))
	for i, s := range ss {
		tp, err := ParseTopicPartition(s)
		if err != nil {
			return nil, err
		}
		out[i] = tp
	}
	return out, nil
}

func parseOffsets(offsets, from map[string]int64) ([]PartitionOffset, error) {
	for k := range from {
		if _, ok := offsets[k]; !ok {
			return nil, fmt.Errorf("\"from\" names %s, which \"offsets\" does not", k)
		}
	}
	if len(offsets) == 0 {
		return nil, nil
	}
	out := make([]PartitionOffset, 0, len(offsets))
	for k, o := range offsets {
		tp, err := ParseTopicPartition(k)
		if err != nil {
			return nil, fmt.Errorf("offsets: %w", err)
		}
		po := PartitionOffset{TP: tp, Offset: Offset(o), From: NoOffset}
		if f, ok := from[k]; ok {
			po.From = Offset(f)
		}
		out = append(out, po)
	}
	sortPartitionOffsets(out)
	return out, nil
}

func sortPartitionOffsets(pos []PartitionOffset) {
	// Insertion sort: a commit names a handful of partitions.
	for i := 1; i < len(pos); i++ {
		for j := i; j > 0 && pos[j].TP.Less(pos[j-1].TP); j-- {
			pos[j], pos[j-1] = pos[j-1], pos[j]
		}
	}
}
