package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command: exit code 0 when the document was written (or, with
// -check, is up to date), 1 when -check finds it out of date or go test
// could not be run, 2 for bad flags or bad input files.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "the repository's root (default: the nearest directory above the working directory with a go.mod)")
	out := fs.String("out", "docs/conformance.md", "the document to write (a relative path is relative to the root)")
	check := fs.Bool("check", false, "write nothing; exit 1 if the document differs from what would be written")
	kafka := fs.String("kafka", "", "also check that each class file lists exactly the test methods of its source in this copy of Apache Kafka (a checkout, or a git repository read at HEAD)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s [-check] [-kafka DIR] [-root DIR] [-out FILE]\n\n", command)
		fmt.Fprintln(stderr, "Builds the conformance table from docs/conformance/*.tsv and the Go tests'")
		fmt.Fprintln(stderr, "\"// Kafka: Class.method\" annotations, running the annotated tests.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "conformance: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	module, target, err := locate(root, *out)
	if err != nil {
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		return 2
	}
	doc, code := buildDocument(*root, module, *kafka, stderr)
	if doc == nil {
		return code
	}
	if *check {
		old, err := os.ReadFile(target)
		if err != nil && !os.IsNotExist(err) {
			fmt.Fprintf(stderr, "conformance: %v\n", err)
			return 1
		}
		if !bytes.Equal(old, doc) {
			fmt.Fprintf(stderr, "conformance: %s is out of date; run %s\n", *out, command)
			return 1
		}
		fmt.Fprintf(stdout, "%s is up to date\n", *out)
		return 0
	}
	if err := writeAtomically(target, doc); err != nil {
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return 0
}

// locate settles the repository's root (found from the working directory
// when *root is empty), its module path, and the document's path, which
// must be writable.
func locate(root *string, out string) (module, target string, err error) {
	if *root == "" {
		if *root, err = findRoot(); err != nil {
			return "", "", err
		}
	}
	if module, err = modulePath(*root); err != nil {
		return "", "", err
	}
	target = out
	if !filepath.IsAbs(target) {
		target = filepath.Join(*root, target)
	}
	return module, target, checkTarget(target)
}

// buildDocument loads the table (checked against a Kafka copy when kafka
// is set), runs the annotated tests and renders the document. On failure
// it returns nil and the exit code, having said why: 2 for bad inputs, 1
// when the tests could not be run.
func buildDocument(root, module, kafka string, stderr io.Writer) ([]byte, int) {
	t, inputErrs, err := loadTable(root)
	if err != nil {
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		return nil, 2
	}
	if kafka != "" {
		inputErrs = append(inputErrs, checkAgainstKafka(t, kafka)...)
		sortErrors(inputErrs)
	}
	if len(inputErrs) > 0 {
		for _, e := range inputErrs {
			fmt.Fprintln(stderr, e)
		}
		fmt.Fprintf(stderr, "conformance: %d problem(s) in the inputs; nothing written\n", len(inputErrs))
		return nil, 2
	}
	res, err := testRunner(root, t, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		return nil, 1
	}
	outs := outcomes{}
	for _, ct := range t.Classes {
		for method, anns := range ct.Tests {
			c := Case{ct.File.Class, method}
			outs[c] = res.outcome(module, c, anns)
		}
	}
	return render(t, outs), 0
}

// findRoot walks up from the working directory to the first directory
// with a go.mod.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod in the working directory or above it; use -root")
		}
		dir = parent
	}
}
