package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/httpfetch"
	"github.com/schedoctor/schedoctor/internal/safewrite"
	"github.com/schedoctor/schedoctor/profile"
	"github.com/schedoctor/schedoctor/report"
	"github.com/schedoctor/schedoctor/report/htmlreport"
)

// outputFlags are the flags every diagnosing subcommand shares.
type outputFlags struct {
	json  bool
	sarif bool
	wide  bool
	fail  failLevel
	html  string        // -html FILE: also write the report as one self-contained HTML file
	fs    *flag.FlagSet // the command's flags: its arguments are the inputs
}

// failLevel is -fail: the least severity that makes the exit status 1, or
// none to exit 0 whenever the run itself succeeded.
type failLevel struct {
	sev  finding.Severity
	none bool
}

func (f *failLevel) String() string {
	if f.none {
		return "none"
	}
	return f.sev.String()
}

func (f *failLevel) Set(s string) error {
	if strings.EqualFold(s, "none") {
		*f = failLevel{none: true}
		return nil
	}
	sev, err := finding.ParseSeverity(s)
	if err != nil {
		return fmt.Errorf("want info, warning, critical or none")
	}
	*f = failLevel{sev: sev}
	return nil
}

func (o *outputFlags) register(fs *flag.FlagSet, withSARIF bool) {
	o.fs = fs
	o.fail = failLevel{sev: finding.Warning}
	fs.BoolVar(&o.json, "json", false, "print one JSON object (source, findings, summary) on stdout")
	if withSARIF {
		fs.BoolVar(&o.sarif, "sarif", false, "print a SARIF 2.1.0 log on stdout, for code-scanning UIs")
	}
	fs.Var(&o.fail, "fail", "exit 1 when a finding is at or above this `level`: info, warning, critical or none")
	fs.StringVar(&o.html, "html", "", "also write the report as one self-contained HTML `file` (findings, figures, pictures; no network)")
	fs.BoolVar(&o.wide, "wide", false, "text: print tables one line per row however wide (default: fit 80 columns)")
}

func (o *outputFlags) check(e *Env) (int, bool) {
	if o.json && o.sarif {
		return e.usageError("-json and -sarif cannot be used together"), false
	}
	// The report replaces the file -html names: never an input the user
	// named beside it (a profile saved as report.html, a typo'd argument).
	if o.html != "" && o.fs != nil {
		for _, in := range o.fs.Args() {
			if sameFile(o.html, in) {
				return e.usageError("-html %s is an input of this run: name another file for the report", o.html), false
			}
		}
	}
	return 0, true
}

// hintFlags is how the CLI asks for what a hint names: a library says it
// in words ("give the module's source directory"), the CLI names its flag
// after them. A command whose flag differs has its own entry in
// commandHintFlags. A hint with no flag keeps the library's words.
var hintFlags = map[finding.Hint]string{
	finding.HintSourceDir:       "-src DIR",
	finding.HintPID:             "-pid",
	finding.HintCostProbe:       "-probe or -model",
	finding.HintProcessCPU:      "-process-cpu",
	finding.HintCPUs:            "-cpus",
	finding.HintInputLimit:      "-max-mb",
	finding.HintTimeout:         "-timeout, or a shorter -seconds",
	finding.HintGenerationLimit: "-max-generation-mb",
	finding.HintTickLimit:       "-max-ticks",
	finding.HintRuns:            "-runs",
	finding.HintWindow:          "-window",
	finding.HintDuration:        "-duration",
	finding.HintLiveMount:       "-live",
	finding.HintSysroot:         "-sysroot DIR",
	finding.HintHeapEndpoint:    "-pprof",
	finding.HintTargetLimit:     "-selector, or raise -max-targets",
}

// commandHintFlags are the commands whose flag for a hint is not the
// common one.
var commandHintFlags = map[string]map[finding.Hint]string{
	"goroutines": {finding.HintInputLimit: "-max-bytes", finding.HintTimeout: "-timeout"},
	"check":      {finding.HintInputLimit: "-max-total-mb (-max-targets-mb for Prometheus's list)", finding.HintTimeout: "-target-timeout (with -prometheus)"},
	"procs":      {finding.HintInputLimit: "-max-file"},
	"sweep":      {finding.HintTimeout: "-timeout"},
}

// flagFor is the flag of command cmd that gives what h asks for, "" when
// it has none.
func flagFor(cmd string, h finding.Hint) string {
	if f, ok := commandHintFlags[cmd][h]; ok {
		return f
	}
	return hintFlags[h]
}

// withFlags returns the findings with each hint note in the CLI's words:
// the library's text, then the flag that gives what it asks for. The
// findings are copied: the caller's notes stay as the library wrote them.
func (e *Env) withFlags(fs []finding.Finding) []finding.Finding {
	out := make([]finding.Finding, len(fs))
	for i, f := range fs {
		if len(f.Hints()) > 0 {
			f.Notes = e.notesWithFlags(f.Notes)
		}
		out[i] = f
	}
	return out
}

