package main

import (
	"strings"
	"testing"
)

const goodHeader = "# class: org.apache.kafka.clients.consumer.RangeAssignorTest source: clients/src/test/java/org/apache/kafka/clients/consumer/RangeAssignorTest.java\n"

func TestParseClassFileAcceptsBothPortedForms(t *testing.T) {
	data := goodHeader +
		"testA\tported\n" +
		"testB\tported\t\n" +
		"testC\tnot-expressible\tAPI-only: takes a Java Optional\n" +
		"test_D\tnot-expressible\track-aware assignment (not modelled)\n"
	cf, errs := parseClassFile("docs/conformance/RangeAssignorTest.tsv", []byte(data))
	if len(errs) != 0 {
		t.Fatalf("errors on a good file: %v", errs)
	}
	if cf.Class != "RangeAssignorTest" || cf.FQN != "org.apache.kafka.clients.consumer.RangeAssignorTest" ||
		!strings.HasSuffix(cf.Source, "RangeAssignorTest.java") {
		t.Fatalf("header read as %+v", cf)
	}
	var got []string
	for _, r := range cf.Rows {
		got = append(got, r.Method+"/"+string(r.Status)+"/"+r.Reason)
	}
	want := "testA/ported/ testB/ported/ testC/not-expressible/API-only: takes a Java Optional test_D/not-expressible/rack-aware assignment (not modelled)"
	if strings.Join(got, " ") != want {
		t.Fatalf("rows %q\nwant %q", strings.Join(got, " "), want)
	}
	if cf.Rows[2].Line != 4 {
		t.Fatalf("testC on line %d, want 4", cf.Rows[2].Line)
	}
}

func TestParseClassFileReportsFileLineReason(t *testing.T) {
	const path = "docs/conformance/RangeAssignorTest.tsv"
	cases := []struct {
		name, data string
		want       string // the first error, in full
	}{
		{"no header", "testA\tported\n", path + ":1: want the header"},
		{"other class", strings.Replace(goodHeader, "RangeAssignorTest source", "RoundRobinAssignorTest source", 1) + "testA\tported\n",
			path + ":1: the header names class org.apache.kafka.clients.consumer.RoundRobinAssignorTest"},
		{"no methods", goodHeader, path + ":1: no methods listed"},
		{"one field", goodHeader + "testA\tported\ntestB\n", path + ":3: want <method>"},
		{"spaces not tabs", goodHeader + "testA ported\n", path + ":2: want <method>"},
		{"four fields", goodHeader + "testA\tnot-expressible\tx\ty\n", path + ":2: want <method>"},
		{"bad status", goodHeader + "testA\tdone\n", path + ":2: method testA: status \"done\""},
		{"ported with reason", goodHeader + "testA\tported\tbecause\n", path + ":2: method testA is ported, so its reason must be empty"},
		{"no reason", goodHeader + "testA\tnot-expressible\t\n", path + ":2: method testA is not-expressible without a reason"},
		{"blank reason", goodHeader + "testA\tnot-expressible\t  \n", path + ":2: method testA is not-expressible without a reason"},
		{"bad name", goodHeader + "test A\tported\n", path + ":2: \"test A\" is not a method name"},
		{"unsorted", goodHeader + "testB\tported\ntestA\tported\n", path + ":3: method testA is out of order"},
		{"byte order", goodHeader + "testa\tported\ntestB\tported\n", path + ":3: method testB is out of order"},
		{"twice", goodHeader + "testA\tported\ntestA\tported\n", path + ":3: method testA is listed twice (also on line 2)"},
		{"blank line", goodHeader + "testA\tported\n\ntestB\tported\n", path + ":3: empty line"},
		{"crlf", goodHeader + "testA\tported\r\n", path + ":2: carriage return"},
		{"no final newline", goodHeader + "testA\tported", path + ":2: the file must end with a newline"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errs := parseClassFile(path, []byte(c.data))
			if len(errs) == 0 {
				t.Fatalf("no error, want %q", c.want)
			}
			if got := errs[0].Error(); !strings.HasPrefix(got, c.want) {
				t.Fatalf("got %q\nwant it to start %q", got, c.want)
			}
		})
	}
}

func TestParseClassFileReportsEveryProblem(t *testing.T) {
	data := goodHeader + "testB\tported\ntestA\tported\ntestC\tmaybe\n"
	_, errs := parseClassFile("x/RangeAssignorTest.tsv", []byte(data))
	if len(errs) != 2 || errs[0].Line != 3 || errs[1].Line != 4 {
		t.Fatalf("got %v, want one error on line 3 and one on line 4", errs)
	}
}
