package reports

import (
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"kafkasim/scenarios"
)

// RunPageFile is a run directory's own page: its verdict, its findings
// with their explanations, the line that replays it, its timeline and
// links to every file beside it.
const RunPageFile = "index.html"

// runFileNotes say what each file of a run directory is, on its page.
var runFileNotes = map[string]string{
	"history.jsonl":      "the clients' history, one operation a line",
	"schedule.txt":       "the run's faults; replay them with -schedule",
	"faults.log":         "what each fault resolved to",
	"result.json":        "the run's whole result",
	"run.json":           "what the checkers judged (kafkasim check -run DIR)",
	"observations.jsonl": "what the cluster was seen to do",
	"replicas.jsonl":     "every replica's final log",
	"trace.json":         "the Chrome trace: open it at ui.perfetto.dev (Open trace file) or in chrome://tracing",
	"timeline.png":       "the timeline (PNG)",
	"timeline.svg":       "the timeline (SVG)",
}

type runPage struct {
	Title, Verdict, Class, Reproduce, Liveness string
	// Kinds are the findings grouped by severity, anomaly and checker,
	// errors first: a run can have hundreds of findings of one kind, and
	// a count of each comes before the timeline, every finding after it.
	Kinds    []findingKind
	Findings int
	Files    []runFile
	Timeline bool
}

type runFinding struct {
	Severity, Checker, Anomaly, Partition, Detail, Promise string
}

// findingKind is the findings of one severity, anomaly and checker.
type findingKind struct {
	ID                         string // the anchor of its list
	Severity, Anomaly, Checker string
	Partitions                 string // the partitions they name, sorted
	// Promise is the promise they all broke, when they share one (it is
	// then said once, not on every row).
	Promise  string
	Findings []runFinding
	// Open: the list starts unfolded (an error kind of a few findings).
	Open bool
}

// kindOpenMax is how many findings an error kind may have for its list to
// start unfolded.
const kindOpenMax = 10

// groupFindings groups fs by severity, anomaly and checker, errors first,
// then by anomaly and checker; within a kind, findings keep their order.
func groupFindings(fs []runFinding) []findingKind {
	var kinds []findingKind
	at := map[[3]string]int{}
	for _, f := range fs {
		k := [3]string{f.Severity, f.Anomaly, f.Checker}
		i, ok := at[k]
		if !ok {
			i = len(kinds)
			at[k] = i
			kinds = append(kinds, findingKind{Severity: f.Severity, Anomaly: f.Anomaly, Checker: f.Checker, Promise: f.Promise})
		}
		kinds[i].Findings = append(kinds[i].Findings, f)
		if kinds[i].Promise != f.Promise {
			kinds[i].Promise = ""
		}
	}
	slices.SortStableFunc(kinds, func(a, b findingKind) int {
		if (a.Severity == "ERROR") != (b.Severity == "ERROR") {
			if a.Severity == "ERROR" {
				return -1
			}
			return 1
		}
		if c := strings.Compare(a.Anomaly, b.Anomaly); c != 0 {
			return c
		}
		return strings.Compare(a.Checker, b.Checker)
	})
	for i := range kinds {
		k := &kinds[i]
		k.ID = "kind-" + uitoa(uint64(i+1))
		var tps []string
		for _, f := range k.Findings {
			if f.Partition != "" && !slices.Contains(tps, f.Partition) {
				tps = append(tps, f.Partition)
			}
		}
		slices.Sort(tps)
		k.Partitions = strings.Join(tps, " ")
		k.Open = k.Severity == "ERROR" && len(k.Findings) <= kindOpenMax
	}
	return kinds
}

type runFile struct{ Name, Note string }

// WriteRunPage writes dir/index.html for the run res, whose other files
// are already in dir: it links every one of them (porcupine's
// visualizations included), so that one page leads to all of a run.
func WriteRunPage(dir string, res scenarios.Result) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	p := runPage{Title: res.Scenario + " seed " + uitoa(res.Seed), Reproduce: scenarios.Reproduce(res.Invocation()), Liveness: res.Liveness}
	switch v := verdictOf(res); v {
	case "pass", "anomaly shown":
		p.Verdict, p.Class = v+": the run went as its scenario expects", "passed"
	case "unknown":
		p.Verdict, p.Class = "unknown: nothing forbidden was found, but not everything could be judged", "unknown"
	default:
		p.Verdict, p.Class = v+": the run did not go as its scenario expects", "failed"
	}
	if res.Expected != "" {
		p.Verdict += " (it expects " + res.Expected + ")"
	}
	var findings []runFinding
	for _, v := range res.Violations {
		f := runFinding{Severity: "allowed", Checker: v.Checker, Anomaly: v.Anomaly, Detail: v.Detail, Promise: v.Promise}
		if v.Error {
			f.Severity = "ERROR"
		}
		if v.Partition.Topic != "" {
			f.Partition = v.Partition.String()
		}
		findings = append(findings, f)
	}
	p.Kinds, p.Findings = groupFindings(findings), len(findings)
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") || n == RunPageFile {
			continue
		}
		note := runFileNotes[n]
		if strings.HasPrefix(n, "linearizability-") && strings.HasSuffix(n, ".html") {
			note = "porcupine's visualization of the partition's history that is not linearizable"
		}
		p.Files = append(p.Files, runFile{n, note})
		p.Timeline = p.Timeline || n == "timeline.png"
	}
	slices.SortFunc(p.Files, func(a, b runFile) int { return strings.Compare(a.Name, b.Name) })
	return WriteFile(filepath.Join(dir, RunPageFile), func(w io.Writer) error { return runPageTemplate.Execute(w, p) })
}

