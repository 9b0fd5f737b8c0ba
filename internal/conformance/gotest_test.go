package main

import (
	"strings"
	"testing"
)

// events is go test -json output for: TestRange with subtests named after
// two Kafka methods, one failing (so the parent fails); TestWhole without
// subtests, passing; TestSkipped, skipped; and the same name TestWhole
// failing in another package.
const events = `{"Action":"start","Package":"kafkasim/nodes/group"}
{"Action":"run","Package":"kafkasim/nodes/group","Test":"TestRange"}
{"Action":"run","Package":"kafkasim/nodes/group","Test":"TestRange/testOneConsumerOneTopic"}
{"Action":"output","Package":"kafkasim/nodes/group","Test":"TestRange/testOneConsumerOneTopic","Output":"=== RUN\n"}
{"Action":"pass","Package":"kafkasim/nodes/group","Test":"TestRange/testOneConsumerOneTopic"}
{"Action":"run","Package":"kafkasim/nodes/group","Test":"TestRange/testMultipleConsumersMixedTopics"}
{"Action":"fail","Package":"kafkasim/nodes/group","Test":"TestRange/testMultipleConsumersMixedTopics"}
{"Action":"fail","Package":"kafkasim/nodes/group","Test":"TestRange"}
{"Action":"pass","Package":"kafkasim/nodes/group","Test":"TestWhole"}
{"Action":"skip","Package":"kafkasim/nodes/group","Test":"TestSkipped"}
{"Action":"fail","Package":"kafkasim/nodes/group"}
{"Action":"fail","Package":"kafkasim/nodes/client","Test":"TestWhole"}
`

func TestOutcomeReadsTestsAndSubtests(t *testing.T) {
	res, err := readResults(strings.NewReader(events))
	if err != nil {
		t.Fatal(err)
	}
	g := func(fn string) Annotation { return ann("RangeAssignorTest", "", "nodes/group", fn, 1) }
	c := func(fn string) Annotation { return ann("RangeAssignorTest", "", "nodes/client", fn, 1) }
	cases := []struct {
		method string
		anns   []Annotation
		want   Outcome
	}{
		// The subtest named after the method decides, not its failing parent.
		{"testOneConsumerOneTopic", []Annotation{g("TestRange")}, Passed},
		{"testMultipleConsumersMixedTopics", []Annotation{g("TestRange")}, Failed},
		// Without a subtest of that name, the whole test decides.
		{"testOther", []Annotation{g("TestRange")}, Failed},
		{"testOther", []Annotation{g("TestWhole")}, Passed},
		{"testOther", []Annotation{g("TestSkipped")}, Skipped},
		{"testOther", []Annotation{g("TestWhole"), g("TestSkipped")}, Skipped},
		{"testOther", []Annotation{g("TestSkipped"), g("TestMissing")}, NotRun},
		{"testOther", []Annotation{g("TestMissing"), g("TestRange")}, Failed},
		// Benchmarks carry annotations but do not decide.
		{"testOther", []Annotation{g("TestWhole"), g("BenchmarkWhole")}, Passed},
		// Every annotated test must pass; packages are kept apart.
		{"testOther", []Annotation{g("TestWhole"), c("TestWhole")}, Failed},
		// No result at all is not a pass.
		{"testOther", []Annotation{g("TestMissing")}, NotRun},
		{"testOther", []Annotation{ann("X", "", "nodes/broker", "TestWhole", 1)}, NotRun},
	}
	for _, tc := range cases {
		got := res.outcome("kafkasim", Case{"RangeAssignorTest", tc.method}, tc.anns)
		if got != tc.want {
			t.Errorf("%s on %v: got %v, want %v", tc.method, tc.anns, got, tc.want)
		}
	}
	if got := results(nil).outcome("kafkasim", Case{"A", "b"}, []Annotation{g("TestWhole")}); got != NotRun {
		t.Errorf("without a run: got %v, want NotRun", got)
	}
}

func TestReadResultsRejectsNonJSON(t *testing.T) {
	if _, err := readResults(strings.NewReader("{\"Action\":\"pass\"}\nok  \tkafkasim\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("got %v, want an error naming line 2", err)
	}
}

func TestImportPath(t *testing.T) {
	if got := importPath("kafkasim", "nodes/group"); got != "kafkasim/nodes/group" {
		t.Fatal(got)
	}
	if got := importPath("kafkasim", "."); got != "kafkasim" {
		t.Fatal(got)
	}
}

func TestTestArgsRunEachAnnotatedTestOnce(t *testing.T) {
	files := []ClassFile{classFile(t, "ATest", "testA ported", "testB ported"), classFile(t, "BTest", "testA ported")}
	anns := []Annotation{
		ann("ATest", "testA", "nodes/group", "TestRange", 3),
		ann("ATest", "testA", "nodes/group", "BenchmarkRange", 4),
		ann("ATest", "testB", "nodes/group", "TestRange", 5),
		ann("BTest", "testA", "nodes/controller", "TestElect_X", 9),
	}
	tab, errs := join(files, anns)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	got := strings.Join(testArgs(tab), " ")
	if want := "test -json -run ^(TestElect_X|TestRange)$ ./nodes/controller ./nodes/group"; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if args := testArgs(Table{}); args != nil {
		t.Fatalf("nothing annotated: %v, want no run", args)
	}
}
