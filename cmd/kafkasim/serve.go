package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"slices"
	"strings"

	"kafkasim/reports"
	"kafkasim/scenarios"
)

func init() {
	commands["serve"] = command{summary: "serve the run store's runs, sweeps and reports on localhost", run: runServe}
}

// runServe is `kafkasim serve [-addr 127.0.0.1:8080] STORE`: the run
// store over HTTP, for a browser on this machine. Every file is read
// through an os.Root opened on the store, which refuses a name with ".."
// and a symbolic link that leads out of the store, so nothing outside it
// is ever served, whatever the request's path.
func runServe(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("kafkasim serve", flag.ContinueOnError)
	fset.SetOutput(stderr)
	addr := fset.String("addr", "127.0.0.1:8080", "`host:port` to listen on (the default is reachable from this machine only)")
	fset.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkasim serve [-addr 127.0.0.1:8080] STORE")
		fset.PrintDefaults()
	}
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fset.NArg() != 1 {
		fset.Usage()
		return 2
	}
	root, err := os.OpenRoot(fset.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim serve: %v\n", err)
		return 2
	}
	defer root.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim serve: %v\n", err)
		return 2
	}
	fmt.Fprintf(stdout, "serving %s at http://%s/ (Ctrl-C stops)\n", fset.Arg(0), ln.Addr())
	if err := http.Serve(ln, storeHandler(root)); err != nil {
		fmt.Fprintf(stderr, "kafkasim serve: %v\n", err)
		return 2
	}
	return 0
}

// storeHandler serves the store: "/" lists its runs and sweeps, newest
// first; "/files/..." is the store's files (a sweep's index.html, a run's
// folder); "/diff?a=DIR&b=DIR" compares two runs' or sweeps' verdicts and
// failover figures.
func storeHandler(root *os.Root) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/files/", http.StripPrefix("/files", http.FileServerFS(root.FS())))
	mux.HandleFunc("/diff", func(w http.ResponseWriter, r *http.Request) { serveDiff(w, r, root) })
	// Pages that name no icon (porcupine's visualization) make a browser
	// ask for /favicon.ico; an empty answer spares its console a 404.
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		entries, err := storeEntries(root.FS())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := storeListTemplate.Execute(w, entries); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	return mux
}

// storeEntry is one run or sweep folder of the store.
type storeEntry struct {
	Path, Name, Time, Kind string
	Report                 bool // it has an index.html
}

