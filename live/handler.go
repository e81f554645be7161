package live

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"os"
	"runtime/debug"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
)

// Handler serves the monitor: a small HTML page with the current figures,
// findings, triggers and snapshots (with download links); the same data as
// JSON with ?format=json; and the snapshot files under snapshots/NAME.
//
// Mount it on a localhost-only or authenticated mux: the page shows the
// program's figures and the traces hold its stacks and function names.
// It works mounted at any prefix, with or without http.StripPrefix.
func (m *Monitor) Handler() http.Handler {
	return http.HandlerFunc(m.serve)
}

// Report is the JSON document Handler serves: the shape of every schedoctor
// command's -json output.
type Report struct {
	Source   string            `json:"source"`
	Findings []finding.Finding `json:"findings"`
	Summary  State             `json:"summary"`
}

func (m *Monitor) serve(w http.ResponseWriter, r *http.Request) {
	defer func() {
		// A panic here must not reach the host's server; it becomes a 500
		// and an error on the page.
		if p := recover(); p != nil {
			m.record(fmt.Errorf("recovered panic in the handler: %v\n%s", p, debug.Stack()))
			http.Error(w, "internal error in the schedoctor live handler", http.StatusInternalServerError)
		}
	}()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if i := strings.LastIndex(r.URL.Path, "snapshots/"); i >= 0 {
		m.serveSnapshot(w, r, r.URL.Path[i+len("snapshots/"):])
		return
	}
	st := m.State()
	if r.URL.Query().Get("format") == "json" {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		fs := st.Findings
		if fs == nil {
			fs = []finding.Finding{}
		}
		enc.Encode(Report{Source: "live", Findings: fs, Summary: st})
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// Links are relative to the page: "snapshots/NAME" resolves under the
	// mount point when the page is served at a path ending in "/".
	base := ""
	if !strings.HasSuffix(r.URL.Path, "/") {
		base = r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:] + "/"
	}
	// An error here is the client's connection failing: nothing to report.
	_ = page.Execute(w, struct {
		State
		Base string
	}{st, base})
}

func (m *Monitor) serveSnapshot(w http.ResponseWriter, r *http.Request, name string) {
	f, s, err := m.open(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			http.NotFound(w, r)
			return
		}
		http.Error(w, "snapshot unreadable", http.StatusInternalServerError)
		m.record(err)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="`+s.Name+`"`)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, s.Name, s.Time, f)
}

var page = template.Must(template.New("live").Funcs(template.FuncMap{
	"pct":  func(v float64) float64 { return round(v*100, 1) },
	"secs": func(v float64) string { return fmtDur(secDur(v)) },
}).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>schedoctor live</title>
<style>body{font-family:sans-serif;margin:1em 2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
.critical{color:#b00}.warning{color:#a60}</style></head><body>
<h1>schedoctor live</h1>
<p>{{.Time.UTC.Format "2006-01-02 15:04:05Z"}} · {{.Readings}} readings over {{printf "%.0f" .Window}}s every {{.Interval}}s · <a href="?format=json">JSON</a></p>
<h2>Now</h2>
<table>
<tr><th>GOMAXPROCS</th><td>{{.GOMAXPROCS}}</td></tr>
<tr><th>goroutines</th><td>{{.Goroutines.Total}} (runnable {{.Goroutines.Runnable}}, running {{.Goroutines.Running}}, waiting {{.Goroutines.Waiting}}, not in Go {{.Goroutines.NotInGo}}); created {{.Goroutines.CreatedPerS}}/s</td></tr>
<tr><th>runnable per P</th><td>{{.RunnablePerP}} now, {{.RunnablePerPMean}} mean over {{.Latency.Span}}s</td></tr>
<tr><th>threads</th><td>{{.Threads}}</td></tr>
<tr><th>scheduling latency</th><td>last {{.Latency.Span}}s, {{.Latency.Sampled}} sampled transitions (one in eight): p50 {{.Latency.P50}}, p90 {{.Latency.P90}}, p99 {{.Latency.P99}} (95% interval {{secs .Latency.P99Low}}–{{.Latency.P99High}}), p99.9 {{.Latency.P999}}, max {{.Latency.Max}}</td></tr>
<tr><th>GC</th><td>{{.GC.Cycles}} cycles ({{.GC.Forced}} forced), {{pct .GC.CPUShare}}% of used CPU, {{.GC.PauseCount}} pauses, p99 {{.GC.PauseP99}}, max {{.GC.PauseMax}}</td></tr>
<tr><th>mutex wait</th><td>{{.MutexWait}} s/s</td></tr>
<tr><th>flight recorder</th><td>{{.FlightRecorder}} · {{.Dir}}{{if .DirRefused}} (refused: {{.DirRefused}}){{end}}</td></tr>
</table>
<h2>Findings</h2>
{{if .Findings}}<ul>{{range .Findings}}<li class="{{.Severity}}"><b>{{.Rule}}</b> {{.Severity}}: {{.Text}}{{if .Fix}}<br><i>fix:</i> {{.Fix}}{{end}}</li>{{end}}</ul>{{else}}<p>none</p>{{end}}
<h2>Triggers</h2>
<table><tr><th>kind</th><th>active</th><th>fired</th><th>skipped</th><th>last</th><th>why</th></tr>
{{range .Triggers}}<tr><td>{{.Kind}}</td><td>{{.Active}}</td><td>{{.Fired}}</td><td>{{.Skipped}}</td><td>{{if not .Last.IsZero}}{{.Last.UTC.Format "15:04:05Z"}}{{end}}</td><td>{{.Why}}</td></tr>{{end}}
</table>
<h2>Snapshots</h2>
{{if .Snapshots}}<table><tr><th>file</th><th>trigger</th><th>bytes</th><th>diagnosis</th><th>why</th></tr>
{{range .Snapshots}}<tr><td><a href="{{$.Base}}snapshots/{{.Name}}">{{.Name}}</a></td><td>{{.Trigger}}</td><td>{{.Bytes}}</td><td>{{.Diagnosis}}{{if .Findings}} ({{len .Findings}} findings){{end}}</td><td>{{.Why}}</td></tr>{{end}}
</table>{{else}}<p>none</p>{{end}}
{{if .Errors}}<h2>Errors</h2><ul>{{range .Errors}}<li>{{.Time.UTC.Format "15:04:05Z"}} {{.Error}}</li>{{end}}</ul>{{end}}
</body></html>
`))
