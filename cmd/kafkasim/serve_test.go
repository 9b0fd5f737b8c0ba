package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kafkasim/checkers"
)

// serveFixture is a store with one sweep folder (and a latest link to it)
// beside a secret file and folder outside the store, reached by symbolic
// links from inside.
func serveFixture(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	top := t.TempDir()
	store := filepath.Join(top, "store")
	sweep := filepath.Join(store, "safe", "20261201T000000.000Z")
	outside := filepath.Join(top, "outside")
	for _, d := range []string{sweep, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(sweep, "index.html"), "<p>the report</p>")
	write(filepath.Join(top, "secret.txt"), "SECRET-FILE")
	write(filepath.Join(outside, "secret.txt"), "SECRET-DIR")
	for link, target := range map[string]string{
		filepath.Join(store, "latest"):            "safe/20261201T000000.000Z",
		filepath.Join(store, "escape-dir"):        outside,
		filepath.Join(store, "escape-file"):       filepath.Join(top, "secret.txt"),
		filepath.Join(store, "safe", "rel-up"):    "../../outside",
		filepath.Join(sweep, "escape-relative"):   "../../../secret.txt",
		filepath.Join(store, "safe", "inside-ok"): "20261201T000000.000Z/index.html",
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	srv := serveStore(t, store)
	return srv, top
}

// rawGet sends path exactly as written (no client-side cleaning or
// escaping) and returns the status and body.
func rawGet(t *testing.T, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", path)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServeRefusesPathsOutOfTheStore(t *testing.T) {
	srv, _ := serveFixture(t)
	for _, p := range []string{
		"/files/../secret.txt", "/files/../../secret.txt", "/files/%2e%2e/secret.txt", "/files/%2E%2E/%2e%2e/secret.txt",
		"/files/..%2fsecret.txt", "/files/%2e%2e%2fsecret.txt", "/files/safe/..%2f..%2fsecret.txt", "/files/..%5csecret.txt",
		"/files/%252e%252e/secret.txt", "/files//../secret.txt", "/files/./../secret.txt",
		"/files/escape-dir/secret.txt", "/files/escape-file", "/files/safe/rel-up/secret.txt",
		"/files/safe/20261201T000000.000Z/escape-relative", "/files/escape-dir/",
		"/diff?a=../outside&b=safe/20261201T000000.000Z", "/diff?a=escape-dir&b=escape-dir",
	} {
		code, body := rawGet(t, srv, p)
		if strings.Contains(body, "SECRET") {
			t.Errorf("GET %s served a file outside the store (%d)", p, code)
		}
		if code == http.StatusOK {
			t.Errorf("GET %s: status 200, want a refusal", p)
		}
	}
}

func TestServeServesTheStore(t *testing.T) {
	srv, _ := serveFixture(t)
	for p, want := range map[string]string{
		"/files/safe/20261201T000000.000Z/": "the report",
		"/files/latest/":                    "the report", // a link inside the store is fine
		"/files/safe/inside-ok":             "the report",
		"/":                                 "safe/20261201T000000.000Z/index.html",
	} {
		code, body := rawGet(t, srv, p)
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("GET %s: %d, body lacks %q:\n%s", p, code, want, body)
		}
	}
}

func TestServeBindsLocalhostByDefault(t *testing.T) {
	var stderr strings.Builder
	fs := flagDefaults(t, "serve")
	if fs != "127.0.0.1:8080" {
		t.Fatalf("-addr defaults to %q", fs)
	}
	if code := dispatch([]string{"serve"}, io.Discard, &stderr); code != 2 {
		t.Errorf("serve without a store: exit %d, want 2", code)
	}
	if code := dispatch([]string{"serve", filepath.Join(t.TempDir(), "none")}, io.Discard, &stderr); code != 2 {
		t.Errorf("serve of a missing store: exit %d, want 2", code)
	}
}

// flagDefaults reads -addr's default from the command's help.
func flagDefaults(t *testing.T, name string) string {
	var stderr strings.Builder
	commands[name].run([]string{"-h"}, io.Discard, &stderr)
	help := stderr.String()
	i := strings.Index(help, `(default "`)
	if i < 0 {
		t.Fatalf("no default in help:\n%s", help)
	}
	rest := help[i+len(`(default "`):]
	return rest[:strings.Index(rest, `"`)]
}

