package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestTestMethodsReadsJavaAndScala(t *testing.T) {
	java := `public class FooTest {
    @Test
    public void testPlain() {}

    @ParameterizedTest(name = "{0}")
    @ValueSource(booleans = {true, false})
    public void testParameterized(boolean b) {}

    @Test
    @Timeout(5)
    void testAfterAnotherAnnotation() {}

    /**
     * @Test in a comment is not an annotation
     */
    public void notATest() {}

    @TestTemplate
    public void testTemplateIsNotCounted() {}

    @Test @Timeout(5) public void testSameLine() {}

    private void helper() {}
}
`
	scala := `class BarTest {
  @Test
  def testOne(): Unit = {}

  @Test def testInline(): Unit = {
  }

  def notATest(): Unit = {}
}
`
	if got, want := testMethods([]byte(java)), []string{"testAfterAnotherAnnotation", "testParameterized", "testPlain", "testSameLine"}; !slices.Equal(got, want) {
		t.Errorf("java: %v, want %v", got, want)
	}
	if got, want := testMethods([]byte(scala)), []string{"testInline", "testOne"}; !slices.Equal(got, want) {
		t.Errorf("scala: %v, want %v", got, want)
	}
}

func TestCheckAgainstKafkaFindsMissingAndExtraRows(t *testing.T) {
	kafka := t.TempDir()
	src := "x/ATest.java"
	if err := os.MkdirAll(filepath.Join(kafka, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kafka, src), []byte("@Test\nvoid testA() {}\n@Test\nvoid testB() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := Table{Classes: []ClassTable{{File: classFile(t, "ATest", "testA ported", "testB not-expressible racks (not modelled)")}}}
	if errs := checkAgainstKafka(good, kafka); len(errs) != 0 {
		t.Fatalf("errors on an exact list: %v", errs)
	}
	bad := Table{Classes: []ClassTable{{File: classFile(t, "ATest", "testA ported", "testC ported")}}}
	var got []string
	for _, e := range checkAgainstKafka(bad, kafka) {
		got = append(got, e.Error())
	}
	want := []string{
		"docs/conformance/ATest.tsv:1: x/ATest.java has test method testB, which the file does not list",
		"docs/conformance/ATest.tsv:3: testC is not a test method of x/ATest.java",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	missing := Table{Classes: []ClassTable{{File: classFile(t, "BTest", "testA ported")}}}
	if errs := checkAgainstKafka(missing, kafka); len(errs) != 1 || errs[0].Line != 1 {
		t.Fatalf("a source that is not there: %v", errs)
	}
}
