package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"kafkasim/internal/gctune"
)

// command is one subcommand of kafkasim. run gets the arguments after the
// subcommand's name and returns the process exit code: 0 success, 1 a
// finding (a violation), 2 bad input, 3 unknown (see exitcode.go).
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands is filled by each subcommand's file in its init function.
var commands = map[string]command{}

func main() {
	gctune.Apply() // fewer collections for allocation-heavy runs; GOGC and GOMEMLIMIT still win
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return runDefault(stdout, stderr)
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "kafkasim: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "kafkasim: a deterministic simulation testbed for Kafka-style replicated logs")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: kafkasim <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'kafkasim <command> -h' for a command's flags.")
}
