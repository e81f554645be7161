package cli

import (
	"bufio"
	"cmp"
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
	"github.com/schedoctor/schedoctor/internal/sysread"
	"github.com/schedoctor/schedoctor/report"
)

func init() {
	register(&command{name: "trace", short: "latency, P use, migrations, syscalls, GC in an execution trace, streamed (SD301–SD309)", order: 30, run: runTrace})
}

func runTrace(ctx context.Context, e *Env, args []string) int {
	fs := e.newFlagSet("schedoctor trace [-cpus N] [-process-cpu D] [-window D] [-src DIR] [-j N] [-json|-sarif] [-fail LEVEL] [-perfetto OUT [-at T -span D]] FILE|DIR|-|URL...",
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
time of the same window from rusage) tells "the host took the CPU" from "Go queued work".

Several traces (files, or a directory for its files, not following its symbolic links) are read
one after another, a report each: with -json one JSON object per line (NDJSON), with "file"; a
trace that cannot be read is a line with "file" and "error", and the others go on. The exit status
is the worst over the traces: 2 if any input could not be read.

-perfetto OUT also writes the trace FILE (not - or a URL: it is read again) as a Perfetto trace,
to open in https://ui.perfetto.dev: a track per P with the goroutine it runs, state tracks for
the goroutines that waited longest for a P or unblocked the most others, counters (runnable
goroutines, heap, GOMAXPROCS), GC and stop-the-world ranges, and a flow from each unblocker to
the goroutine it made runnable. It holds the window -span wide centred on -at (a time since the
trace's start, as the report prints them), or the whole trace; at most -perfetto-max-mb, where
a longer window is cut (a warning says where). It needs one trace file.

Latency that comes in spikes is found in windows (-window, 100ms): a window whose starts' p99
reaches -spike-p99, or whose runnable goroutines reach -spike-runnable per P, and that stands out
from the trace's quieter windows, is a spike; each spike's cause (a burst of go statements, one
waker's wake-ups, goroutines that held the Ps) is named (SD315). Every wake-up is charged to the
goroutine that made it; a line that wakes many at once, again and again, is SD316.`,
		"  go test -trace trace.out -run TestX ./pkg && schedoctor trace trace.out\n"+
			"  schedoctor trace -cpus 2 -seconds 5 http://localhost:6060/debug/pprof/trace\n"+
			"  curl -s localhost:6060/debug/pprof/trace?seconds=5 | schedoctor trace -cpus 2 -\n"+
			"  schedoctor trace -src ~/src/myservice -process-cpu 1.8s trace.out\n"+
			"  schedoctor trace -json trace.out | jq .summary.latency.overall\n"+
			"  schedoctor trace -json -cpus 2 traces/ | jq -c '{file, rules: [.findings[]?.rule]}'\n"+
			"  schedoctor trace -perfetto spike.pftrace -at 2.35s -span 300ms trace.out")
	var out outputFlags
	out.register(fs, true)
	cpus := fs.Float64("cpus", 0, "the `N` CPUs available to the traced process (quota, cpuset or nproc); 0: unknown, skip SD303")
	procCPU := fs.Duration("process-cpu", 0, "the CPU `time` (user+system, rusage) the process got during the trace; 0: unknown (the trace's CPU samples are used when present)")
	maxGenMB := traceGenerationFlag(fs)
	window := fs.Duration("window", exectrace.DefaultSpikeWindow, "the `width` of the windows latency spikes are found in")
	spikeP99 := fs.Duration("spike-p99", exectrace.DefaultSpikeP99, "a window whose starts' p99 latency reaches this `duration` may be a spike")
	spikeRunnable := fs.Float64("spike-runnable", exectrace.DefaultSpikeRunnable, "a window whose runnable goroutines reach `K` per P (GOMAXPROCS) may be a spike")
	jobs := fs.Int("j", 1, "decode up to `N` generations of a Go 1.26 trace at once, each by a reader of its own (0: GOMAXPROCS); more memory, faster only where decoding is slower than the analysis")
	var src srcDirs
	fs.Var(&src, "src", "a `DIR` to find the source under when the recorded paths do not exist (repeatable, or comma-separated)")
	noSrc := fs.Bool("nosrc", false, "do not read the source: report the trace's findings alone")
	seconds := fs.Int("seconds", 0, "for URLs: trace for this many seconds (?seconds=N); 0: the URL's own ?seconds=N, else 5")
	timeout := fs.Duration("timeout", 0, "for URLs: give up after this long; 0 means -seconds plus 30s")
	maxMB := fs.Float64("max-mb", defaultTraceMaxMB, "for URLs: refuse an answer larger than this many `MB`")
	var pf perfettoFlags
	pf.register(fs)
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if code, ok := pf.check(e, fs); !ok {
		return code
	}
	if code, ok := out.check(e); !ok {
		return code
	}
	if fs.NArg() == 0 {
		return e.usageError("want one trace file, - for stdin, or a /debug/pprof/trace URL (or several files and directories: a report each)")
	}
	if pf.out != "" && (fs.NArg() > 1 || isTraceDir(fs.Arg(0))) {
		return e.usageError("-perfetto exports one trace: give one trace file")
	}
	if pf.out != "" && (fs.Arg(0) == "-" || isURL(fs.Arg(0))) {
		return e.usageError("-perfetto reads the trace again, so it needs a trace file, not %s: save it to a file first", map[bool]string{true: "a URL", false: "standard input"}[isURL(fs.Arg(0))])
	}
	if pf.out != "" && sameFile(pf.out, fs.Arg(0)) {
		return e.usageError("-perfetto %s is the trace itself: name another file", pf.out)
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
	if *jobs == 0 {
		*jobs = runtime.GOMAXPROCS(0)
	}
	if code, ok := e.checkSeconds("seconds", *seconds, 0); !ok {
		return code
	}
	if *timeout < 0 {
		return e.usageError("-timeout %v: must not be negative", *timeout)
	}
	if *window < exectrace.MinSpikeWindow {
		return e.usageError("-window %v: want %v or more", *window, exectrace.MinSpikeWindow)
	}
	if *spikeP99 <= 0 {
		return e.usageError("-spike-p99 %v: want a duration above 0", *spikeP99)
	}
	if !(*spikeRunnable > 0 && *spikeRunnable <= 1e6) {
		return e.usageError("-spike-runnable %g: want a number of goroutines per P above 0", *spikeRunnable)
	}
	if !(*maxMB > 0 && *maxMB <= 1<<30) {
		return e.usageError("-max-mb %g: want a size in MB above 0", *maxMB)
	}
	c := traceRun{
		topt: exectrace.Options{CPUs: *cpus, ProcessCPU: *procCPU},
		// The P timeline is drawn only in the HTML report.
		ropt: exectrace.ReadOptions{MaxGeneration: int64(*maxGenMB * (1 << 20)), Jobs: *jobs, NoTimeline: out.html == "",
			Spikes: exectrace.SpikeOptions{Window: *window, P99: *spikeP99, Runnable: *spikeRunnable}},
		fetch: traceFetch{Seconds: *seconds, Timeout: *timeout, MaxBytes: int64(*maxMB * (1 << 20))},
		src:   src, noSrc: *noSrc,
		pf: &pf,
	}
	if len(fs.Args()) > 1 || isTraceDir(fs.Arg(0)) {
		return e.traceMany(ctx, &out, c, fs.Args())
	}
	r, _, err := e.traceOne(ctx, c, traceInput{arg: fs.Arg(0)})
	if err != nil {
		return e.fail(err)
	}
	return e.emit(&out, r)
}

// traceRun is what every trace of a run is read and judged with.
type traceRun struct {
	topt  exectrace.Options
	ropt  exectrace.ReadOptions
	fetch traceFetch
	src   srcDirs
	noSrc bool
	pf    *perfettoFlags // -perfetto: one trace only
}

// traceInput is one trace to read: a command-line argument (a file, - or
// a URL), or a file found in a directory given on the command line (dir
// set: it is opened under dir, by its entry name).
type traceInput struct {
	arg  string // the argument as given (a file, - or a URL); "" for a file in dir
	name string // as the JSON lines and the headers call it (a URL without its password)
	dir  string // the directory the file was found in; "" for an argument
	base string // its name in dir
	err  error  // refused before reading (a symbolic link in dir)
}

// traceOne reads one trace and judges it, with the source at its hot
// lines unless c.noSrc. The report's findings are the joined ones; name
// is what the messages called the trace ("stdin", a redacted URL).
func (e *Env) traceOne(ctx context.Context, c traceRun, in traceInput) (report.Report, string, error) {
	if in.err != nil {
		return report.Report{}, in.name, in.err
	}
	name := in.arg
	if in.dir != "" {
		name = in.name
	}
	var res *exectrace.Result
	var err error
	switch {
	case in.dir != "":
		// Opened under the directory (internal/sysread): a regular file,
		// resolved inside it; not through openInput, so that an entry
		// named "-" or "http://…" is a file.
		e.doing("reading " + name)
		f, _, oerr := sysread.Open(in.dir, in.base)
		if oerr != nil {
			return report.Report{}, name, oerr
		}
		defer f.Close()
		res, err = readTraceKind(ctx, name, &ctxReader{ctx: ctx, r: f, f: f, what: "reading " + name}, c)
	case isURL(name):
		if err := e.checkEndpoint(name); err != nil {
			return report.Report{}, redactedURL(name), err
		}
		e.doing("fetching " + redactedURL(name))
		var fetched string
		res, fetched, err = fetchTrace(ctx, name, c.fetch, c.ropt, c.topt)
		name = cmp.Or(fetched, redactedURL(name))
	default:
		r, closeIn, oerr := e.openInput(ctx, name)
		if oerr != nil {
			return report.Report{}, cmp.Or(in.name, name), oerr
		}
		defer closeIn()
		if name == "-" {
			name = "stdin"
		}
		res, err = readTraceKind(ctx, name, r, c)
	}
	if err != nil {
		return report.Report{}, name, err
	}
	if t := res.Summary.Truncated; t != nil {
		e.warn("%s: %s", name, t)
	}
	if c.pf != nil && c.pf.out != "" {
		if err := e.writePerfetto(ctx, c.pf, name, c.ropt, res.Summary); err != nil {
			return report.Report{}, name, err
		}
	}
	opt := diagnose.Options{}
	if !c.noSrc {
		opt.Source = sourceReader(c.src, in.dir == "" && isURL(in.arg)) // the verdicts read the loop, not the analyzers' findings
	}
	joined, err := diagnose.Trace(res, c.topt, opt)
	if err != nil {
		return report.Report{}, name, fmt.Errorf("%s: %w", name, err)
	}
	return report.Report{Source: finding.SourceTrace, Findings: joined.Findings, Summary: joined.Summary}, name, nil
}

// readTraceKind checks that r holds an execution trace, then reads it.
func readTraceKind(ctx context.Context, name string, r io.Reader, c traceRun) (*exectrace.Result, error) {
	br := bufio.NewReaderSize(r, sniff.HeadSize)
	if err := checkKind(br, name, "an execution trace", traceTakes); err != nil {
		return nil, err
	}
	return readTrace(ctx, name, br, c.ropt, c.topt)
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
