package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := dispatch(args, &out, &errb)
	return code, out.String(), errb.String()
}

const cleanJSONL = `{"process":0,"type":"ok","f":"send","time":0,"end":1,"tp":"t/0","value":"a","offset":0}
{"process":0,"type":"ok","f":"send","time":1,"end":2,"tp":"t/0","value":"b","offset":1}
{"process":1,"type":"ok","f":"poll","time":3,"end":4,"records":{"t/0":[[0,"a"],[1,"b"]]}}
`

// b at offset 1 is never read although c at 2 is: a lost write.
const lostJSONL = `{"process":0,"type":"ok","f":"send","time":0,"end":1,"tp":"t/0","value":"a","offset":0}
{"process":0,"type":"ok","f":"send","time":1,"end":2,"tp":"t/0","value":"b","offset":1}
{"process":0,"type":"ok","f":"send","time":2,"end":3,"tp":"t/0","value":"c","offset":2}
{"process":1,"type":"ok","f":"poll","time":4,"end":5,"records":{"t/0":[[0,"a"]]}}
{"process":2,"type":"ok","f":"poll","time":4,"end":5,"records":{"t/0":[[2,"c"]]}}
`

func TestCheckCommandValid(t *testing.T) {
	p := writeFile(t, "h.jsonl", cleanJSONL)
	code, out, errs := runCmd("check", "-history", p)
	if code != 0 || errs != "" || !strings.Contains(out, "3 ops: ok (0 errors") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	code, out, _ = runCmd("check", "-history", p, "-json")
	var rep struct {
		OK         bool              `json:"ok"`
		Violations []json.RawMessage `json:"violations"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || !rep.OK || rep.Violations == nil || len(rep.Violations) != 0 {
		t.Fatalf("exit %d, json:\n%s", code, out)
	}
}

func TestCheckCommandViolation(t *testing.T) {
	p := writeFile(t, "h.jsonl", lostJSONL)
	code, out, _ := runCmd("check", "-history", p)
	if code != 1 || !strings.Contains(out, "lost-write") || !strings.Contains(out, "ERROR") || !strings.Contains(out, "broken promise: acks=all") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	code, out, _ = runCmd("check", "-history", p, "-json")
	var rep struct {
		OK         bool `json:"ok"`
		Violations []struct {
			Checker, Anomaly, Partition, Detail string
			Offsets                             []int64
		} `json:"violations"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || rep.OK {
		t.Fatalf("exit %d, err %v, json:\n%s", code, err, out)
	}
	v := rep.Violations[0]
	if len(rep.Violations) != 1 || v.Checker != "anomalies" || v.Anomaly != "lost-write" || v.Partition != "t/0" || v.Detail == "" || v.Offsets[0] != 1 {
		t.Fatalf("violations: %+v", rep.Violations)
	}
	// acks=1 allows the loss: reported, exit 0.
	code, out, _ = runCmd("check", "-history", p, "-acks", "1")
	if code != 0 || !strings.Contains(out, "allowed") {
		t.Fatalf("acks=1: exit %d\n%s", code, out)
	}
}

func TestCheckCommandJepsen(t *testing.T) {
	edn := `{:time 1, :type :invoke, :process 0, :f :send, :value [[:send 3 1] [:send 3 2]]}
{:time 2, :type :ok, :process 0, :f :send, :value [[:send 3 [0 1]] [:send 3 [1 2]]]}
{:time 3, :type :invoke, :process 1, :f :poll, :value [[:poll]]}
{:time 4, :type :ok, :process 1, :f :poll, :value [[:poll {3 [[0 1] [1 2]]}]]}
`
	p := writeFile(t, "history.edn", edn)
	if code, out, errs := runCmd("check", "-history", p); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	// The same file named .txt needs -format.
	p2 := writeFile(t, "history.txt", edn)
	if code, _, _ := runCmd("check", "-history", p2, "-format", "jepsen"); code != 0 {
		t.Fatalf("-format jepsen: exit %d", code)
	}
	if code, out, errs := runCmd("check", "-history", p2); code != 2 || out != "" || !strings.Contains(errs, "history.txt:1:") {
		t.Fatalf("EDN read as jsonl: exit %d\nstdout %q\nstderr %s", code, out, errs)
	}
}

func TestCheckCommandBadInput(t *testing.T) {
	bad := writeFile(t, "bad.jsonl", cleanJSONL+`{"process":0,"type":"okk","f":"send","time":0,"end":1}`+"\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"check", "-history", bad}, `bad.jsonl:4: unknown op type "okk"`},
		{[]string{"check", "-history", filepath.Join(t.TempDir(), "missing.jsonl")}, "missing.jsonl"},
		{[]string{"check"}, "-history FILE is required"},
		{[]string{"check", "-history", bad, "-format", "xml"}, `unknown -format "xml"`},
		{[]string{"check", "-nosuchflag"}, "flag provided but not defined"},
		{[]string{"check", "-history", bad, "-acks", "2"}, `unknown -acks "2"`},
		{[]string{"check", "-history", bad, "-reset", "middle"}, `unknown -reset "middle"`},
	}
	for _, c := range cases {
		code, out, errs := runCmd(c.args...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, %q", c.args, code, out, errs, c.want)
		}
	}
}

func TestCheckCommandVisualization(t *testing.T) {
	// The poll returns a before its send is invoked: only porcupine sees
	// it, and writes its visualization into -out.
	h := `{"process":1,"type":"ok","f":"poll","time":1,"end":2,"records":{"t/0":[[0,"a"]]}}
{"process":0,"type":"ok","f":"send","time":5,"end":6,"tp":"t/0","value":"a","offset":0}
`
	dir := t.TempDir()
	code, out, _ := runCmd("check", "-history", writeFile(t, "h.jsonl", h), "-out", dir)
	if code != 1 || !strings.Contains(out, "nonlinearizable") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "linearizability-t-0.html")); err != nil {
		t.Fatal(err)
	}
}

