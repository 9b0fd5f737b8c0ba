package reports

import (
	"html/template"
	"path"
)

// indexTemplate is a sweep's index.html: one self-contained page (no
// script, no external style) that any browser opens from disk, linking
// the plots and artifacts beside it by relative paths.
var indexTemplate = template.Must(template.New("index").Funcs(template.FuncMap{"base": path.Base}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>kafkasim sweep</title>
<style>
body { font-family: sans-serif; margin: 2em; max-width: 1100px; }
table { border-collapse: collapse; margin: 1em 0; font-size: 90%; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
th { background: #f3f3f3; }
pre { background: #f6f6f6; padding: 6px; }
figure { margin: 1em 0; }
img { max-width: 100%; }
</style>
</head>
<body>
<h1>kafkasim sweep</h1>
{{with .Command}}<p><code>{{.}}</code> ({{$.Runs}} runs)</p>{{end}}
<ul>{{range .Provenance}}<li>{{.}}</li>{{end}}</ul>
<h2>Summary</h2>
{{template "table" .Summary}}
<h2>Failover latency</h2>
<p>Virtual seconds, over every failover of the group's runs; "-": none measured.</p>
{{range .Latency}}{{template "table" .}}{{end}}
{{range .Figures}}<figure><img src="{{.SVG}}" alt="{{.Caption}}"><figcaption>{{.Caption}} (<a href="{{.PNG}}">PNG</a>, <a href="{{.SVG}}">SVG</a>)</figcaption></figure>
{{end}}
{{with .Controllers}}<h2>Controller failover</h2>
<p>Virtual seconds from the fault that took the active controller (the metadata quorum's leader) away: to the election of a leader of a higher epoch, and to the first metadata entry committed under it, beside partition-leader failover.</p>
{{template "table" .Table}}
{{with .Figure}}<figure><img src="{{.SVG}}" alt="{{.Caption}}"><figcaption>{{.Caption}} (<a href="{{.PNG}}">PNG</a>, <a href="{{.SVG}}">SVG</a>)</figcaption></figure>{{end}}
{{end}}{{if .Failing}}<h2>Failing runs</h2>
{{range .Failing}}<h3>{{.Label}}</h3>
<pre>{{.Reproduce}}</pre>
{{range .Problems}}<div><code>{{.}}</code></div>{{end}}
{{with .Dir}}<p><a href="{{.}}/">artifacts</a></p>{{end}}
{{end}}{{if .More}}<p>... and {{.More}} more (see results.jsonl)</p>{{end}}{{end}}
{{if .Replayed}}<h2>Replayed runs</h2>
<ul>{{range .Replayed}}<li>{{.Name}}:{{range .Files}} <a href="{{.}}">{{base .}}</a>{{end}}</li>
{{end}}</ul>{{end}}
<p><a href="results.jsonl">results.jsonl</a> · <a href="summary.md">summary.md</a></p>
</body>
</html>
{{define "table"}}<table>
<tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>{{end}}
`))
