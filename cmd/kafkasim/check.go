package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"kafkasim/checkers"
	"kafkasim/model"
)

func init() {
	commands["check"] = command{
		summary: "judge a recorded history (kafkasim JSON lines or Jepsen history.edn)",
		run:     runCheck,
	}
}

// runCheck is `kafkasim check`. Bad input (flags, an unreadable or
// malformed file) exits 2 with the file, line and reason on stderr and
// nothing on stdout; a judged history exits 0 when valid, 1 when a
// violation was found, and 3 when the verdict is unknown (nothing in the
// history could be judged, or a linearizability check ran out of time):
// unknown is never a pass.
func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kafkasim check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("history", "", "history `file` to judge (required)")
	format := fs.String("format", "", "history format: jsonl or jepsen (default: jepsen for .edn files, else jsonl)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of a table")
	out := fs.String("out", "", "`dir`ectory for porcupine's visualization of a non-linearizable partition")
	idempotent := fs.Bool("idempotent", true, "the producers used enable.idempotence (duplicates and reordered sends are errors)")
	subscribe := fs.Bool("subscribe", false, "the consumers used subscribe (skips and rewinds across polls are allowed)")
	acks := fs.String("acks", "all", "the producers' acks: all, 1 or 0 (lost writes are errors only with all)")
	reset := fs.String("reset", "earliest", "the consumers' auto.offset.reset: earliest, latest or none (with latest, unread records are allowed)")
	minISR := fs.Int("min-isr", 0, "min.insync.replicas (0: not stated, the durability promise is assumed)")
	budget := fs.Duration("budget", 10*time.Second, "porcupine's time budget (negative: skip linearizability)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkasim check -history FILE [-format jsonl|jepsen] [-json] [-out DIR] [-idempotent=true] [-subscribe]")
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "exit status: 0 valid, 1 violations found, 2 bad input, 3 unknown (nothing to judge, or a check ran out of time)")
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "kafkasim check: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *path == "" {
		fmt.Fprintln(stderr, "kafkasim check: -history FILE is required")
		fs.Usage()
		return 2
	}
	if *format == "" {
		*format = "jsonl"
		if strings.EqualFold(filepath.Ext(*path), ".edn") {
			*format = "jepsen"
		}
	}
	var read func(io.Reader, string) (model.History, error)
	switch *format {
	case "jsonl":
		read = model.ReadHistory
	case "jepsen":
		read = checkers.ReadJepsenEDN
	default:
		fmt.Fprintf(stderr, "kafkasim check: unknown -format %q (want jsonl or jepsen)\n", *format)
		return 2
	}
	switch *acks {
	case "all", "-1", "1", "0":
	default:
		fmt.Fprintf(stderr, "kafkasim check: unknown -acks %q (want all, 1 or 0)\n", *acks)
		return 2
	}
	switch *reset {
	case "earliest", "latest", "none":
	default:
		fmt.Fprintf(stderr, "kafkasim check: unknown -reset %q (want earliest, latest or none)\n", *reset)
		return 2
	}
	f, err := os.Open(*path)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim check: %v\n", err)
		return 2
	}
	h, err := read(f, filepath.Base(*path))
	f.Close()
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim check: %v\n", err)
		return 2
	}

	res := checkers.Check(checkers.Input{History: h}, checkers.Options{
		Idempotent:            *idempotent,
		Subscribe:             *subscribe,
		AutoOffsetReset:       *reset,
		Acks:                  *acks,
		MinInsyncReplicas:     *minISR,
		LinearizabilityBudget: *budget,
		OutDir:                *out,
	})
	// Render to a buffer first, so that a failure to render leaves no
	// partial report behind.
	var buf bytes.Buffer
	if *asJSON {
		err = writeCheckJSON(&buf, res)
	} else {
		err = writeCheckTable(&buf, res, len(h))
	}
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim check: %v\n", err)
		return 2
	}
	stdout.Write(buf.Bytes())
	return checkExit(res.Valid)
}

// Exit codes of kafkasim check beyond 0 (valid), 1 (violations) and 2
// (bad input).
const exitUnknown = 3

func checkExit(v checkers.Valid) int {
	switch v {
	case checkers.ValidOK:
		return 0
	case checkers.ValidUnknown:
		return exitUnknown
	}
	return 1
}

// checkJSON is the -json report: ok, and the violations with the fields a
// script needs.
type checkJSON struct {
	OK              bool                      `json:"ok"`
	Valid           checkers.Valid            `json:"valid"`
	Violations      []violationJSON           `json:"violations"`
	Linearizability []checkers.PartitionCheck `json:"linearizability,omitempty"`
	Notes           []string                  `json:"notes,omitempty"`
}

