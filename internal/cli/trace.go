package cli

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"time"

	"github.com/schedoctor/schedoctor/diagnose"
	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/httpfetch"
	"github.com/schedoctor/schedoctor/internal/sniff"
	"github.com/schedoctor/schedoctor/report"
)

func init() {
	register(&command{name: "trace", short: "latency, P use, migrations, syscalls, GC in an execution trace, streamed (SD301–SD309)", order: 30, run: runTrace})
}

func runTrace(ctx context.Context, e *Env, args []string) int {
	fs := e.newFlagSet("schedoctor trace [-cpus N] [-process-cpu D] [-src DIR] [-j N] [-json|-sarif] [-fail LEVEL] FILE|-|URL",
		`Read a Go execution trace (runtime/trace, go test -trace, net/http/pprof's /debug/pprof/trace)
as a stream and report scheduling latency, P utilisation, migrations, syscalls, GC pauses and
assists, per goroutine creation site, with findings SD301-SD309. An http(s) URL is fetched as
/debug/pprof/trace?seconds=N (-seconds, default 5) and read as it arrives.

A trace does not record how many CPUs the process could use: pass -cpus (the cgroup quota or
cpuset, or nproc) to check for Ps busier than the CPUs (SD303). A truncated trace is analysed up
to where it breaks, with a warning saying where.

Goroutines that run until preempted (SD308) may compute or spin: the trace alone cannot tell. The
line where they ran (from the trace's CPU samples when a CPU profile ran during tracing, else where
they were preempted) is read in the source: at the recorded path, else under each -src DIR. A spin
there is reported at warning at its line and named as the cause of the latency findings.

The CPU the process really got (the trace's CPU samples × 10ms, or -process-cpu, the user+system
time of the same window from rusage) tells "the host took the CPU" from "Go queued work".`,
		"  go test -trace trace.out -run TestX ./pkg && schedoctor trace trace.out\n"+
			"  schedoctor trace -cpus 2 -seconds 5 http://localhost:6060/debug/pprof/trace\n"+
			"  curl -s localhost:6060/debug/pprof/trace?seconds=5 | schedoctor trace -cpus 2 -\n"+
			"  schedoctor trace -src ~/src/myservice -process-cpu 1.8s trace.out\n"+
			"  schedoctor trace -json trace.out | jq .summary.latency.overall")
	var out outputFlags
	out.register(fs, true)
	cpus := fs.Float64("cpus", 0, "the `N` CPUs available to the traced process (quota, cpuset or nproc); 0: unknown, skip SD303")
	procCPU := fs.Duration("process-cpu", 0, "the CPU `time` (user+system, rusage) the process got during the trace; 0: unknown (the trace's CPU samples are used when present)")
	maxGenMB := traceGenerationFlag(fs)
	jobs := fs.Int("j", 1, "decode up to `N` generations of a Go 1.26 trace at once, each by a reader of its own (0: GOMAXPROCS); more memory, faster only where decoding is slower than the analysis")
	var src srcDirs
	fs.Var(&src, "src", "a `DIR` to find the source under when the recorded paths do not exist (repeatable, or comma-separated)")
	noSrc := fs.Bool("nosrc", false, "do not read the source: report the trace's findings alone")
	seconds := fs.Int("seconds", 0, "for URLs: trace for this many seconds (?seconds=N); 0: the URL's own ?seconds=N, else 5")
	timeout := fs.Duration("timeout", 0, "for URLs: give up after this long; 0 means -seconds plus 30s")
	maxMB := fs.Float64("max-mb", defaultTraceMaxMB, "for URLs: refuse an answer larger than this many `MB`")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if code, ok := out.check(e); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return e.usageError("want one trace file, - for stdin, or a /debug/pprof/trace URL")
	}
	if code, ok := e.checkCPUs("cpus", *cpus); !ok {
		return code
	}
	if *procCPU < 0 {
		return e.usageError("-process-cpu %v: want a duration ≥ 0", *procCPU)
	}
	if code, ok := e.checkGeneration(*maxGenMB); !ok {
		return code
	}
	if *jobs < 0 || *jobs > 1024 {
		return e.usageError("-j %d: want 0 (GOMAXPROCS) to 1024 generations at once", *jobs)
	}
	if code, ok := e.checkSeconds("seconds", *seconds, 0); !ok {
		return code
	}
	if *timeout < 0 {
		return e.usageError("-timeout %v: must not be negative", *timeout)
	}
	if !(*maxMB > 0 && *maxMB <= 1<<30) {
		return e.usageError("-max-mb %g: want a size in MB above 0", *maxMB)
	}
	topt := exectrace.Options{CPUs: *cpus, ProcessCPU: *procCPU}
	if *jobs == 0 {
		*jobs = runtime.GOMAXPROCS(0)
	}
	ropt := exectrace.ReadOptions{MaxGeneration: int64(*maxGenMB * (1 << 20)), Jobs: *jobs}
	name := fs.Arg(0)
	var res *exectrace.Result
	var err error
	if isURL(name) {
		if err := e.checkEndpoint(name); err != nil {
			return e.fail(err)
		}
		e.doing("fetching " + redactedURL(name))
		res, name, err = fetchTrace(ctx, name, traceFetch{Seconds: *seconds, Timeout: *timeout, MaxBytes: int64(*maxMB * (1 << 20))}, ropt, topt)
		if err != nil {
			return e.fail(err)
		}
	} else {
		r, closeIn, oerr := e.openInput(ctx, name)
		if oerr != nil {
			return e.fail(oerr)
		}
		defer closeIn()
		if name == "-" {
			name = "stdin"
		}
		br := bufio.NewReaderSize(r, sniff.HeadSize)
		if err := checkKind(br, name, "an execution trace", traceTakes); err != nil {
			return e.fail(err)
		}
		res, err = readTrace(ctx, name, br, ropt, topt)
		if err != nil {
			return e.fail(err)
		}
	}
	if t := res.Summary.Truncated; t != nil {
		e.warn("%s: %s", name, t)
	}
	opt := diagnose.Options{}
	if !*noSrc {
		opt.Source = sourceReader(src, isURL(fs.Arg(0))) // the verdicts read the loop, not the analyzers' findings
	}
	joined, err := diagnose.Trace(res, topt, opt)
	if err != nil {
		return e.fail(fmt.Errorf("%s: %w", name, err))
	}
	return e.emit(&out, report.Report{Source: finding.SourceTrace, Findings: joined.Findings, Summary: joined.Summary})
}

