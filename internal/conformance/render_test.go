package main

import (
	"bytes"
	"strings"
	"testing"
)

func sampleTable(t *testing.T) Table {
	t.Helper()
	files := []ClassFile{classFile(t, "ATest", "testA ported", "testB not-expressible racks (not modelled)", "testC ported")}
	anns := []Annotation{ann("ATest", "testA", "nodes/group", "TestA", 3), ann("ATest", "testC", "nodes/group", "TestC", 9)}
	tab, errs := join(files, anns)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	return tab
}

func TestRenderCountsAndLists(t *testing.T) {
	doc := string(render(sampleTable(t), outcomes{{"ATest", "testA"}: Passed, {"ATest", "testC"}: Failed}))
	skipped := string(render(sampleTable(t), outcomes{{"ATest", "testA"}: Skipped, {"ATest", "testC"}: Passed}))
	if !strings.Contains(skipped, "- `ATest.testA`: skipped") || !strings.Contains(skipped, "| total | 3 | 2 | 1 | 1 |") {
		t.Errorf("a skipped case is listed and not counted as passing:\n%s", skipped)
	}
	for _, want := range []string{
		"| [ATest](conformance/ATest.tsv) | 3 | 2 | 1 | 1 |\n",
		"| total | 3 | 2 | 1 | 1 |\n",
		"- `ATest.testC`: failed (`nodes/group` TestC)\n",
		"- `testB`: racks (not modelled)\n",
		"- `testA`: `nodes/group` TestA\n",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("document lacks %q:\n%s", want, doc)
		}
	}
	if strings.HasSuffix(doc, "\n\n") || !strings.HasSuffix(doc, "\n") {
		t.Errorf("document should end with exactly one newline")
	}
	passing := string(render(sampleTable(t), outcomes{{"ATest", "testA"}: Passed, {"ATest", "testC"}: Passed}))
	if !strings.Contains(passing, failingHeading+"\n\nNone.\n") {
		t.Errorf("all passing should say None:\n%s", passing)
	}
}

func TestMaskRunHidesOnlyWhatNeedsARun(t *testing.T) {
	tab := sampleTable(t)
	notRun := maskRun(render(tab, nil))
	for _, out := range []outcomes{
		{{"ATest", "testA"}: Passed, {"ATest", "testC"}: Failed},
		{{"ATest", "testA"}: Passed, {"ATest", "testC"}: Passed},
		{},
	} {
		if got := maskRun(render(tab, out)); !bytes.Equal(got, notRun) {
			t.Errorf("masked documents differ:\n%s\n----\n%s", got, notRun)
		}
	}
	// A change to anything else still shows through the mask.
	files := []ClassFile{classFile(t, "ATest", "testA ported", "testB ported", "testC ported")}
	anns := []Annotation{ann("ATest", "testA", "nodes/group", "TestA", 3), ann("ATest", "testB", "nodes/group", "TestB", 5), ann("ATest", "testC", "nodes/group", "TestC", 9)}
	other, errs := join(files, anns)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if bytes.Equal(maskRun(render(other, nil)), notRun) {
		t.Errorf("a case moving from not-expressible to ported is hidden by the mask")
	}
}
