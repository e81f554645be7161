package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/schedoctor/schedoctor/check"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/report"
)

func init() {
	register(&command{name: "check", short: "capture every source of a live service's net/http/pprof and report one finding per cause", order: 60, run: runCheck})
}

func runCheck(ctx context.Context, e *Env, args []string) int {
	fs := e.newFlagSet("schedoctor check [flags] URL|DIR",
		`Capture, one at a time, from a service that mounts net/http/pprof at URL (http://127.0.0.1:6060
serves /debug/pprof/...): a goroutine dump, a CPU profile of -seconds, an execution trace of
-trace-seconds (after the profile, never during it: tracing inflates the profile), mutex and block
profiles (empty unless the service enabled them), /debug/pprof/goroutineleak if the Go version has
it, and a second goroutine dump. With -pid (the service on this machine) also the process layer,
whose CPU count and the CPU the process got during the trace feed the trace analysis.

The findings of every source are joined: one finding per cause, located at the user line, with
every source's evidence and "sources" listing them. A capture that fails (404, 401/403, an HTML
page, a cut answer, a timeout) is named and the rest is still diagnosed; the exit code is 2 only
when nothing could be captured. Only URL's host is contacted; Ctrl-C cancels the capture in
flight, which stops the target's profile or trace.

If the service mounts the live monitor (the live package's Handler, at -live, default
/debug/schedoctor/), its JSON is read last: its findings (SD701-SD704 and those of its
snapshots) join the others with the source "live", and its newest snapshot that it did not
diagnose itself is fetched and diagnosed with the trace analysis.

-save DIR keeps every capture and a manifest.json; "schedoctor check DIR" diagnoses it again
offline (attach DIR to a bug report). docs/check.md says what each capture costs the target.`,
		`  schedoctor check http://127.0.0.1:6060
  schedoctor check -pid $(pgrep -n myservice) -seconds 20 -src ~/src/myservice http://127.0.0.1:6060
  schedoctor check -save /tmp/chk http://127.0.0.1:6060 && schedoctor check -json /tmp/chk`)
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
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if code, ok := out.check(e); !ok {
		return code
	}
	if fs.NArg() != 1 {
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
	arg := fs.Arg(0)
	var set *check.Set
	var err error
	if check.IsDir(arg) {
		if *pid != 0 || *saveDir != "" {
			return e.usageError("-pid and -save apply to a live capture, not to a saved directory")
		}
		if set, err = check.Load(arg); err != nil {
			return e.fail(err)
		}
	} else {
		e.doing("capturing from " + arg)
		set, err = capture(ctx, e, arg, *pid, *seconds, *traceSecs, *quiet, *livePath)
		if err != nil {
			return e.fail(err)
		}
		set.Tool = Version()
		if *saveDir != "" {
			if err := set.Save(*saveDir); err != nil {
				e.warn("%v", err)
			} else if !*quiet {
				fmt.Fprintf(e.Stderr, "schedoctor check: saved to %s (re-diagnose with: schedoctor check %s)\n", *saveDir, *saveDir)
			}
		}
	}
	if set.Captured() == 0 {
		msg := "nothing could be captured"
		if f := set.Failed(); len(f) > 0 {
			msg += ":\n  " + joinLines(f)
		}
		return e.fail(errors.New(msg))
	}
	aopt := check.AnalyzeOptions{CPUs: *cpus, ProfileLimits: *lim, MaxGeneration: int64(*maxGenMB * (1 << 20))}
	if !*noSrc {
		// A target's paths, live or saved, are another machine's (or may be).
		aopt.Source = sourceReader(src, true)
	}
	e.doing("diagnosing the captures")
	res, err := check.Analyze(ctx, set, aopt)
	if err != nil {
		return e.fail(err)
	}
	for _, f := range res.Summary.Failed {
		e.warn("%s", f)
	}
	return e.emit(&out, report.Report{Source: finding.SourceCheck, Findings: res.Findings, Summary: res.Summary})
}

func capture(ctx context.Context, e *Env, url string, pid, seconds, traceSecs int, quiet bool, livePath string) (*check.Set, error) {
	opt := check.Options{Seconds: seconds, TraceSeconds: traceSecs, PID: pid, LivePath: livePath}
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

func joinLines(s []string) string {
	out := ""
	for i, l := range s {
		if i > 0 {
			out += "\n  "
		}
		out += l
	}
	return out
}
