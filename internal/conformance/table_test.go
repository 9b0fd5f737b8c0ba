package main

import (
	"strings"
	"testing"
)

// classFile builds a parsed class file from rows "method status [reason]".
func classFile(t *testing.T, class string, rows ...string) ClassFile {
	t.Helper()
	data := "# class: org.example." + class + " source: x/" + class + ".java\n"
	for _, r := range rows {
		data += strings.Replace(strings.Replace(r, " ", "\t", 1), " ", "\t", 1) + "\n"
	}
	cf, errs := parseClassFile("docs/conformance/"+class+".tsv", []byte(data))
	if len(errs) != 0 {
		t.Fatalf("bad test input: %v", errs)
	}
	return cf
}

func ann(class, method, dir, fn string, line int) Annotation {
	return Annotation{Case{class, method}, GoTest{dir, fn}, dir + "/x_test.go", line}
}

func TestJoinAcceptsAgreeingInputs(t *testing.T) {
	files := []ClassFile{
		classFile(t, "BTest", "testA ported", "testB not-expressible racks (not modelled)"),
		classFile(t, "ATest", "testA ported"),
	}
	anns := []Annotation{
		ann("BTest", "testA", "nodes/group", "TestA", 3),
		ann("BTest", "testA", "nodes/client", "TestA", 9),
		ann("ATest", "testA", "nodes/group", "TestA", 4),
	}
	tab, errs := join(files, anns)
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	if len(tab.Classes) != 2 || tab.Classes[0].File.Class != "ATest" {
		t.Fatalf("classes not sorted: %+v", tab.Classes)
	}
	if got := len(tab.Classes[1].Tests["testA"]); got != 2 {
		t.Fatalf("BTest.testA has %d tests, want 2 (the same name in two packages)", got)
	}
	if c, p, n := tab.Classes[1].counts(); c != 2 || p != 1 || n != 1 {
		t.Fatalf("counts %d %d %d, want 2 1 1", c, p, n)
	}
}

func TestJoinWantsATestBesideBenchmarks(t *testing.T) {
	files := []ClassFile{classFile(t, "ATest", "testA ported", "testB ported")}
	anns := []Annotation{
		ann("ATest", "testA", "nodes/group", "BenchmarkA", 3),
		ann("ATest", "testB", "nodes/group", "BenchmarkB", 5),
		ann("ATest", "testB", "nodes/group", "TestB", 7),
	}
	_, errs := join(files, anns)
	if len(errs) != 1 || errs[0].Error() != "docs/conformance/ATest.tsv:2: ATest.testA is carried only by benchmarks; a ported case needs a Go test that checks it" {
		t.Fatalf("got %v", errs)
	}
}

func TestJoinReportsDisagreement(t *testing.T) {
	files := []ClassFile{classFile(t, "ATest", "testA ported", "testB not-expressible racks (not modelled)", "testC ported")}
	anns := []Annotation{
		ann("ATest", "testA", "nodes/group", "TestA", 3),
		ann("ATest", "testA", "nodes/group", "TestA", 4),
		ann("ATest", "testB", "nodes/group", "TestB", 7),
		ann("ATest", "testZ", "nodes/group", "TestZ", 9),
		ann("OtherTest", "testA", "nodes/group", "TestA", 5),
	}
	_, errs := join(files, anns)
	sortErrors(errs)
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{
		`docs/conformance/ATest.tsv:4: ATest.testC is ported, but no Go test's doc comment says "// Kafka: ATest.testC"`,
		"nodes/group/x_test.go:4: ATest.testA is annotated twice on TestA",
		"nodes/group/x_test.go:5: OtherTest.testA names class OtherTest, which has no docs/conformance/OtherTest.tsv",
		"nodes/group/x_test.go:7: ATest.testB is ported by TestB, but docs/conformance/ATest.tsv:3 says not-expressible",
		"nodes/group/x_test.go:9: ATest.testZ: docs/conformance/ATest.tsv lists no method testZ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
