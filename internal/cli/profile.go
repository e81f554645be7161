package cli

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/diagnose"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/safewrite"
	"github.com/schedoctor/schedoctor/internal/sniff"
	"github.com/schedoctor/schedoctor/profile"
	"github.com/schedoctor/schedoctor/report"
)

func init() {
	register(&command{name: "profile", short: "name the causes in a CPU profile (SD201–SD209)", order: 20, run: runProfile})
}

func runProfile(ctx context.Context, e *Env, args []string) int {
	fs := e.newFlagSet("schedoctor profile [flags] PROFILE...",
		`Classify every sample of one or more Go CPU profiles by its caller chain (thread churn, idle
spinning, timers, channels, locks, GC, syscalls, preemption, ...), report each cause as a share
of CPU and in cores with the user lines that lead to it, and report SD201–SD209.

PROFILE is a pprof file (.pb.gz or uncompressed), - for stdin, or an http(s) URL of a
/debug/pprof/profile endpoint. Several profiles are merged into one diagnosis; their durations
add up, so cores are the average over the profiles.

The hot user lines the profile alone cannot judge (a select, a Gosched call, large flat time)
are read in the source: at the path the profile recorded, else under each -src DIR (for a
binary built elsewhere or with -trimpath). A loop the source shows spinning becomes SD204 at
its line with the CPU of the whole loop; the report says which files were not found.

With -pyroscope URL or -parca URL, the profile is the merge of what a continuous profiler holds
for -query from -from to -until, and -by LABEL diagnoses each value of a label (pod, version)
apart and says which values hold each finding. A merged profile without a duration (Pyroscope's)
gets the window's: its cores are the average over the window of all the matched processes
together. Credentials come from the environment, never a flag: PYROSCOPE_TENANT_ID,
PYROSCOPE_USERNAME and PYROSCOPE_PASSWORD, or PYROSCOPE_TOKEN (PARCA_USERNAME, PARCA_PASSWORD or
PARCA_TOKEN for Parca); -tenant and -username, when given, replace the variables' values.`,
		`  schedoctor profile cpu.pb.gz
  schedoctor profile -json a.pb.gz b.pb.gz
  schedoctor profile -seconds 10 http://localhost:6060/debug/pprof/profile
  schedoctor profile -src ~/src/myservice cpu.pb.gz
  schedoctor profile -o classified.pb.gz cpu.pb.gz && go tool pprof -tagfocus cause=thread-churn -top classified.pb.gz
  schedoctor profile -pyroscope http://pyroscope:4040 -query '{service_name="api"}' -from -1h
  schedoctor profile -pyroscope http://pyroscope:4040 -query '{service_name="api"}' -by pod
  schedoctor profile -parca http://parca:7070 -query '{job="api"}' -type parca_agent`)
	var out outputFlags
	out.register(fs, false)
	classified := fs.String("o", "", "write the merged profile to `FILE`, every sample labelled with its cause (for go tool pprof -tagfocus)")
	seconds := fs.Int("seconds", 0, "for URLs: profile for this many seconds (?seconds=N); 0 keeps the server's default, 30")
	timeout := fs.Duration("timeout", 0, "for URLs: give up after this long; 0 means the profile's seconds plus 30s (for -pyroscope and -parca: each query, 0 means 2m)")
	var src srcDirs
	fs.Var(&src, "src", "a `DIR` to find the source under when the recorded paths do not exist (repeatable, or comma-separated)")
	noSrc := fs.Bool("nosrc", false, "do not read the source: report the profile's findings alone")
	lim, maxMB := profileLimitFlags(fs)
	rf := registerRemoteFlags(fs)
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if code, ok := out.check(e); !ok {
		return code
	}
	if rf.set() {
		switch {
		case *rf.pyroscope != "" && *rf.parca != "":
			return e.usageError("give -pyroscope or -parca, not both")
		case fs.NArg() > 0:
			return e.usageError("-pyroscope and -parca take the profile from the server: give no PROFILE")
		case *seconds != 0:
			return e.usageError("-seconds is for /debug/pprof/profile URLs; the server's window is -from and -until")
		case *timeout < 0:
			return e.usageError("-timeout %v: must not be negative", *timeout)
		}
		if err := setProfileLimits(lim, *maxMB); err != nil {
			return e.usageError("%v", err)
		}
		dopt := diagnose.Options{}
		if !*noSrc {
			// The profile's paths are the services' machines'.
			dopt.Source = sourceReader(src, true)
		}
		return e.runRemoteProfile(ctx, &out, rf, *timeout, *lim, dopt, *classified)
	}
	if *rf.query != "" || *rf.by != "" {
		return e.usageError("-query and -by go with -pyroscope or -parca")
	}
	if fs.NArg() == 0 {
		return e.usageError("give at least one CPU profile (a file, - for stdin, or a /debug/pprof/profile URL)")
	}
	if code, ok := e.checkSeconds("seconds", *seconds, 0); !ok {
		return code
	}
	if *timeout < 0 {
		return e.usageError("-timeout %v: must not be negative", *timeout)
	}
	if err := setProfileLimits(lim, *maxMB); err != nil {
		return e.usageError("%v", err)
	}
	if n := len(slices.DeleteFunc(slices.Clone(fs.Args()), func(a string) bool { return a != "-" })); n > 1 {
		return e.usageError("- (stdin) given twice")
	}
	var profs []*pprof.Profile
	for _, arg := range fs.Args() {
		var p *pprof.Profile
		var err error
		switch {
		case arg == "-":
			e.doing("reading standard input")
			br := bufio.NewReaderSize(newCancelReader(ctx, e.Stdin, "reading standard input"), sniff.HeadSize)
			if err = checkKind(br, "stdin", "a CPU profile", profileTakes); err == nil {
				p, err = profile.Read(ctx, "stdin", br, *lim)
			}
		case strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://"):
			if err := e.checkEndpoint(arg); err != nil {
				return e.fail(err)
			}
			e.doing("fetching " + redactedURL(arg))
			p, err = profile.Fetch(ctx, arg, profile.FetchOptions{Seconds: *seconds, Timeout: *timeout, Read: *lim})
		default:
			e.doing("reading " + arg)
			// A regular file never blocks, but up to -max-mb of it and its
			// parse take a while: the context is checked between reads.
			if err = checkFileKind(arg, "a CPU profile", profileTakes); err == nil {
				p, err = profile.ReadFile(ctx, arg, *lim)
			}
		}
		if err != nil {
			return e.fail(err)
		}
		profs = append(profs, p)
	}
	restoreGC := analysisGC()
	// The flame graph is drawn in the HTML report only.
	res, err := profile.Analyze(profs, profile.Options{NoFlame: out.html == ""})
	restoreGC()
	if err != nil {
		return e.fail(fmt.Errorf("%s: %w", strings.Join(fs.Args(), ", "), err))
	}
	if *classified != "" {
		if err := writeClassified(*classified, res); err != nil {
			return e.fail(err)
		}
	}
	opt := diagnose.Options{}
	if !*noSrc {
		// The join reads the loop's kind at every frame of the hot stacks,
		// never the analyzers' findings: no package is loaded for them. A
		// fetched profile's paths are another machine's.
		opt.Source = sourceReader(src, slices.ContainsFunc(fs.Args(), isURL))
	}
	joined, err := diagnose.Profile(res, opt)
	if err != nil {
		return e.fail(err)
	}
	return e.emit(&out, report.Report{Source: finding.SourceProfile, Findings: joined.Findings, Summary: joined.Summary})
}

