package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/contention"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/goroutines"
	"github.com/schedoctor/schedoctor/internal/sniff"
	"github.com/schedoctor/schedoctor/internal/sysread"
	"github.com/schedoctor/schedoctor/report"
)

func init() {
	register(&command{name: "goroutines", short: "leaks in goroutine dumps and the leak profile (SD701); lock queues in mutex/block profiles (SD309)", order: 25, run: runGoroutines})
}

// sourceGoroutines names this command's reports. The catalog has no Source
// constant for it yet; the string is the one DESIGN.md lists.
const sourceGoroutines = finding.SourceGoroutines

// goroutinesSummary is the JSON summary: either part is absent when no
// input of its kind was given.
type goroutinesSummary struct {
	Goroutines *goroutines.Summary `json:"goroutines,omitempty"`
	Contention *contention.Summary `json:"contention,omitempty"`
}

func (s *goroutinesSummary) WriteText(w io.Writer) error { return s.WriteTextWidth(w, helpWidth) }

func (s *goroutinesSummary) WriteTextWidth(w io.Writer, width int) error {
	if s.Goroutines != nil {
		if err := s.Goroutines.WriteTextWidth(w, width); err != nil {
			return err
		}
	}
	if s.Contention != nil {
		if s.Goroutines != nil {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		return s.Contention.WriteTextWidth(w, width)
	}
	return nil
}

func runGoroutines(ctx context.Context, e *Env, args []string) int {
	fs := e.newFlagSet("schedoctor goroutines [flags] INPUT...",
		`Group the goroutines of a dump by state, the line where they wait and the line that created
them, and report goroutine leaks (SD701); sum mutex and block profiles by call site and report
locks where goroutines queue (SD309).

INPUT is a file, - for stdin, or an http(s) URL, in any of these kinds (told apart by content):
  - a goroutine dump: /debug/pprof/goroutine?debug=2 (best: states, wait minutes, creators,
    IDs), ?debug=1 or the protobuf profile (no states as printed, no waits, no creators);
    give two, taken some minutes apart, to see growth
  - the leak profile of Go 1.26 with GOEXPERIMENT=goroutineleakprofile:
    /debug/pprof/goroutineleak (the GC proved its goroutines blocked forever)
  - a mutex or block profile: /debug/pprof/mutex, /debug/pprof/block (only populated when the
    program called runtime.SetMutexProfileFraction or SetBlockProfileRate)

A goroutine URL is fetched with ?debug=2 and stamped with the time of the answer, so two URLs
give the time between the dumps; a mutex or block URL is fetched as a -seconds delta.

SD701 by three methods, strongest first: goroutines the leak profile marked; a group that grew by
-min-group or more between the two dumps with 90% of its first-dump goroutines still there; a
group of -min-group or more parked on a send, a nil channel or a lock for -window or longer.
An idle keep-alive connection (IO wait) or an idle worker (receive, select) is never a leak by
age alone. docs/goroutines.md says what each method cannot see.`,
		`  curl -s 'localhost:6060/debug/pprof/goroutine?debug=2' > g1.txt; sleep 300; curl -s ... > g2.txt
  schedoctor goroutines g1.txt g2.txt
  schedoctor goroutines -window 30m dump.txt
  schedoctor goroutines http://localhost:6060/debug/pprof/goroutineleak
  schedoctor goroutines -json -duration 1h mutex.pb.gz block.pb.gz
  schedoctor goroutines -seconds 10 http://localhost:6060/debug/pprof/mutex`)
	var out outputFlags
	out.register(fs, false)
	window := fs.Duration("window", 0, "one dump: a group parked on a send, nil channel or lock this long is stuck (default 10m; with two fetched dumps, the time between them)")
	minGroup := fs.Int("min-group", goroutines.DefaultMinGroup, "fewest goroutines (stuck, or added between two dumps) for SD701")
	top := fs.Int("top", 20, "groups and sites to list")
	maxBytes := fs.Int64("max-bytes", goroutines.DefaultMaxBytes, "largest input accepted, in bytes")
	timeout := fs.Duration("timeout", 0, "for URLs: give up after this long (default 30s; a mutex/block delta: -seconds plus 30s)")
	seconds := fs.Int("seconds", 10, "for mutex/block URLs: the delta profile's length (?seconds=N)")
	duration := fs.Duration("duration", 0, "for mutex/block files: how long profiling had been enabled (a cumulative profile has no duration)")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if code, ok := out.check(e); !ok {
		return code
	}
	if fs.NArg() == 0 {
		return e.usageError("give at least one goroutine dump, leak profile, or mutex/block profile (a file, - for stdin, or a URL)")
	}
	if *window < 0 || *minGroup < 1 || *top < 1 || *maxBytes < 1 || *timeout < 0 || *seconds < 1 || *duration < 0 {
		return e.usageError("-window, -timeout and -duration must not be negative; -min-group, -top, -max-bytes and -seconds must be positive")
	}
	if code, ok := e.checkSeconds("seconds", *seconds, 1); !ok {
		return code
	}
	if *window > 0 && *window < time.Minute {
		return e.usageError("-window %v is below a minute: a dump prints waits in whole minutes only", *window)
	}
	stdin := 0
	for _, a := range fs.Args() {
		if a == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return e.usageError("- (stdin) given twice")
	}
	ropt := goroutines.ReadOptions{MaxBytes: *maxBytes}
	var dumps []*goroutines.Dump
	var profs []*contention.Profile
	for _, arg := range fs.Args() {
		d, p, err := readGoroutinesInput(ctx, e, arg, ropt, *timeout, *seconds)
		if err != nil {
			return e.fail(err)
		}
		if d != nil {
			if d.Skipped > 0 {
				e.warn("%s: %d malformed lines skipped", d.Name, d.Skipped)
			}
			if d.DroppedFrames > 0 {
				e.warn("%s: %d stack frames not kept (deeper than a Go stack can be, or over the limit of %d frames)", d.Name, d.DroppedFrames, goroutines.DefaultMaxFrames)
			} else if d.Truncated {
				e.warn("%s: more than %d goroutine records; the rest were not read", d.Name, goroutines.DefaultMaxGoroutines)
			}
			dumps = append(dumps, d)
		}
		if p != nil {
			profs = append(profs, p)
		}
	}
	var sum goroutinesSummary
	var fsOut []finding.Finding
	if len(dumps) > 0 {
		res, err := goroutines.Analyze(dumps, goroutines.Options{Window: *window, MinGroup: *minGroup, Top: *top})
		if err != nil {
			return e.fail(err)
		}
		sum.Goroutines = res.Summary
		fsOut = append(fsOut, res.Findings...)
	}
	if len(profs) > 0 {
		res, err := contention.Analyze(profs, contention.Options{Duration: *duration, Top: *top})
		if err != nil {
			return e.fail(err)
		}
		sum.Contention = res.Summary
		fsOut = append(fsOut, res.Findings...)
	}
	return e.emit(&out, report.Report{Source: sourceGoroutines, Findings: fsOut, Summary: &sum})
}

// readGoroutinesInput reads one argument as a goroutine dump or, failing
// that, a mutex or block profile.
func readGoroutinesInput(ctx context.Context, e *Env, arg string, ropt goroutines.ReadOptions, timeout time.Duration, seconds int) (*goroutines.Dump, *contention.Profile, error) {
	if strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://") {
		path, _, _ := strings.Cut(arg, "?")
		path = strings.TrimSuffix(path, "/")
		if strings.HasSuffix(path, "/mutex") || strings.HasSuffix(path, "/block") {
			p, err := contention.Fetch(ctx, arg, contention.FetchOptions{Seconds: seconds, Timeout: timeout, MaxBytes: ropt.MaxBytes})
			return nil, p, err
		}
		d, err := goroutines.Fetch(ctx, arg, goroutines.FetchOptions{Timeout: timeout, Read: ropt})
		return d, nil, err
	}
	var data []byte
	var err error
	name := arg
	if arg == "-" {
		name = "stdin"
	}
	r, closeIn, err := e.openInput(ctx, arg)
	truncated := false
	if err == nil {
		// A file's size sizes the buffer: memory is the input's size, not
		// the 2x of a growing buffer.
		data, truncated, err = sysread.Reader(r, name, ropt.MaxBytes)
		closeIn()
	}
	if err != nil {
		return nil, nil, err
	}
	if truncated {
		return nil, nil, fmt.Errorf("%s: larger than the limit of %d bytes (raise -max-bytes)", name, ropt.MaxBytes)
	}
	if err := sniff.Check(name, data[:min(len(data), sniff.HeadSize)], "a goroutine dump, leak, mutex or block profile", goroutinesTakes...); err != nil {
		return nil, nil, err
	}
	d, derr := goroutines.Parse(name, data, ropt)
	if derr == nil {
		return d, nil, nil
	}
	if !errors.Is(derr, goroutines.ErrNotDump) {
		return nil, nil, derr
	}
	p, perr := contention.Parse(name, data, contention.ReadOptions{MaxBytes: ropt.MaxBytes})
	if perr == nil {
		return nil, p, nil
	}
	if !errors.Is(perr, contention.ErrNotContention) {
		return nil, nil, perr
	}
	return nil, nil, fmt.Errorf("%w; nor a mutex or block profile", derr)
}
