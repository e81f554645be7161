package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/check"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/safewrite"
	"github.com/schedoctor/schedoctor/report"
)

func init() {
	register(&command{name: "check", short: "capture every source of a live service's net/http/pprof and report one finding per cause", order: 60, run: runCheck})
}

func runCheck(ctx context.Context, e *Env, args []string) int {
	fs := e.newFlagSet("schedoctor check [flags] URL|DIR\n       schedoctor check -prometheus URL -job JOB [-selector k=v,...] [flags]",
		`Capture, one at a time, from a service that mounts net/http/pprof at URL (http://127.0.0.1:6060
serves /debug/pprof/...): a goroutine profile (debug=0), which gives the goroutine count, and a full
goroutine dump (debug=2) only below -max-dump-goroutines (a full dump stops the service's world
while it is written: 0.7 s at 50,000 goroutines), a CPU profile of -seconds, an execution trace of
-trace-seconds (after the profile, never during it: tracing inflates the profile), mutex and block
profiles (empty unless the service enabled them), /debug/pprof/goroutineleak if the Go version has
it, and the goroutine profile and dump again. With -pid (the service on this machine) also the
process layer, whose CPU count and the CPU the process got during the trace feed the trace analysis.

The findings of every source are joined: one finding per cause, located at the user line, with
every source's evidence and "sources" listing them. A capture that fails (404, 401/403, an HTML
page, a cut answer, a timeout) is named and the rest is still diagnosed; the exit code is 2 only
when nothing could be captured or read. Only URL's host and port are contacted (a redirect elsewhere
is refused); every answer must keep arriving (1 KiB per 10 s) and all of them share -max-total-mb;
a service that stalls is asked nothing more. Ctrl-C cancels the capture in flight, which stops the
target's profile or trace. An argument with a scheme (http:...) is always a URL.

If the service mounts the live monitor (the live package's Handler, at -live, default
/debug/schedoctor/), its JSON is read last: its findings (SD701-SD704 and those of its
snapshots) are shown as the target's claims ("the target's live monitor reports: ...", the source
"live", the catalog's fix, not the target's) and join the others of the same cause; its newest
snapshot that it did not diagnose itself is fetched and diagnosed with the trace analysis.

-save DIR keeps every capture and a manifest.json; "schedoctor check DIR" diagnoses it again
offline (attach DIR to a bug report). DIR is created 0700 (an existing one must be empty, yours,
not a link and not writable by others); its files are 0600. docs/check.md says what each capture costs the target.

-prometheus URL -job JOB checks every target of JOB that Prometheus scrapes, instead of one URL:
its active targets (/api/v1/targets, the scrape pool JOB), those whose labels hold -selector; each
target's pprof is its scrape URL's host, at -pprof-port, the port in -pprof-port-label, or the
scrape port. Targets not up are skipped; the others are checked -concurrency at a time, each within
-target-timeout, and one that fails never stops the others. Targets that share a cause (a rule at
one line) make one finding, ranked by what it costs ("2 of 12 targets of job api at relay.go:37,
0.98-1.02 cores each"). Addresses from Prometheus are remote input: link-local, multicast and
unspecified ones are refused, redirects stay on the target.`,
		`  schedoctor check http://127.0.0.1:6060
  schedoctor check -pid $(pgrep -n myservice) -seconds 20 -src ~/src/myservice http://127.0.0.1:6060
  schedoctor check -save /tmp/chk http://127.0.0.1:6060 && schedoctor check -json /tmp/chk
  schedoctor check -prometheus http://prometheus:9090 -job api -selector namespace=prod -pprof-port 6060`)
	var out outputFlags
	out.register(fs, true)
	pid := fs.Int("pid", 0, "the service's `PID` on this machine: read its process layer (procs) and its CPU use")
	seconds := fs.Int("seconds", 10, "CPU profile length in `seconds`")
	traceSecs := fs.Int("trace-seconds", 0, "execution trace length in `seconds` (default -seconds/3, at least 1)")
	saveDir := fs.String("save", "", "write every capture and manifest.json to `DIR`")
	var src srcDirs
	fs.Var(&src, "src", "a `DIR` to find the source under when the recorded paths do not exist (repeatable, or comma-separated)")
	noSrc := fs.Bool("nosrc", false, "do not read the source: the runtime sources' findings alone")
	cpus := fs.Float64("cpus", 0, "the `N` CPUs the service may use, for the trace (default: from -pid's procs layer; 0 unknown)")
	quiet := fs.Bool("q", false, "do not print progress on stderr")
	lim, maxMB := profileLimitFlags(fs)
	maxGenMB := traceGenerationFlag(fs)
	livePath := fs.String("live", check.DefaultLivePath, "the `PATH` where the service mounts the schedoctor live monitor, probed once (a 404 means not mounted); \"\" does not look")
	maxDump := fs.Int("max-dump-goroutines", check.DefaultMaxDumpGoroutines, "take a full goroutine dump (debug=2, which stops the service's world while it is written) only below `N` goroutines; 0 never")
	maxTotalMB := fs.Int("max-total-mb", check.DefaultTotalBytes>>20, "the budget in `MB` for all the service's answers together")
	var fl fleetFlags
	fl.register(fs)
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if code, ok := out.check(e); !ok {
		return code
	}
	if fl.prometheus == "" && fl.set(fs) != "" {
		return e.usageError("-%s applies to a check through Prometheus: give -prometheus URL and -job JOB", fl.set(fs))
	}
	if fl.prometheus == "" && fs.NArg() != 1 {
		return e.usageError("want one URL (the service's base, e.g. http://127.0.0.1:6060) or one saved check directory")
	}
	if code, ok := e.checkSeconds("seconds", *seconds, 1); !ok {
		return code
	}
	if code, ok := e.checkSeconds("trace-seconds", *traceSecs, 0); !ok {
		return code
	}
	if code, ok := e.checkCPUs("cpus", *cpus); !ok {
		return code
	}
	if *pid < 0 {
		return e.usageError("-pid %d: want a process ID", *pid)
	}
	if err := setProfileLimits(lim, *maxMB); err != nil {
		return e.usageError("%v", err)
	}
	if code, ok := e.checkGeneration(*maxGenMB); !ok {
		return code
	}
	if *maxDump < 0 {
		return e.usageError("-max-dump-goroutines %d: want 0 (never) or a goroutine count", *maxDump)
	}
	if *maxTotalMB <= 0 || *maxTotalMB > 1<<20 {
		return e.usageError("-max-total-mb %d: want 1 to %d", *maxTotalMB, 1<<20)
	}
	copt := check.Options{Seconds: *seconds, TraceSeconds: *traceSecs, PID: *pid, LivePath: *livePath,
		MaxDumpGoroutines: *maxDump, MaxTotalBytes: int64(*maxTotalMB) << 20}
	if *maxDump == 0 {
		copt.MaxDumpGoroutines = -1
	}
	// A target's paths, live or saved, are another machine's (or may be).
	aopt := check.AnalyzeOptions{CPUs: *cpus, ProfileLimits: *lim, MaxGeneration: int64(*maxGenMB * (1 << 20)), Release: true}
	if !*noSrc {
		aopt.Source = sourceReader(src, true)
	}
	if fl.prometheus != "" {
		switch {
		case fs.NArg() != 0:
			return e.usageError("-prometheus checks the job's targets: give no URL or directory (got %q)", fs.Arg(0))
		case *pid != 0 || *saveDir != "":
			return e.usageError("-pid and -save apply to one target, not to a check through Prometheus")
		}
		return runCheckFleet(ctx, e, &out, &fl, copt, aopt, *quiet)
	}
	arg := fs.Arg(0)
	var set *check.Set
	var err error
	// An argument with a scheme is always a URL: a directory named
	// "http:" (made by a mistyped -save, or planted) is never read
	// instead of contacting the service. Give ./http:/... to read one.
	if !check.HasScheme(arg) && check.IsDir(arg) {
		if *pid != 0 || *saveDir != "" {
			return e.usageError("-pid and -save apply to a live capture, not to a saved directory")
		}
		if set, err = check.Load(arg); err != nil {
			return e.fail(err)
		}
	} else {
		// The save directory is made (or checked) before the target is
		// contacted: a refused one costs the service nothing.
		var save *safewrite.Dir
		if *saveDir != "" {
			if save, err = safewrite.CreateNew(*saveDir); err != nil {
				return e.fail(fmt.Errorf("-save: %w", err))
			}
			defer save.Close()
		}
		base, err := check.ParseBase(arg)
		if err != nil {
			return e.fail(err)
		}
		e.doing("capturing from " + base.Redacted())
		set, err = capture(ctx, e, arg, copt, *quiet)
		if err != nil {
			return e.fail(err)
		}
		set.Tool = Version()
		if save != nil {
			if err := set.SaveTo(save); err != nil {
				e.warn("%v", err)
			} else if !*quiet {
				fmt.Fprintf(e.Stderr, "schedoctor check: saved to %s (re-diagnose with: schedoctor check %s)\n", *saveDir, *saveDir)
			}
		}
	}
	if err := set.CaptureError(); err != nil {
		return e.fail(err)
	}
	// The set is saved by now: each capture's bytes go once it is read
	// (aopt.Release).
	e.doing("diagnosing the captures")
	res, err := check.Analyze(ctx, set, aopt)
	if err != nil {
		return e.fail(err)
	}
	for _, f := range res.Summary.Failed {
		e.warn("%s", f)
	}
	for _, sk := range res.Summary.Skipped {
		if strings.Contains(sk, "at or over the limit") {
			e.warn("%s (-max-dump-goroutines sets the limit)", sk)
		} else {
			e.warn("%s", sk)
		}
	}
	if err := res.ReadError(); err != nil {
		return e.fail(err)
	}
	return e.emit(&out, report.Report{Source: finding.SourceCheck, Findings: res.Findings, Summary: res.Summary})
}

func capture(ctx context.Context, e *Env, url string, opt check.Options, quiet bool) (*check.Set, error) {
	pid := opt.PID
	if !quiet {
		opt.Log = func(format string, args ...any) {
			fmt.Fprintf(e.Stderr, "schedoctor check: "+format+"\n", args...)
		}
	}
	start := time.Now()
	set, err := check.Run(ctx, url, opt)
	if err != nil {
		return nil, err
	}
	if pid > 0 {
		// After the captures, so that its CPU-wait window does not overlap
		// them; one second is enough for the process's own schedstat.
		if err := set.InspectProcs(pid, time.Second); err != nil {
			set.Captures = append(set.Captures, &check.Capture{Kind: "procs", Error: err.Error(), Start: start})
		}
	}
	return set, nil
}