// storeEntries lists store/<name>/<time>/ folders, newest first (the
// time names sort as times; ties by name).
func storeEntries(fsys fs.FS) ([]storeEntry, error) {
	names, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var out []storeEntry
	for _, n := range names {
		if !n.IsDir() || strings.HasPrefix(n.Name(), ".") {
			continue // latest and other links are listed through their targets
		}
		times, err := fs.ReadDir(fsys, n.Name())
		if err != nil {
			return nil, err
		}
		for _, t := range times {
			if !t.IsDir() || strings.HasPrefix(t.Name(), ".") {
				continue
			}
			p := n.Name() + "/" + t.Name()
			e := storeEntry{Path: p, Name: n.Name(), Time: t.Name(), Kind: "run"}
			if _, err := fs.Stat(fsys, p+"/results.jsonl"); err == nil {
				e.Kind = "sweep"
			}
			if _, err := fs.Stat(fsys, p+"/index.html"); err == nil {
				e.Report = true
			}
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b storeEntry) int {
		if c := strings.Compare(b.Time, a.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
}

var storeListTemplate = template.Must(template.New("store").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>kafkasim store</title>
<style>body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; } table { border-collapse: collapse; } th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }</style>
</head><body>
<h1>kafkasim run store</h1>
<p>Newest first. To compare two, pick them and press "diff".</p>
<form action="/diff" method="get">
<table id="store"><tr><th>started (UTC)</th><th>scenario or sweep</th><th>kind</th><th>open</th><th>a</th><th>b</th></tr>
{{range $i, $e := .}}<tr><td>{{.Time}}</td><td>{{.Name}}</td><td>{{.Kind}}</td><td>{{if .Report}}<a href="/files/{{.Path}}/index.html">report</a> · {{end}}<a href="/files/{{.Path}}/">files</a></td><td><input type="radio" name="a" value="{{.Path}}"{{if eq $i 0}} checked{{end}}></td><td><input type="radio" name="b" value="{{.Path}}"{{if eq $i 1}} checked{{end}}></td></tr>
{{else}}<tr><td colspan="6">The store is empty: kafkasim run and kafkasim sweep write into it.</td></tr>{{end}}</table>
<p><button type="submit">diff</button></p>
</form></body></html>
`))

// serveDiff compares two store folders (runs or sweeps): each side's
// verdict, then every group's verdict counts and failover figures side by
// side with what changed (reports.DiffTable), then each side's summary
// and latency tables whole.
func serveDiff(w http.ResponseWriter, r *http.Request, root *os.Root) {
	page := diffPage{}
	var groups [2][]reports.Group
	for i, k := range []string{"a", "b"} {
		p := r.URL.Query().Get(k)
		results, err := storeResults(root.FS(), p)
		if err != nil {
			http.Error(w, fmt.Sprintf("%s=%s: %v", k, p, err), http.StatusBadRequest)
			return
		}
		s := summaryOf(results)
		groups[i] = s.Groups()
		page.Sides = append(page.Sides, diffSide{Name: k, Path: p, Verdict: s.Verdict(),
			Summary: reports.SummaryTable(groups[i]), Latency: reports.LatencyTable(groups[i], reports.Unavailable)})
	}
	page.Diff = reports.DiffTable(groups[0], groups[1])
	for _, row := range page.Diff.Rows {
		if row[4] != "" {
			page.Changed++
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := diffTemplate.Execute(w, page); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

type diffPage struct {
	Sides   []diffSide
	Diff    reports.Table
	Changed int // rows of Diff with a change
}

type diffSide struct {
	Name, Path, Verdict string
	Summary, Latency    reports.Table
}

// storeResults reads a sweep's results.jsonl or a run's result.json from
// the store folder p (a path inside the store, checked as fs.ValidPath).
func storeResults(fsys fs.FS, p string) ([]scenarios.Result, error) {
	p = strings.Trim(p, "/")
	if !fs.ValidPath(p) || p == "." {
		return nil, errors.New("not a folder of the store")
	}
	if f, err := fsys.Open(path.Join(p, "results.jsonl")); err == nil {
		defer f.Close()
		var out []scenarios.Result
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<30)
		for line := 1; sc.Scan(); line++ {
			var res scenarios.Result
			if err := json.Unmarshal(sc.Bytes(), &res); err != nil {
				return nil, fmt.Errorf("results.jsonl:%d: %v", line, err)
			}
			out = append(out, res)
		}
		return out, sc.Err()
	}
	b, err := fs.ReadFile(fsys, path.Join(p, "result.json"))
	if err != nil {
		return nil, errors.New("holds neither results.jsonl nor result.json")
	}
	var res scenarios.Result
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("result.json: %v", err)
	}
	return []scenarios.Result{res}, nil
}

var diffTemplate = template.Must(template.New("diff").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>kafkasim diff</title>
<style>body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; } table { border-collapse: collapse; margin: 1em 0; font-size: 90%; } th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
tr.changed td { background: #fff4d6; } td.change { font-weight: bold; }</style>
</head><body><h1>kafkasim diff</h1><p><a href="/">the store</a></p>
<ul id="sides">{{range .Sides}}<li><strong>{{.Name}}</strong>: <a href="/files/{{.Path}}/">{{.Path}}</a>: {{.Verdict}}</li>{{end}}</ul>
<h2>What changed</h2>
<p id="changed">{{if .Changed}}{{.Changed}} figure{{if ne .Changed 1}}s{{end}} changed from a to b (highlighted); failover figures are virtual seconds.{{else}}Nothing changed: every group's verdicts and failover figures are the same in a and b.{{end}}</p>
<table id="diff"><tr>{{range .Diff.Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Diff.Rows}}<tr{{if index . 4}} class="changed"{{end}}><td>{{index . 0}}</td><td>{{index . 1}}</td><td>{{index . 2}}</td><td>{{index . 3}}</td><td class="change">{{index . 4}}</td></tr>
{{end}}</table>
{{range .Sides}}<h2>{{.Name}}: {{.Path}}</h2>
<h3>Verdicts and failovers by group</h3>{{template "table" .Summary}}
<h3>Write-unavailability window, seconds</h3>{{template "table" .Latency}}
{{end}}</body></html>
{{define "table"}}<table><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</table>{{end}}
`))
