package main

import (
	"strconv"
	"strings"
	"testing"
)

const annotatedSource = `package group

import "testing"

// TestRangeTwoTopics ports Kafka's case.
//
// Kafka: RangeAssignorTest.testTwoTopicsOneConsumer
// Kafka: RangeAssignorTest.testTwoConsumersTwoTopicsSixPartitions
func TestRangeTwoTopics(t *testing.T) {
	/* Kafka: NotAnAnnotation.insideABlockComment */
}

// TestX_underscore is a test too.
// Kafka: RoundRobinAssignorTest.testOneConsumerNoTopic
func TestX_underscore(t *testing.T) {}

// Kafka: RangeAssignorTest.testOneConsumerOneTopic
func BenchmarkRange(b *testing.B) {}
`

func TestFileAnnotationsFindsDocCommentLines(t *testing.T) {
	anns, errs := fileAnnotations("nodes/group/range_test.go", []byte(annotatedSource))
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	var got []string
	for _, a := range anns {
		got = append(got, a.Case.String()+"@"+a.Test.Dir+"."+a.Test.Func+":"+a.Path+":"+strconv.Itoa(a.Line))
	}
	want := []string{
		"RangeAssignorTest.testTwoTopicsOneConsumer@nodes/group.TestRangeTwoTopics:nodes/group/range_test.go:7",
		"RangeAssignorTest.testTwoConsumersTwoTopicsSixPartitions@nodes/group.TestRangeTwoTopics:nodes/group/range_test.go:8",
		"RoundRobinAssignorTest.testOneConsumerNoTopic@nodes/group.TestX_underscore:nodes/group/range_test.go:14",
		"RangeAssignorTest.testOneConsumerOneTopic@nodes/group.BenchmarkRange:nodes/group/range_test.go:17",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if anns[0].Test.IsBenchmark() || !anns[3].Test.IsBenchmark() {
		t.Fatal("TestRangeTwoTopics is a test and BenchmarkRange a benchmark")
	}
}

func TestFileAnnotationsIgnoresProseOutsideTestDocs(t *testing.T) {
	src := "package p\n\n// helper is Kafka's too.\n// Kafka: leaderRecoveryState RECOVERING\nfunc helper() {}\n\nvar x int // Kafka: the same as before.\n"
	anns, errs := fileAnnotations("p_test.go", []byte(src))
	if len(anns) != 0 || len(errs) != 0 {
		t.Fatalf("got %v, %v; want neither annotations nor errors", anns, errs)
	}
}

func TestFileAnnotationsRejectsMisplacedAndMalformed(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"helper's doc comment", "package p\n\n// Kafka: A.b\nfunc helper() {}\n", "p_test.go:3: annotation \"// Kafka: A.b\" is not in the doc comment of a top-level Test or Benchmark function"},
		{"not a test name", "package p\n\nimport \"testing\"\n\n// Kafka: A.b\nfunc Testify(t *testing.T) {}\n", "p_test.go:5: annotation"},
		{"method", "package p\n\ntype s struct{}\n\n// Kafka: A.b\nfunc (s) TestX() {}\n", "p_test.go:5: annotation"},
		{"inside a body", "package p\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {\n\t// Kafka: A.b\n}\n", "p_test.go:6: annotation"},
		{"trailing comment", "package p\n\nvar x int // Kafka: A.b\n", "p_test.go:3: annotation"},
		{"no method", "package p\n\nimport \"testing\"\n\n// Kafka: RangeAssignorTest\nfunc TestX(t *testing.T) {}\n", "p_test.go:5: malformed annotation"},
		{"trailing words", "package p\n\nimport \"testing\"\n\n// Kafka: A.b covers it\nfunc TestX(t *testing.T) {}\n", "p_test.go:5: malformed annotation"},
		{"no space", "package p\n\nimport \"testing\"\n\n// Kafka:A.b\nfunc TestX(t *testing.T) {}\n", "p_test.go:5: malformed annotation"},
		{"does not parse", "package p\n\nfunc {\n", "p_test.go:3: does not parse"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			anns, errs := fileAnnotations("p_test.go", []byte(c.src))
			if len(anns) != 0 || len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), c.want) {
				t.Fatalf("got annotations %v, errors %v\nwant one error starting %q", anns, errs, c.want)
			}
		})
	}
}
