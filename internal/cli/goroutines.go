package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
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

// sourceGoroutines names this command's reports (the sources are listed in
// docs/contract.md).
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
give the time between the dumps; the second is taken -interval after the first, since growth
needs time. A mutex or block URL is fetched as a -seconds delta.

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
	interval := fs.Duration("interval", defaultDumpInterval, "two goroutine dump URLs: take the second this long after the first (growth needs time; 0 takes them at once)")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if code, ok := out.check(e); !ok {
		return code
	}
	if fs.NArg() == 0 {
		return e.usageError("give at least one goroutine dump, leak profile, or mutex/block profile (a file, - for stdin, or a URL)")
	}
	if *window < 0 || *minGroup < 1 || *top < 1 || *maxBytes < 1 || *timeout < 0 || *seconds < 1 || *duration < 0 || *interval < 0 {
		return e.usageError("-window, -timeout, -duration and -interval must not be negative; -min-group, -top, -max-bytes and -seconds must be positive")
	}
	if *interval > 24*time.Hour {
		return e.usageError("-interval %v: want at most 24h", *interval)
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
	var plain []plainDump // the goroutine dumps (not leak profiles), for the growth method
	for _, arg := range fs.Args() {
		if isURL(arg) {
			if err := e.checkEndpoint(arg); err != nil {
				return e.fail(err)
			}
		}
		if len(plain) > 0 && plain[0].fetched && isDumpURL(arg) {
			// A second dump taken at once shows no growth, however fast
			// goroutines leak: wait out the interval from the first.
			if err := e.waitForSecondDump(ctx, plain[0].at, *interval); err != nil {
				return e.fail(err)
			}
		}
		d, p, digest, err := readGoroutinesInput(ctx, e, arg, ropt, *timeout, *seconds)
		if err != nil {
			return e.fail(err)
		}
		if d != nil && d.Profile != goroutines.ProfileGoroutineLeak {
			plain = append(plain, plainDump{dump: d, fetched: isURL(arg), at: time.Now(), digest: digest})
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
	if len(plain) == 2 {
		if why := noGapBetween(plain[0], plain[1]); why != "" {
			e.warn("%s: growth needs time, so the growth method (SD701 by a group that grew) saw nothing; take the second dump minutes after the first (two URLs: -interval)", why)
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

// defaultDumpInterval is the time between two goroutine dumps fetched
// from URLs. The growth method needs -min-group (10) goroutines added
// between them: 10 s sees a leak of one goroutine a second; check's
// dumps, around its CPU profile, are 8 to 10 s apart for the same reason.
const defaultDumpInterval = 10 * time.Second

// minDumpGap is the least time between two dumps for growth to be
// measurable: two dumps taken back to back are milliseconds apart.
const minDumpGap = time.Second

// plainDump is a goroutine dump as read, for the check that two dumps
// were not taken at the same moment.
type plainDump struct {
	dump    *goroutines.Dump
	fetched bool      // from a URL
	at      time.Time // when it was read, on this machine's clock
	digest  [32]byte  // of a file's bytes; zero for URLs
}

// noGapBetween says why a and b cannot show growth, or "": their recorded
// times are less than minDumpGap apart, or they are the same bytes (a
// file given twice, or a copy: a debug=2 dump records no time).
func noGapBetween(a, b plainDump) string {
	ta, tb := a.dump.Time, b.dump.Time
	if !ta.IsZero() && !tb.IsZero() {
		if gap := tb.Sub(ta); gap >= 0 && gap < minDumpGap {
			return fmt.Sprintf("%s and %s were taken %v apart", a.dump.Name, b.dump.Name, gap.Round(time.Millisecond))
		}
		return ""
	}
	if !a.fetched && !b.fetched && a.digest == b.digest {
		return fmt.Sprintf("%s and %s hold the same dump", a.dump.Name, b.dump.Name)
	}
	return ""
}

// isDumpURL says whether arg is fetched as a plain goroutine dump (not a
// mutex or block profile, not the leak profile, which needs no second).
func isDumpURL(arg string) bool {
	if !isURL(arg) {
		return false
	}
	path := urlPath(arg)
	return !strings.HasSuffix(path, "/mutex") && !strings.HasSuffix(path, "/block") && !strings.HasSuffix(path, "/goroutineleak")
}

func urlPath(arg string) string {
	path, _, _ := strings.Cut(arg, "?")
	return strings.TrimSuffix(path, "/")
}

// waitForSecondDump waits until interval after first (when the first dump
// came, on this machine's clock: a proto's own time is the target's),
// saying so: the wait is the point, not a hang.
func (e *Env) waitForSecondDump(ctx context.Context, first time.Time, interval time.Duration) error {
	wait := time.Until(first.Add(interval))
	if wait <= 0 {
		return nil
	}
	fmt.Fprintf(e.Stderr, "schedoctor goroutines: taking the second dump in %v (-interval): growth needs time\n", wait.Round(time.Second))
	e.doing("waiting for the second goroutine dump")
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for the second dump: %w", context.Cause(ctx))
	}
}

// readGoroutinesInput reads one argument as a goroutine dump or, failing
// that, a mutex or block profile. digest is the SHA-256 of a file's bytes.
func readGoroutinesInput(ctx context.Context, e *Env, arg string, ropt goroutines.ReadOptions, timeout time.Duration, seconds int) (d *goroutines.Dump, p *contention.Profile, digest [32]byte, err error) {
	if isURL(arg) {
		path := urlPath(arg)
		if strings.HasSuffix(path, "/mutex") || strings.HasSuffix(path, "/block") {
			p, err := contention.Fetch(ctx, arg, contention.FetchOptions{Seconds: seconds, Timeout: timeout, MaxBytes: ropt.MaxBytes})
			return nil, p, digest, err
		}
		d, err := goroutines.Fetch(ctx, arg, goroutines.FetchOptions{Timeout: timeout, Read: ropt})
		return d, nil, digest, err
	}
	d, p, digest, err = readGoroutinesFile(ctx, e, arg, ropt)
	return
}

// readGoroutinesFile reads a file or stdin.
func readGoroutinesFile(ctx context.Context, e *Env, arg string, ropt goroutines.ReadOptions) (*goroutines.Dump, *contention.Profile, [32]byte, error) {
	var digest [32]byte
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
		return nil, nil, digest, err
	}
	if truncated {
		return nil, nil, digest, fmt.Errorf("%s: larger than the limit of %d bytes (raise -max-bytes)", name, ropt.MaxBytes)
	}
	digest = sha256.Sum256(data)
	if err := sniff.Check(name, data[:min(len(data), sniff.HeadSize)], "a goroutine dump, leak, mutex or block profile", goroutinesTakes...); err != nil {
		return nil, nil, digest, err
	}
	d, derr := goroutines.Read(ctx, name, bytes.NewReader(data), ropt)
	if derr == nil {
		return d, nil, digest, nil
	}
	if !errors.Is(derr, goroutines.ErrNotDump) {
		return nil, nil, digest, derr
	}
	p, perr := contention.Read(ctx, name, bytes.NewReader(data), contention.ReadOptions{MaxBytes: ropt.MaxBytes})
	if perr == nil {
		return nil, p, digest, nil
	}
	if !errors.Is(perr, contention.ErrNotContention) {
		return nil, nil, digest, perr
	}
	return nil, nil, digest, fmt.Errorf("%w; nor a mutex or block profile", derr)
}