// diffStore is a store of two sweeps of the same 20 runs, b's failovers
// 1.5 s slower and its seed 1 failing too, and one run folder.
func diffStore(t *testing.T) *httptest.Server {
	t.Helper()
	store := t.TempDir()
	a := syntheticResults(20)
	b := syntheticResults(20)
	for i := range b {
		b[i].Failovers[0].Unavailable += 1500 * time.Millisecond
	}
	b[0].OK, b[0].AsExpected, b[0].Valid = false, false, checkers.ValidViolation
	b[0].Violations = []checkers.Violation{{Checker: "loss", Anomaly: checkers.LostWrite, Error: true}}
	writeSyntheticSweep(t, filepath.Join(store, "safe", "20261201T000000.000Z"), a)
	writeSyntheticSweep(t, filepath.Join(store, "safe", "20261202T000000.000Z"), b)
	run := filepath.Join(store, "leader-failover", "20261203T000000.000Z")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(a[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "result.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(store, "safe", "20261204T000000.000Z")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "results.jsonl"), append(append(js, '\n'), "{not json\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	return serveStore(t, store)
}

func TestServeDiffComparesVerdictsAndFailoverFigures(t *testing.T) {
	srv := diffStore(t)
	const a, b = "safe/20261201T000000.000Z", "safe/20261202T000000.000Z"
	code, body := rawGet(t, srv, "/diff?a="+a+"&b="+b)
	if code != http.StatusOK {
		t.Fatalf("diff: %d\n%s", code, body)
	}
	// 20 runs, failing every tenth from the fourth: 2 failing in a, 3 in b.
	for _, want := range []string{
		"<strong>a</strong>: <a href=\"/files/" + a + "/\">" + a + "</a>: 2 failing of 20 runs",
		"<strong>b</strong>: <a href=\"/files/" + b + "/\">" + b + "</a>: 3 failing of 20 runs",
		// Seeds 4 and 14 fail in both, in group 9000; seed 1 fails in b
		// only, in group 3000 (html/template writes + as &#43;).
		`<tr class="changed"><td>broker.session.timeout.ms=3000</td><td>failed</td><td>0</td><td>1</td><td class="change">&#43;1</td></tr>`,
		`<td>broker.session.timeout.ms=3000</td><td>unavailable p50</td>`,
		`<tr><td>broker.session.timeout.ms=9000</td><td>failed</td><td>2</td><td>2</td><td class="change"></td></tr>`,
		`<tr><td>broker.session.timeout.ms=9000</td><td>election p50</td>`,
		"figures changed from a to b",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the diff lacks %s", want)
		}
	}
	if n := strings.Count(body, `class="change">&#43;1.500s<`); n != 4 {
		t.Errorf("%d unavailable quantiles moved by +1.500s, want p50 and p99 of both groups", n)
	}
	// A sweep against itself: nothing changed.
	if _, same := rawGet(t, srv, "/diff?a="+a+"&b="+a); !strings.Contains(same, "Nothing changed") || strings.Contains(same, `class="changed"`) {
		t.Error("a sweep diffed with itself shows a change")
	}
	// A run's folder compares as a one-run sweep.
	if code, run := rawGet(t, srv, "/diff?a=leader-failover/20261203T000000.000Z&b="+a); code != http.StatusOK || !strings.Contains(run, "passed: all 1 runs") {
		t.Errorf("diff of a run folder: %d", code)
	}
}

func TestServeDiffRefusesBadInput(t *testing.T) {
	srv := diffStore(t)
	for p, want := range map[string]string{
		"/diff?a=safe/20261201T000000.000Z":                             "b=: not a folder of the store",
		"/diff?a=safe&b=safe/20261201T000000.000Z":                      "a=safe: holds neither results.jsonl nor result.json",
		"/diff?a=safe/20261204T000000.000Z&b=safe/20261201T000000.000Z": "results.jsonl:2:",
		"/diff?a=/etc&b=safe/20261201T000000.000Z":                      "a=/etc: holds neither",
	} {
		code, body := rawGet(t, srv, p)
		if code != http.StatusBadRequest || !strings.Contains(body, want) {
			t.Errorf("GET %s: %d %q, want 400 saying %q", p, code, body, want)
		}
	}
}

// serveStore serves dir as kafkasim serve does, until the test ends.
func serveStore(t *testing.T, dir string) *httptest.Server {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	srv := httptest.NewServer(storeHandler(root))
	t.Cleanup(srv.Close)
	return srv
}
