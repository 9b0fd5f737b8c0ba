package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// writtenNotes say what the files a run or sweep directory holds are for.
var writtenNotes = map[string]string{
	"index.html":         "the report: open it in a browser",
	"summary.md":         "the report as Markdown",
	"results.jsonl":      "one JSON line per run (kafkasim merge, kafkasim report)",
	"runs":               "replayed runs, each a run directory",
	"result.json":        "the run's result",
	"run.json":           "what the checkers judged (kafkasim check -run DIR)",
	"history.jsonl":      "the clients' history",
	"schedule.txt":       "the run's faults (replay with -schedule)",
	"experiment.toml":    "the experiment file it ran (replay with run -f)",
	"faults.log":         "what each fault resolved to",
	"trace.json":         "the Chrome trace (Perfetto, chrome://tracing)",
	"observations.jsonl": "what the cluster was seen to do",
	"replicas.jsonl":     "every replica's final log",
}

// printWritten ends a run or sweep with where its files went: the
// directory, then each file or directory in it with what it is for;
// pictures are counted, not listed. Nothing is printed for an unreadable
// directory (the command already said what went wrong).
func printWritten(w io.Writer, dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	fmt.Fprintf(w, "wrote %s%c\n", filepath.Clean(dir), filepath.Separator)
	var names []string
	pictures := 0
	for _, e := range entries {
		switch ext := filepath.Ext(e.Name()); {
		case strings.HasPrefix(e.Name(), "."):
		case ext == ".png" || ext == ".svg":
			pictures++
		default:
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	width := 0
	for _, n := range names {
		width = max(width, len(n)+1)
	}
	for _, n := range names {
		shown := n
		if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && fi.IsDir() {
			shown += string(filepath.Separator)
		}
		note := writtenNotes[n]
		if strings.HasPrefix(n, "linearizability-") && strings.HasSuffix(n, ".html") {
			note = "porcupine's visualization of a history that is not linearizable"
		}
		if note != "" {
			fmt.Fprintf(w, "  %-*s %s\n", width, shown, note)
		} else {
			fmt.Fprintf(w, "  %s\n", shown)
		}
	}
	if pictures > 0 {
		fmt.Fprintf(w, "  and %d plots (.png, .svg)\n", pictures)
	}
}
