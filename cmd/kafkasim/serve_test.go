package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	root, err := os.OpenRoot(store)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	srv := httptest.NewServer(storeHandler(root))
	t.Cleanup(srv.Close)
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