// traceGenerationFlag registers -max-generation-mb, the trace reader's
// bound (issue 12: a generation larger than it is cut there, never held).
func traceGenerationFlag(fs *flag.FlagSet) *float64 {
	return fs.Float64("max-generation-mb", exectrace.DefaultMaxGeneration>>20, "read no generation (about 1s of trace) larger than this many `MB`: the reader holds one whole")
}

// checkGeneration range-checks -max-generation-mb.
func (e *Env) checkGeneration(mb float64) (int, bool) {
	if !(mb*(1<<20) >= exectrace.MinMaxGeneration && mb <= 1<<30) {
		return e.usageError("-max-generation-mb %g: want a size from %g MB (one batch) up", mb, float64(exectrace.MinMaxGeneration)/(1<<20)), false
	}
	return 0, true
}

// For trace URLs: /debug/pprof/trace records 1 second by default, too
// short to see a pattern repeat; 5 seconds is what docs/trace.md asks for.
// A busy service writes a few MB a second of trace (the lab's busiest,
// 2 CPUs, about 4 MB/s), so 512 MB is far above a 5-second trace and
// bounds what a target can make schedoctor read.
const (
	defaultTraceSeconds = 5
	defaultTraceMaxMB   = 512
)

// traceFetch tunes fetchTrace.
type traceFetch struct {
	Seconds  int           // ?seconds=N; 0: the URL's own, else defaultTraceSeconds
	Timeout  time.Duration // 0: the trace's seconds plus 30s
	MaxBytes int64
}

// fetchTrace fetches /debug/pprof/trace through httpfetch, as profile URL
// is fetched (the same deadline rule, byte limit and redirect rules), and
// analyzes the trace as it arrives, under the request's deadline. name is
// the URL with its password redacted, for messages.
func fetchTrace(ctx context.Context, rawURL string, f traceFetch, ropt exectrace.ReadOptions, topt exectrace.Options) (res *exectrace.Result, name string, err error) {
	u, err := httpfetch.ParseURL(rawURL)
	if err != nil {
		return nil, "", err
	}
	q := u.Query()
	secs := f.Seconds
	if secs <= 0 {
		secs = defaultTraceSeconds
		if n, err := strconv.Atoi(q.Get("seconds")); err == nil && n > 0 {
			secs = n // the URL's own ?seconds=N
		}
	}
	q.Set("seconds", strconv.Itoa(secs))
	u.RawQuery = q.Encode()
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = time.Duration(secs)*time.Second + 30*time.Second
	}
	// An idle program's trace can bring less than httpfetch.ProgressBytes
	// in httpfetch.DefaultIdleTimeout while it records: as check does, the
	// idle limit of a trace is its recording time and the slack.
	resp, err := httpfetch.Get(ctx, u, httpfetch.Options{
		Timeout: timeout, IdleTimeout: time.Duration(secs)*time.Second + 30*time.Second, Limit: f.MaxBytes,
		Expect: "/debug/pprof/trace", What: "an execution trace",
		TimeoutHint: "raise -timeout, or lower -seconds", LimitHint: "raise -max-mb if the trace is genuine",
	})
	if err != nil {
		return nil, "", err
	}
	defer resp.Close()
	br := bufio.NewReaderSize(resp.Body, sniff.HeadSize)
	if err := checkKind(br, resp.Name, "an execution trace", traceTakes); err != nil {
		return nil, "", resp.Err(err)
	}
	res, err = readTrace(resp.Context(), resp.Name, br, ropt, topt)
	if err != nil {
		return nil, "", resp.Err(err)
	}
	return res, resp.Name, nil
}

// readTrace reads one trace and analyses it.
func readTrace(ctx context.Context, name string, r io.Reader, ropt exectrace.ReadOptions, topt exectrace.Options) (*exectrace.Result, error) {
	t, err := exectrace.Read(ctx, name, r, ropt)
	if err != nil {
		return nil, err
	}
	return exectrace.Analyze(t, topt)
}
