package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/report"
)

// outputFlags are the flags every diagnosing subcommand shares.
type outputFlags struct {
	json  bool
	sarif bool
	fail  failLevel
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
	o.fail = failLevel{sev: finding.Warning}
	fs.BoolVar(&o.json, "json", false, "print one JSON object (source, findings, summary) on stdout")
	if withSARIF {
		fs.BoolVar(&o.sarif, "sarif", false, "print a SARIF 2.1.0 log on stdout, for code-scanning UIs")
	}
	fs.Var(&o.fail, "fail", "exit 1 when a finding is at or above this `level`: info, warning, critical or none")
}

func (o *outputFlags) check(e *Env) (int, bool) {
	if o.json && o.sarif {
		return e.usageError("-json and -sarif cannot be used together"), false
	}
	return 0, true
}

// emit renders the report in the chosen format and returns the exit code.
func (e *Env) emit(o *outputFlags, r report.Report) int {
	finding.Sort(r.Findings)
	var err error
	switch {
	case o.json:
		err = report.JSON(e.Stdout, r)
	case o.sarif:
		wd, _ := os.Getwd()
		if wd != "" {
			wd, _ = filepath.Abs(wd)
		}
		err = report.SARIF(e.Stdout, r, report.SARIFOptions{ToolVersion: Version(), BaseDir: wd})
	default:
		err = report.Text(e.Stdout, r, report.TextOptions{Color: e.color()})
	}
	if err != nil {
		return e.fail(fmt.Errorf("writing the report: %w", err))
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