type violationJSON struct {
	Checker   string         `json:"checker"`
	Anomaly   string         `json:"anomaly"`
	Partition string         `json:"partition"`
	Error     bool           `json:"error"`
	Promise   string         `json:"promise,omitempty"`
	Offsets   []model.Offset `json:"offsets,omitempty"`
	Values    []string       `json:"values,omitempty"`
	Ops       []int          `json:"ops,omitempty"`
	Detail    string         `json:"detail"`
	// Jepsen's key for the finding and its verdict (error or allowed),
	// where Jepsen's Kafka checker has the analysis.
	Jepsen      string `json:"jepsen,omitempty"`
	JepsenClass string `json:"jepsen_class,omitempty"`
	// Txn: a dependency cycle's steps, or an internal send's distance in
	// the version order (the transactional analyses).
	Txn *checkers.TxnDetail `json:"txn,omitempty"`
}

func partitionName(tp model.TopicPartition) string {
	if tp.Topic == "" {
		return "" // a group- or cluster-wide finding
	}
	return tp.String()
}

func writeCheckJSON(w io.Writer, res checkers.Result) error {
	out := checkJSON{
		OK:              res.Valid == checkers.ValidOK,
		Valid:           res.Valid,
		Violations:      []violationJSON{},
		Linearizability: res.Linearizability,
		Notes:           res.Notes,
	}
	for _, v := range res.Violations {
		out.Violations = append(out.Violations, violationJSON{
			Checker: v.Checker, Anomaly: v.Anomaly, Partition: partitionName(v.Partition),
			Error: v.Error, Promise: v.Promise, Offsets: v.Offsets, Values: v.Values, Ops: v.Ops, Detail: v.Detail,
			Jepsen: v.Jepsen, JepsenClass: v.JepsenClass, Txn: v.Txn,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func writeCheckTable(w io.Writer, res checkers.Result, ops int) error {
	if len(res.Violations) > 0 {
		t := tablewriter.NewTable(w,
			tablewriter.WithRowAutoWrap(tw.WrapNormal),
			tablewriter.WithRowMaxWidth(72),
		)
		t.Header("checker", "anomaly", "partition", "severity", "detail")
		for _, v := range res.Violations {
			sev := "allowed"
			if v.Error {
				sev = "ERROR"
			}
			name := v.Anomaly
			if v.Jepsen != "" && v.Jepsen != v.Anomaly {
				name += " (" + v.Jepsen + ")"
			}
			if err := t.Append(v.Checker, name, partitionName(v.Partition), sev, v.Detail); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
		// Which promise broke, once per promise.
		seen := map[string]bool{}
		for _, v := range res.Violations {
			if v.Error && !seen[v.Promise] {
				seen[v.Promise] = true
				fmt.Fprintf(w, "broken promise: %s\n", v.Promise)
			}
		}
		writeJepsenVerdict(w, res.Violations)
	}
	illegal, unknown := 0, 0
	for _, pc := range res.Linearizability {
		switch pc.Result {
		case "Illegal":
			illegal++
		case "Unknown":
			unknown++
		}
	}
	if len(res.Linearizability) > 0 {
		fmt.Fprintf(w, "linearizability: %d partitions, %d not linearizable, %d unknown\n", len(res.Linearizability), illegal, unknown)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	errs := len(res.Errors())
	fmt.Fprintf(w, "%d ops: %s (%d errors, %d allowed findings)\n", ops, res.Valid, errs, len(res.Violations)-errs)
	return nil
}

// writeJepsenVerdict says what Jepsen's Kafka checker would conclude from
// the same findings (kafka.clj checker: invalid when any error type is not
// in allowed-error-types), with the keys it would list.
func writeJepsenVerdict(w io.Writer, vs []checkers.Violation) {
	var bad, allowed []string
	for _, v := range vs {
		switch {
		case v.Jepsen == "":
		case v.JepsenClass == checkers.JepsenError && !slices.Contains(bad, v.Jepsen):
			bad = append(bad, v.Jepsen)
		case v.JepsenClass == checkers.JepsenAllowed && !slices.Contains(allowed, v.Jepsen):
			allowed = append(allowed, v.Jepsen)
		}
	}
	if len(bad)+len(allowed) == 0 {
		return
	}
	slices.Sort(bad)
	slices.Sort(allowed)
	verdict := "valid"
	if len(bad) > 0 {
		verdict = "invalid"
	}
	fmt.Fprintf(w, "jepsen: %s (error types: %s; allowed: %s)\n", verdict, listOrNone(bad), listOrNone(allowed))
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}
