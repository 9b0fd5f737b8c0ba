// Command conformance builds docs/conformance.md, the table of how much of
// Kafka's own unit tests kafkasim's components pass.
//
// Its inputs are two kinds of files, kept in the repository:
//
//   - docs/conformance/<TestClass>.tsv, one per Kafka test class, which
//     lists every test method of the class with its status: ported (some Go
//     test carries it) or not-expressible (with the reason: the feature
//     kafkasim does not model, or an API-only difference).
//   - Go tests whose doc comment names the Kafka cases they port, one line
//     per case: "// Kafka: LeaderEpochFileCacheTest.shouldTruncateToEndOffset".
//
// It checks that the two agree (every annotation names a method its class's
// file lists as ported, every ported method has an annotation), runs the
// annotated Go tests with "go test -json", and writes the table: per class,
// the cases, how many are ported, how many of those pass, and which are not
// expressible and why. Run it from the repository:
//
//	go run ./internal/conformance          # rewrite docs/conformance.md
//	go run ./internal/conformance -check   # exit 1 if it is out of date
//	go run ./internal/conformance -kafka ../kafka   # also compare each file with its Kafka source
//
// With -kafka, each class file must list exactly the methods marked @Test or
// @ParameterizedTest in its source file (the header's path) in that copy of
// Apache Kafka, a checkout or a git repository read at HEAD; a missing or
// extra method is bad input like any other.
//
// A case passes when every Go test annotated with it passed; where such a
// test has subtests named after the Kafka method, those subtests' results
// count instead of the whole test's.
//
// Bad input (a malformed row, an annotation that names no listed method)
// is reported as file:line: reason with exit code 2, and nothing is
// written. The document is written through a temporary file in its own
// directory and renamed into place; a target that is a symlink or not a
// regular file is refused.
//
// The package's own test checks the repository's files agree and that
// docs/conformance.md is what the generator would write, except for the
// passing column and the list of failing cases: those need the annotated
// tests run, and a test run by "go test ./..." must not start go test
// again.
package main