// notesWithFlags is notes, copied, with the flag after each hint's text.
func (e *Env) notesWithFlags(notes []finding.Note) []finding.Note {
	out := make([]finding.Note, len(notes))
	for j, n := range notes {
		if flag := flagFor(e.cmd, n.Hint); flag != "" && n.Kind == finding.NoteHint {
			n.Text += " (" + flag + ")"
		}
		out[j] = n
	}
	return out
}

// errorHint is what the user can change to get past err, in the CLI's
// flags: a HintError's hint, or the limits and deadlines the sources
// report with their own error types. "" when nothing is known to help.
func (e *Env) errorHint(err error) string {
	h := finding.HintOf(err)
	var pl *profile.LimitError
	switch {
	case h != finding.HintNone:
	case errors.As(err, &pl):
		// profile's limits each have their flag: -max-frames, -max-mb, ...
		if pl.Limit == "bytes" {
			return "raise -max-mb if the input is genuine"
		}
		return "raise -max-" + pl.Limit + " if the input is genuine"
	case errors.Is(err, exectrace.ErrGenerationTooLarge):
		h = finding.HintGenerationLimit
	case errors.Is(err, httpfetch.ErrTooLarge):
		h = finding.HintInputLimit
	case errors.Is(err, context.DeadlineExceeded):
		h = finding.HintTimeout
	}
	flag := flagFor(e.cmd, h)
	switch {
	case flag == "":
		return ""
	case h == finding.HintInputLimit:
		return "raise " + flag + " if the input is genuine"
	case h == finding.HintTimeout, h == finding.HintGenerationLimit, h == finding.HintTickLimit:
		return "raise " + flag
	case h == finding.HintTargetLimit:
		return "narrow with " + flag
	}
	return "give " + flag
}

// prepare is what every rendering of r starts from: the hints of the
// findings and of the summary in the CLI's flags, the findings sorted.
func (e *Env) prepare(r report.Report) report.Report {
	r.Findings = e.withFlags(r.Findings)
	r.Hints = e.notesWithFlags(append(r.Hints[:len(r.Hints):len(r.Hints)], report.SummaryHints(r.Summary)...))
	finding.Sort(r.Findings)
	return r
}

// emit renders the report in the chosen format and returns the exit code.
func (e *Env) emit(o *outputFlags, r report.Report) int {
	r = e.prepare(r)
	var err error
	switch {
	case o.json:
		jw := e.jsonOut()
		err = errors.Join(report.JSON(jw, r), jw.Flush())
	case o.sarif:
		wd, _ := os.Getwd()
		if wd != "" {
			wd, _ = filepath.Abs(wd)
		}
		jw := e.jsonOut()
		err = errors.Join(report.SARIF(jw, r, report.SARIFOptions{ToolVersion: Version(), BaseDir: wd}), jw.Flush())
	default:
		err = report.Text(e.Stdout, r, report.TextOptions{Color: e.color(), Wide: o.wide})
	}
	if err != nil {
		return e.fail(fmt.Errorf("writing the report: %w", err))
	}
	if o.html != "" {
		if err := writeHTML(o.html, r); err != nil {
			return e.fail(err)
		}
	}
	return exitCode(o.fail, r.Findings)
}

func exitCode(fl failLevel, fs []finding.Finding) int {
	if fl.none {
		return ExitClean
	}
	for _, f := range fs {
		if f.Severity >= fl.sev {
			return ExitFindings
		}
	}
	return ExitClean
}

// color reports whether text output may use ANSI colour: only on a
// terminal, and never with NO_COLOR set (https://no-color.org).
func (e *Env) color() bool {
	return e.Terminal && e.getenv("NO_COLOR") == ""
}

// maxSeconds bounds the -seconds flags: a day of profiling is already far
// beyond any use, and 9999999999 seconds would overflow a time.Duration
// into a negative one.
const maxSeconds = 86400

// checkCPUs validates a CPU-count flag: flag.Float64 accepts NaN and Inf,
// which no comparison rejects, so they are named here. 0 means unknown.
func (e *Env) checkCPUs(name string, v float64) (int, bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1<<16 {
		return e.usageError("-%s %v: want a number of CPUs from 0 (unknown) to %d", name, v, 1<<16), false
	}
	return 0, true
}

// checkSeconds validates a whole-seconds flag against lo..maxSeconds.
func (e *Env) checkSeconds(name string, v, lo int) (int, bool) {
	if v < lo || v > maxSeconds {
		return e.usageError("-%s %d: want %d to %d seconds", name, v, lo, maxSeconds), false
	}
	return 0, true
}

// writeHTML writes the report as one HTML file at path (0600), through a
// temporary file renamed into place (safewrite.ReplaceFile), so that a
// failed render never leaves half a report where the last good one was and
// a link planted at path is replaced, not followed.
func writeHTML(path string, r report.Report) error {
	err := safewrite.ReplaceFile(path, func(w io.Writer) error {
		return htmlreport.Render(w, r, htmlreport.Options{Version: Version()})
	})
	if err != nil {
		return fmt.Errorf("writing the HTML report: %w", err)
	}
	return nil
}
