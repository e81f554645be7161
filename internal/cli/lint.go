package cli

import (
	"context"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/driver"
	"github.com/schedoctor/schedoctor/report"
)

func init() {
	register(&command{name: "lint", short: "find scheduler anti-patterns in Go source (SD1xx)", order: 10, run: runLint})
}

func runLint(ctx context.Context, e *Env, args []string) int {
	fs := e.newFlagSet("schedoctor lint [-json|-sarif] [-fix] [-test] [-fail LEVEL] [packages]",
		`Run schedoctor's analyzers (busy select loops, sleep polling, NumGoroutine throttles, timers made
per iteration, leaked tickers, spin waits) on the packages, given as go list patterns (default ./...).
Locations are relative to the current directory. Packages that do not compile are refused.
No flag reaches go: a pattern that starts with "-" (lint -- -toolexec=X) is refused, as some of
go's flags run programs; put build flags in GOFLAGS (GOFLAGS=-tags=integration schedoctor lint).
-fix edits only the Go files of the packages linted, at the place the parser read (never the file
a //line directive names), and says which fixes it refused.
The same analyzers run under go vet (schedoctor-vet) and golangci-lint (see docs/lint-integration.md).`,
		`  schedoctor lint
  schedoctor lint -test ./internal/...
  schedoctor lint -json std
  schedoctor lint -fix ./...
  schedoctor lint -sarif ./... > schedoctor.sarif`)
	var out outputFlags
	out.register(fs, true)
	fix := fs.Bool("fix", false, "apply the suggested fixes to the files (only mechanical, safe edits); report what is left")
	tests := fs.Bool("test", false, "also load the packages' _test.go files (the code rules skip code in them: tests poll and spin on purpose)")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if code, ok := out.check(e); !ok {
		return code
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	e.doing("linting " + strings.Join(patterns, " "))
	res, err := driver.Run(ctx, driver.Options{Patterns: patterns, Tests: *tests, Fix: *fix, VetTool: e.VetTool})
	if err != nil {
		return e.fail(err)
	}
	return e.emit(&out, report.Report{Source: finding.SourceLint, Findings: res.Findings, Summary: res.Summary})
}
