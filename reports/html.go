package reports

import (
	"html/template"
	"path"
)

// indexTemplate is a sweep's index.html: one self-contained page (its
// style and its one small script inline, nothing fetched from the network)
// that any browser opens from disk, linking the plots and artifacts beside
// it by relative paths. The verdict comes first; the per-run table sorts
// by a click on a heading and filters by scenario, verdict, anomaly and
// -vary value, and without script it is still a plain table.
var indexTemplate = template.Must(template.New("index").Funcs(template.FuncMap{"base": path.Base}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"><link rel="icon" href="data:,">
<title>kafkasim sweep</title>
<style>
body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; padding: 0 1em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 90%; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
th { background: #f3f3f3; }
#runs th { cursor: pointer; user-select: none; }
#runs th[aria-sort=ascending]::after { content: " \25B2"; }
#runs th[aria-sort=descending]::after { content: " \25BC"; }
pre { background: #f6f6f6; padding: 6px; }
figure { margin: 1em 0; }
img { width: 100%; height: auto; }
.banner { padding: 12px 16px; border-radius: 4px; font-size: 120%; margin: 1em 0; }
.passed { background: #e3f4e3; border: 1px solid #2c7a2c; }
.failed { background: #fbe3e3; border: 1px solid #b22222; }
.unknown { background: #fff4d6; border: 1px solid #a07000; }
.legend { list-style: none; padding: 0; columns: 2; font-size: 90%; }
.legend.panels { list-style: decimal inside; }
.note { font-size: 85%; color: #555; }
.swatch { display: inline-block; width: 2em; height: 0; border-top: 3px solid; vertical-align: middle; margin-right: .5em; }
.filters label { margin-right: 1em; }
td.FAIL, td.anomaly-not-shown { color: #b22222; font-weight: bold; }
</style>
</head>
<body>
<h1>kafkasim sweep</h1>
{{if .Passed}}<div class="banner passed" id="verdict">Passed: all {{.Runs}} runs went as their scenarios expect{{if .Shown}} ({{.Shown}} of them by showing the anomaly their bug scenario reproduces){{end}}.</div>
{{else if .FailingRuns}}<div class="banner failed" id="verdict"><strong>{{.FailingRuns}} failing run{{if ne .FailingRuns 1}}s{{end}}</strong> of {{.Runs}}: <a href="#failing">list</a> · <a href="#runs-section" data-verdict="FAIL">show them in the table</a></div>
{{else if .Unknown}}<div class="banner unknown" id="verdict">Not everything could be judged: no violation found, but some verdicts are unknown (<a href="#runs-section" data-verdict="unknown">show them</a>).</div>
{{else}}<div class="banner failed" id="verdict">Not as expected: a bug scenario did not show its anomaly on any seed (<a href="#runs-section" data-verdict="anomaly not shown">show them</a>).</div>
{{end}}{{with .Command}}<p><code>{{.}}</code> ({{$.Runs}} runs)</p>{{end}}
<ul>{{range .Provenance}}<li>{{.}}</li>{{end}}</ul>
<h2>Summary by group</h2>
{{template "table" .Summary}}
{{if .Anomalies.Rows}}<h2>Anomalies</h2>
<p>Runs that showed each anomaly at error level (a run counts once per anomaly).</p>
{{template "table" .Anomalies}}{{end}}
<h2 id="runs-section">Runs</h2>
<div class="filters">
<label>scenario <select id="f-scenario" data-col="0"><option value="">all</option>{{range .Filters.Scenarios}}<option>{{.}}</option>{{end}}</select></label>
<label>verdict <select id="f-verdict" data-col="3"><option value="">all</option>{{range .Filters.Verdicts}}<option>{{.}}</option>{{end}}</select></label>
<label>anomaly <select id="f-anomaly" data-col="4" data-word="1"><option value="">all</option>{{range .Filters.Anomalies}}<option>{{.}}</option>{{end}}</select></label>
{{if .Filters.Varies}}<label>-vary <select id="f-vary" data-col="2"><option value="">all</option>{{range .Filters.Varies}}<option>{{.}}</option>{{end}}</select></label>{{end}}
<span id="shown"></span>
</div>
<table id="runs">
<thead><tr><th>scenario</th><th data-num="1">seed</th><th>-vary</th><th>verdict</th><th>anomalies</th><th data-num="1">failovers</th><th>replayed</th></tr></thead>
<tbody>
{{range .Rows}}<tr><td>{{.Scenario}}</td><td>{{.Seed}}</td><td>{{.Vary}}</td><td class="{{.Verdict}}">{{.Verdict}}</td><td>{{.AnomalyList}}</td><td>{{.Failovers}}</td><td>{{with .Dir}}<a href="{{.}}/">files</a>{{end}}</td></tr>
{{end}}</tbody></table>
{{if .MoreRows}}<p>... and {{.MoreRows}} more runs (see results.jsonl).</p>{{end}}
<h2>Failover latency</h2>
<p>Virtual seconds, over every failover of the group's runs; "-": none measured. "unelected" failovers saw no other leader and "truncated" ones lost acknowledged offsets.</p>
{{range $i, $t := .Latency}}<h3>{{if eq $i 0}}Write-unavailability window (last acknowledged write before the election to the first after), seconds{{else}}Time from the fault to the election of another leader, seconds{{end}}</h3>
{{template "table" $t}}{{end}}
{{range .Figures}}{{template "figure" .}}{{else}}<p>No failover was measured, so there is nothing to plot.</p>{{end}}
{{with .Controllers}}<h2>Controller failover</h2>
<p>Virtual seconds from the fault that took the active controller (the metadata quorum's leader) away: to the election of a leader of a higher epoch, and to the first metadata entry committed under it, beside partition-leader failover.</p>
{{template "table" .Table}}
{{with .Figure}}{{template "figure" .}}{{end}}
{{end}}{{if .Failing}}<h2 id="failing">Failing runs</h2>
{{range .Failing}}<h3>{{.Label}}</h3>
<pre>{{.Reproduce}}</pre>
{{range .Problems}}<div><code>{{.}}</code></div>{{end}}
{{with .Dir}}<p><a href="{{.}}/">artifacts</a></p>{{end}}
{{end}}{{if .More}}<p>... and {{.More}} more (see results.jsonl)</p>{{end}}{{end}}
{{if .Replayed}}<h2>Replayed runs</h2>
<ul>{{range .Replayed}}<li>{{.Name}}:{{range .Files}} <a href="{{.}}">{{base .}}</a>{{end}}</li>
{{end}}</ul>{{end}}
<p><a href="results.jsonl">results.jsonl</a> · <a href="summary.md">summary.md</a></p>
<script>
(function () {
  var table = document.getElementById("runs"), body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var selects = document.querySelectorAll(".filters select");
  function filter() {
    var shown = 0;
    rows.forEach(function (r) {
      var ok = true;
      selects.forEach(function (s) {
        if (!s.value) return;
        var cell = r.cells[+s.dataset.col].textContent;
        if (s.dataset.word ? cell.split(" ").indexOf(s.value) < 0 : cell !== s.value) ok = false;
      });
      r.hidden = !ok;
      if (ok) shown++;
    });
    document.getElementById("shown").textContent = shown + " of " + rows.length + " runs shown";
  }
  selects.forEach(function (s) { s.addEventListener("change", filter); });
  table.tHead.querySelectorAll("th").forEach(function (th, col) {
    th.addEventListener("click", function () {
      var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
      table.tHead.querySelectorAll("th").forEach(function (o) { o.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
      var num = th.dataset.num;
      rows.sort(function (a, b) {
        var x = a.cells[col].textContent, y = b.cells[col].textContent;
        return dir * (num ? x - y : x.localeCompare(y));
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
  document.querySelectorAll("a[data-verdict]").forEach(function (a) {
    a.addEventListener("click", function () {
      var s = document.getElementById("f-verdict");
      s.value = a.dataset.verdict;
      filter();
    });
  });
  filter();
})();
</script>
</body>
</html>
{{define "table"}}<table>
<tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{define "figure"}}<figure><img src="{{.PNG}}" width="{{.Width}}" height="{{.Height}}" alt="{{.Caption}}"><figcaption>{{.Caption}}{{if .Panels}}: one panel per series, more than one plot could keep apart, on shared axes{{end}} (<a href="{{.PNG}}">PNG</a>, <a href="{{.SVG}}">SVG</a>)</figcaption>
{{if .Panels}}<ol class="legend panels">{{range .Legend}}<li>{{.Label}} ({{.Note}})</li>{{end}}</ol>{{else}}<ul class="legend">{{range .Legend}}<li><span class="swatch" style="border-top-color: {{.Color}}{{if .Dashed}}; border-top-style: dashed{{end}}"></span>{{.Label}} ({{.Note}})</li>{{end}}</ul>{{end}}
{{with .Zoomed}}<p class="note">{{.}}</p>{{end}}{{if .Short}}<p class="note">{{.UnmeasuredNote}}</p>{{end}}</figure>
{{end}}
`))