func uitoa(n uint64) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

var runPageTemplate = template.Must(template.New("run").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"><link rel="icon" href="data:,">
<title>kafkasim {{.Title}}</title>
<style>
body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; padding: 0 1em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 90%; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
pre { background: #f6f6f6; padding: 6px; }
img { width: 100%; height: auto; }
.banner { padding: 12px 16px; border-radius: 4px; font-size: 120%; margin: 1em 0; }
.passed { background: #e3f4e3; border: 1px solid #2c7a2c; }
.failed { background: #fbe3e3; border: 1px solid #b22222; }
.unknown { background: #fff4d6; border: 1px solid #a07000; }
.ERROR { color: #b22222; font-weight: bold; }
details { margin: .5em 0; }
summary { cursor: pointer; }
</style>
</head>
<body>
<h1>kafkasim {{.Title}}</h1>
<div class="banner {{.Class}}" id="verdict">{{.Verdict}}</div>
{{with .Liveness}}<p>liveness: {{.}}</p>{{end}}
<h2>Reproduce</h2>
<pre id="reproduce">{{.Reproduce}}</pre>
<button type="button" id="copy">copy</button> <span id="copied"></span>
<h2>Findings</h2>
{{if .Kinds}}<p>{{.Findings}} finding{{if ne .Findings 1}}s{{end}} of {{len .Kinds}} kind{{if ne (len .Kinds) 1}}s{{end}}; each kind's findings are listed <a href="#findings-list">below the timeline</a>.</p>
<table id="kinds"><tr><th>severity</th><th>anomaly</th><th>checker</th><th>findings</th><th>partitions</th></tr>
{{range .Kinds}}<tr><td class="{{.Severity}}">{{.Severity}}</td><td><a href="#{{.ID}}">{{.Anomaly}}</a></td><td>{{.Checker}}</td><td>{{len .Findings}}</td><td>{{.Partitions}}</td></tr>
{{end}}</table>{{else}}<p>No checker found anything.</p>{{end}}
{{if .Timeline}}<h2>Timeline</h2>
<p>Fault windows are shaded and labelled with the fault and its node.</p>
<img src="timeline.png" alt="the run's timeline"> (<a href="timeline.svg">SVG</a>)
{{end}}<h2>Files</h2>
<ul>{{range .Files}}<li><a href="{{.Name}}">{{.Name}}</a>{{with .Note}}: {{.}}{{end}}</li>
{{end}}</ul>
<p>To look at the Chrome trace, open <code>trace.json</code> at ui.perfetto.dev with "Open trace file" (it stays in the browser; nothing is uploaded), or load it in chrome://tracing.</p>
<script>
document.getElementById("copy").addEventListener("click", function () {
  var text = document.getElementById("reproduce").textContent, done = document.getElementById("copied");
  if (navigator.clipboard) {
    navigator.clipboard.writeText(text).then(function () { done.textContent = "copied"; }, function () { done.textContent = "select the text above to copy it"; });
  } else {
    done.textContent = "select the text above to copy it";
  }
});
</script>
{{if .Kinds}}<h2 id="findings-list">Every finding</h2>
{{range .Kinds}}<details id="{{.ID}}"{{if .Open}} open{{end}}><summary><span class="{{.Severity}}">{{.Severity}}</span> {{.Anomaly}} ({{.Checker}}): {{len .Findings}}</summary>
{{with .Promise}}<p>The promise broken: {{.}}</p>{{end}}
<table class="findings"><tr><th>partition</th><th>explanation</th>{{if not .Promise}}<th>promise</th>{{end}}</tr>
{{$shared := .Promise}}{{range .Findings}}<tr><td>{{.Partition}}</td><td>{{.Detail}}</td>{{if not $shared}}<td>{{.Promise}}</td>{{end}}</tr>
{{end}}</table></details>
{{end}}{{end}}</body>
</html>
`))
