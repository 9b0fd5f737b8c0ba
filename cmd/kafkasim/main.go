package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"

	"kafkasim/internal/gctune"
	"kafkasim/reports"
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
	if asksHelp(args[1:]) {
		// A command's flags, fitted to the terminal like the rest of
		// the output (the flag package does not wrap).
		var buf bytes.Buffer
		code := c.run(args[1:], stdout, &buf)
		io.WriteString(stderr, reports.FitLines(buf.String(), reports.TerminalWidth))
		return code
	}
	return c.run(args[1:], stdout, stderr)
}

// asksHelp reports whether a command's arguments ask for its flags.
func asksHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "-h", "-help", "--help", "--h":
			return true
		case "--":
			return false
		}
	}
	return false
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
