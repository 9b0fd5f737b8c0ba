package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"kafkasim/checkers"
	"kafkasim/internal/atomicfile"
	"kafkasim/model"
	"kafkasim/scenarios"
)

func init() {
	commands["export"] = command{
		summary: "write a run's history as Jepsen's Kafka workload writes history.edn",
		run:     runExport,
	}
}

// runExport is `kafkasim export`: the history of a run directory (-run)
// or of a kafkasim history file (-history) written in Jepsen's format
// (checkers.WriteJepsenEDN) to -out, which kafkasim check -history FILE
// -format jepsen judges again. An -out that exists is refused without
// -force. Bad flags or input, or an -out that cannot be written, exit 2
// with nothing written.
func runExport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kafkasim export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runPath := fs.String("run", "", "run `dir`ectory whose history to export (written by kafkasim run -out)")
	histPath := fs.String("history", "", "kafkasim history `file` (JSON lines) to export")
	out := fs.String("out", "", "new `file` for the Jepsen history.edn; refused if it exists, unless -force")
	force := fs.Bool("force", false, "replace an -out file that exists")
	format := fs.String("format", "jepsen", "output format: jepsen (the only one)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkasim export -run DIR|-history FILE -out FILE [-force]")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "kafkasim export: unexpected argument %q\n", fs.Arg(0))
		return exitBadInput
	case *format != "jepsen":
		fmt.Fprintf(stderr, "kafkasim export: unknown -format %q (want jepsen)\n", *format)
		return exitBadInput
	case (*runPath == "") == (*histPath == ""):
		fmt.Fprintln(stderr, "kafkasim export: give -run DIR or -history FILE, one of them")
		return exitBadInput
	case *out == "":
		fmt.Fprintln(stderr, "kafkasim export: -out FILE is required")
		return exitBadInput
	}
	if err := checkOutFile(*out); err != nil {
		fmt.Fprintln(stderr, "kafkasim export:", err)
		return exitBadInput
	}
	if _, err := os.Lstat(*out); err == nil && !*force {
		fmt.Fprintf(stderr, "kafkasim export: -out %s: exists; name a new file, or give -force to replace it\n", *out)
		return exitBadInput
	}
	h, err := exportHistory(*runPath, *histPath)
	if err != nil {
		fmt.Fprintln(stderr, "kafkasim export:", err)
		return exitBadInput
	}
	if err := atomicfile.Write(*out, func(w io.Writer) error { return checkers.WriteJepsenEDN(w, h) }); err != nil {
		fmt.Fprintf(stderr, "kafkasim export: %v; nothing was written\n", err)
		return exitBadInput
	}
	fmt.Fprintf(stdout, "wrote %s: %d ops as Jepsen's history.edn (what the format cannot hold: docs/checkers.md)\n", *out, len(h))
	return exitPass
}

// exportHistory reads the history to export.
func exportHistory(runPath, histPath string) (model.History, error) {
	if runPath != "" {
		s, err := scenarios.LoadRun(runPath)
		return s.Input.History, err
	}
	f, err := os.Open(histPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return model.ReadHistory(f, histPath)
}