// A history with an unknown :f, a malformed :txn value or a
// completion or txn line whose type or micro-operations contradict its
// operation (Jepsen EDN, or kafkasim's JSON lines) is
// bad input: file:line, exit 2, nothing on stdout and nothing in -out.
func TestCheckCommandBadJepsenInput(t *testing.T) {
	inv := "{:time 1, :type :invoke, :process 0, :f :txn, :value [[:send :x 1] [:poll]]}\n"
	cases := []struct{ edn, want string }{
		{"{:time 1, :type :invoke, :process 0, :f :read, :value nil}\n", "h.edn:1: unknown :f :read"},
		{"{:time 1, :type :invoke, :process 0, :f :txn, :value {:send 1}}\n", "h.edn:1: :txn value {:send 1}: want a vector of micro-operations"},
		{inv + "{:time 2, :type :ok, :process 0, :f :txn, :value [[:poll {}] [:send :x [0 1]]]}\n", "h.edn:2: micro-operation 0 completes as :poll"},
		{inv + "{:time 2, :type :ok, :process 0, :f :send, :value [[:send :x [0 1]] [:poll {}]]}\n", "h.edn:2: completion :send for process 0 does not match its invocation :txn"},
		{inv + "{:time 2, :type :okay, :process 0, :f :txn, :value [[:send :x [0 1]] [:poll {}]]}\n", "h.edn:2: unknown op type :okay"},
		// kafkasim's own format: one operation's lines disagree on its type.
		{`{"process":0,"type":"ok","f":"send","time":1,"end":2,"tp":"t/0","value":"a","offset":0,"txn":1}` + "\n" +
			`{"process":0,"type":"fail","f":"poll","time":1,"end":2,"txn":1}` + "\n", "h.jsonl:2: txn 1: type fail, but its op 0 has type ok"},
	}
	for _, c := range cases {
		dir := filepath.Join(t.TempDir(), "out")
		name := "h.edn"
		if strings.HasPrefix(c.edn, "{\"") {
			name = "h.jsonl"
		}
		code, out, errs := runCmd("check", "-history", writeFile(t, name, c.edn), "-out", dir)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, nothing, %q", c.edn, code, out, errs, c.want)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%q: -out %s was written", c.edn, dir)
		}
	}
}

// Nothing judged is not a pass: exit 3, saying so. The nearby fine case,
// a history with a poll, exits 0.
func TestCheckCommandUnknown(t *testing.T) {
	empty := writeFile(t, "empty.edn", "{:time 0, :type :invoke, :process 0, :f :assign, :value [:x]}\n{:time 1, :type :ok, :process 0, :f :assign, :value [:x]}\n")
	code, out, errs := runCmd("check", "-history", empty)
	if code != 3 || !strings.Contains(out, ": unknown") || !strings.Contains(out, "nothing to judge") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	polled := writeFile(t, "polled.edn", "{:time 0, :type :invoke, :process 0, :f :poll, :value [[:poll]]}\n{:time 1, :type :ok, :process 0, :f :poll, :value [[:poll {}]]}\n")
	if code, out, errs := runCmd("check", "-history", polled); code != 0 {
		t.Fatalf("a judged empty poll: exit %d\n%s\n%s", code, out, errs)
	}
	if code, _, _ := runCmd("check", "-history", writeFile(t, "none.jsonl", "")); code != 3 {
		t.Fatalf("an empty JSONL history: exit %d, want 3", code)
	}
}

// Findings carry Jepsen's key and verdict: an aborted read is G1a, and
// Jepsen's conclusion is printed beside kafkasim's.
func TestCheckCommandJepsenKeys(t *testing.T) {
	edn := `{:time 0, :type :invoke, :process 0, :f :send, :value [[:send :x 2]]}
{:time 1, :type :fail, :process 0, :f :send, :value [[:send :x 2]]}
{:time 2, :type :invoke, :process 1, :f :poll, :value [[:poll]]}
{:time 3, :type :ok, :process 1, :f :poll, :value [[:poll {:x [[0 2]]}]]}
`
	p := writeFile(t, "g1a.edn", edn)
	code, out, _ := runCmd("check", "-history", p)
	if code != 1 || !strings.Contains(out, "aborted-read (G1a)") || !strings.Contains(out, "jepsen: invalid (error types: G1a; allowed: none)") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	code, out, _ = runCmd("check", "-history", p, "-json")
	var rep checkJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || len(rep.Violations) != 1 ||
		rep.Violations[0].Jepsen != "G1a" || rep.Violations[0].JepsenClass != "error" || rep.Violations[0].Anomaly != "aborted-read" {
		t.Fatalf("exit %d, err %v, json:\n%s", code, err, out)
	}
}