// analysisGCPercent is the GOGC of the analysis of profiles already read.
// Their parsed heap stays live to the end of the command, and the
// analysis allocates a quarter of what the parse did; the pacer set the
// next collection at twice the heap its last one found live, often just
// above where the parse ended, so the analysis would start a collection
// that marks the whole parsed heap (a 1.5 GB one at a merged profile of
// a million samples: 0.5 s of CPU, a third of what the parse cost) to
// free little (issue 23). At 300 the goal is at least twice the parsed
// heap (the last collection found at least half of it live), above it
// and what the analysis adds; the heap grows by what the analysis
// allocates, as it would with the collection, which frees little.
const analysisGCPercent = 300

// analysisGC raises the collector's percentage for the analysis (see
// analysisGCPercent) and returns what restores it; it leaves a GOGC the
// user set, or one already higher, alone.
func analysisGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(analysisGCPercent)
	if old < 0 || old >= analysisGCPercent {
		debug.SetGCPercent(old)
		return func() {}
	}
	return func() { debug.SetGCPercent(old) }
}

// srcDirs is the -src flag: directories, repeatable or comma-separated.
type srcDirs []string

func (s *srcDirs) String() string { return strings.Join(*s, ",") }

func (s *srcDirs) Set(v string) error {
	for _, d := range strings.Split(v, ",") {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		st, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("-src %s: %w", d, err)
		}
		if !st.IsDir() {
			return fmt.Errorf("-src %s: not a directory", d)
		}
		*s = append(*s, d)
	}
	return nil
}

// writeClassified writes -o FILE the way every user-named file is written
// (safewrite.ReplaceFile: 0600, a link at FILE replaced, not followed).
func writeClassified(name string, res *profile.Result) error {
	return safewrite.ReplaceFile(name, res.WriteClassified)
}

// profileLimitFlags registers the limits of profile.ReadOptions (issue 12): a
// profile over one is refused with exit 2 naming the limit and its flag.
func profileLimitFlags(fs *flag.FlagSet) (*profile.ReadOptions, *float64) {
	lim := &profile.ReadOptions{}
	maxMB := fs.Float64("max-mb", profile.DefaultMaxBytes>>20, "refuse a profile of more than this many `MB` (decompressed)")
	fs.IntVar(&lim.MaxSamples, "max-samples", profile.DefaultMaxSamples, "refuse a profile of more than `N` samples")
	fs.IntVar(&lim.MaxFrames, "max-frames", profile.DefaultMaxFrames, "refuse a profile whose stacks hold more than `N` frames in all")
	fs.IntVar(&lim.MaxLocations, "max-locations", profile.DefaultMaxLocations, "refuse a profile of more than `N` locations (functions, strings)")
	fs.Float64Var(&lim.MaxGzipRatio, "max-gzip-ratio", profile.DefaultMaxGzipRatio, "refuse gzip that inflates more than `R` times (past 1 MB)")
	return lim, maxMB
}

// setProfileLimits checks the limit flags and converts -max-mb to bytes.
func setProfileLimits(lim *profile.ReadOptions, maxMB float64) error {
	if !(maxMB > 0 && maxMB <= 1<<30) {
		return fmt.Errorf("-max-mb %g: want a size in MB above 0", maxMB)
	}
	lim.MaxBytes = int64(maxMB * (1 << 20))
	if lim.MaxSamples <= 0 || lim.MaxFrames <= 0 || lim.MaxLocations <= 0 {
		return fmt.Errorf("-max-samples, -max-frames and -max-locations must be above 0")
	}
	if !(lim.MaxGzipRatio >= 1 && lim.MaxGzipRatio <= 1e9) {
		return fmt.Errorf("-max-gzip-ratio %g: want a ratio of at least 1", lim.MaxGzipRatio)
	}
	return nil
}
