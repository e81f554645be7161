// Package contention reads Go mutex and block profiles and reports where
// goroutines wait for one another: seconds of waiting by call site, per
// second of profile, and SD309 for a lock site where goroutines queue. Its
// entry points are those of every source (docs/HACKING.md, "Sources"):
// Read(ctx, name, r, ReadOptions) or ReadFile(ctx, name, ReadOptions),
// bounded by ReadOptions, then Analyze(profiles, Options) (*Result, error).
//
// The entry points:
//
//	p, err := contention.ReadFile(ctx, "mutex.pb.gz", contention.ReadOptions{}) // or Read, Fetch
//	res, err := contention.Analyze([]*contention.Profile{p}, contention.Options{})
//	res.Findings, res.Summary
//
// Both profiles exist only when the program asked for them: the mutex
// profile after runtime.SetMutexProfileFraction(n > 0), the block profile
// after runtime.SetBlockProfileRate(rate > 0). Both are off by default, so a
// profile without samples says "not enabled (or nothing recorded since)",
// never "no contention".
//
// What the two measure differs (runtime/pprof, Go 1.26):
//
//   - mutex: for each contended sync.Mutex/RWMutex (and runtime-internal
//     lock) the delay the waiters suffered, recorded at the Unlock of the
//     goroutine that held it: the site is where the lock is released, the
//     end of the critical section to shorten. The runtime scales sampled
//     events back up by the fraction.
//   - block: the time each goroutine spent blocked, at the blocking call
//     (Lock, channel operations, select, WaitGroup.Wait, Cond.Wait). A
//     worker idle on a channel receive accumulates block time without any
//     contention, so only sync.Mutex/RWMutex sites count toward SD309.
//
// Both are cumulative since the rate was set. A profile from
// /debug/pprof/mutex?seconds=N is a delta and records its duration; for a
// cumulative one the caller gives Options.Duration (how long profiling has
// been on), or the report gives seconds of waiting without rates.
//
// Functions are safe for concurrent use. Nothing here panics on its input.
package contention

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/httpfetch"
	"github.com/schedoctor/schedoctor/internal/sysread"
	"github.com/schedoctor/schedoctor/internal/textlayout"
	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// Kind is which profile.
type Kind string

const (
	Mutex Kind = "mutex"
	Block Kind = "block"
)

// Defaults of ReadOptions. A mutex or block profile holds one sample per
// distinct blocking stack: some hundreds in a busy service. The record
// limits are checked on the wire format before pprof parses the profile,
// which allocates for every record a profile claims: without them a small
// gzip could claim millions of samples and cost gigabytes.
const (
	DefaultMaxBytes     = 256 << 20 // compressed input, and its decompressed form
	DefaultMaxSamples   = 500_000
	DefaultMaxFrames    = 8_000_000 // location IDs over all samples
	DefaultMaxLocations = 250_000   // locations, functions, mappings, strings each
)

// ErrNotContention is wrapped by the error for a profile of another kind.
var ErrNotContention = errors.New("not a mutex or block profile")

// ReadOptions bound Read. The zero value gives the defaults.
type ReadOptions struct {
	MaxBytes     int64 // 0 means DefaultMaxBytes
	MaxSamples   int   // 0 means DefaultMaxSamples
	MaxFrames    int   // 0 means DefaultMaxFrames
	MaxLocations int   // 0 means DefaultMaxLocations
	// Kind, when set, says which profile this is; otherwise it is read
	// from the stacks (a mutex profile's leaf is an Unlock).
	Kind Kind
}

// Profile is one mutex or block profile.
type Profile struct {
	Name     string
	Kind     Kind
	Duration time.Duration // recorded by a delta profile (?seconds=N); 0 when cumulative
	Prof     *pprof.Profile
	// Skipped counts the samples with a negative value (corrupt or
	// crafted): Analyze leaves them out and says how many.
	Skipped  int
	contIdx  int
	delayIdx int
}

// ReadFile reads the profile in the named file. Anything but a regular file
// (a FIFO would block, /dev/zero never ends) is refused at once.
func ReadFile(ctx context.Context, name string, opt ReadOptions) (*Profile, error) {
	return sysread.WithFile(name, func(f *os.File) (*Profile, error) { return Read(ctx, name, f, opt) })
}

// Read parses one mutex or block profile (gzip-compressed or not) from r;
// name (a file, "stdin" or a URL) is used in errors. It reads at most
// opt.MaxBytes; when ctx is done by the end of the read, the error wraps
// context.Cause(ctx) (a reader that blocks must be made to return by its
// owner).
func Read(ctx context.Context, name string, r io.Reader, opt ReadOptions) (*Profile, error) {
	limit := opt.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	data, truncated, err := sysread.Reader(r, name, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: reading: %w", name, err)
	}
	if truncated {
		return nil, fmt.Errorf("%s: larger than the limit of %d bytes", name, limit)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: %w", name, context.Cause(ctx))
	}
	return parse(name, data, opt)
}

// parse is Read on bytes in memory.
func parse(name string, data []byte, opt ReadOptions) (*Profile, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%s: empty: %w", name, ErrNotContention)
	}
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		limit := opt.MaxBytes
		if limit <= 0 {
			limit = DefaultMaxBytes
		}
		raw, err := sysread.Gunzip(data, limit)
		if errors.Is(err, sysread.ErrTooLarge) {
			return nil, fmt.Errorf("%s: uncompresses to more than the limit of %d bytes", name, limit)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		data = raw
	}
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("--- contention:")) {
		return nil, fmt.Errorf("%s: this is the debug=1 text form; give the protobuf profile (/debug/pprof/mutex without ?debug): %w", name, ErrNotContention)
	}
	counts, err := sysread.CountProto(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a pprof profile (%v): %w", name, err, ErrNotContention)
	}
	if err := opt.check(counts); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p, err := pprof.ParseUncompressed(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a pprof profile (%v): %w", name, err, ErrNotContention)
	}
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("%s: malformed profile: %v", name, err)
	}
	cp := &Profile{Name: name, Prof: p, contIdx: -1, delayIdx: -1, Duration: time.Duration(p.DurationNanos)}
	var types []string
	for i, st := range p.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
		switch {
		case st.Type == "contentions" && st.Unit == "count":
			cp.contIdx = i
		case st.Type == "delay" && st.Unit == "nanoseconds":
			cp.delayIdx = i
		}
	}
	if cp.contIdx < 0 || cp.delayIdx < 0 {
		return nil, fmt.Errorf("%s: sample types are %s, want contentions/count and delay/nanoseconds: %w",
			name, strings.Join(types, ", "), ErrNotContention)
	}
	cp.Kind = opt.Kind
	if cp.Kind == "" {
		cp.Kind = guessKind(p)
	}
	for _, smp := range p.Sample {
		if !plausible(smp.Value[cp.contIdx]) || !plausible(smp.Value[cp.delayIdx]) {
			cp.Skipped++
		}
	}
	if cp.Duration < 0 {
		cp.Duration = 0 // a negative duration is corrupt: treat as unknown
	}
	return cp, nil
}

// plausible: counts and delays are never negative. (Large values are not
// implausible: a cumulative block profile of idle workers adds up days of
// waiting per stack; sums saturate instead of overflowing.)
func plausible(v int64) bool { return v >= 0 }

// addSat adds non-negative counts, stopping at the largest int64.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// ErrLimit is wrapped by the error for a profile over one of the record
// limits of ReadOptions.
var ErrLimit = errors.New("over a limit")

// check refuses a profile whose records exceed the limits, naming the
// limit and the count.
func (o ReadOptions) check(c sysread.ProtoCounts) error {
	for _, l := range []struct {
		what      string
		n, max, d int
	}{
		{"samples", c.Samples, o.MaxSamples, DefaultMaxSamples},
		{"stack frames", c.Frames, o.MaxFrames, DefaultMaxFrames},
		{"locations, functions, mappings or strings", c.Max(), o.MaxLocations, DefaultMaxLocations},
	} {
		limit := cmp.Or(l.max, l.d)
		if l.n > limit {
			return fmt.Errorf("%d %s, %w of %d: a contention profile holds one sample per blocking stack, so this one is corrupt or crafted", l.n, l.what, ErrLimit, limit)
		}
	}
	return nil
}

// guessKind tells the two apart by their leaves: the mutex profile records
// the Unlock that ended a contention, the block profile the blocking call.
// An empty profile cannot tell; it is called a mutex profile, and says so
// nowhere else because it has no sites.
func guessKind(p *pprof.Profile) Kind {
	for _, s := range p.Sample {
		if len(s.Location) == 0 || len(s.Location[0].Line) == 0 || s.Location[0].Line[0].Function == nil {
			continue
		}
		if strings.Contains(strings.ToLower(s.Location[0].Line[0].Function.Name), "unlock") {
			return Mutex
		}
		return Block
	}
	return Mutex
}

// FetchOptions tune Fetch. The zero value asks for a 10-second delta.
type FetchOptions struct {
	Seconds  int           // ?seconds=N (a delta profile that records its duration); 0 means 10, -1 the cumulative profile
	Timeout  time.Duration // 0 means Seconds + 30s
	Client   *http.Client  // nil means http.DefaultClient
	MaxBytes int64
}

// Fetch downloads a profile from a /debug/pprof/mutex or /block URL.
func Fetch(ctx context.Context, rawURL string, opt FetchOptions) (*Profile, error) {
	u, err := httpfetch.ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	secs := opt.Seconds
	if secs == 0 {
		secs = 10
	}
	q := u.Query()
	if secs > 0 && q.Get("seconds") == "" {
		q.Set("seconds", fmt.Sprint(secs))
	}
	q.Del("debug")
	u.RawQuery = q.Encode()
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = time.Duration(max(secs, 0))*time.Second + 30*time.Second
	}
	limit := opt.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	resp, err := httpfetch.Get(ctx, u, httpfetch.Options{
		Client: opt.Client, Timeout: timeout, Limit: limit,
		Expect: "/debug/pprof/mutex or /block", What: "a mutex or block profile",
	})
	if err != nil {
		return nil, err
	}
	defer resp.Close()
	kind := Kind("")
	switch path := strings.TrimSuffix(u.Path, "/"); {
	case strings.HasSuffix(path, "/mutex"):
		kind = Mutex
	case strings.HasSuffix(path, "/block"):
		kind = Block
	}
	// The body is read under the request's deadline (the transport ends a
	// read when it passes); a cut or late answer is named as such.
	p, err := Read(resp.Context(), resp.Name, resp.Body, ReadOptions{MaxBytes: opt.MaxBytes, Kind: kind})
	return p, resp.Err(err)
}

// Thresholds of SD309 from a contention profile, the trace's own (SD309
// in exectrace): a site where 0.25 goroutines wait on average, over 20
// contentions at least. Measured (docs/goroutines.md): 8 goroutines
// holding one lock 50µs each give 5.6 waiters; one goroutine taking a
// lock every millisecond beside a busy one gives 0.022.
const (
	DefaultMinWaiters     = 0.25
	DefaultMinContentions = 20
)

// Options tune Analyze. The zero value gives the defaults.
type Options struct {
	// Duration is how long a cumulative profile covers (how long the
	// rate has been set); a delta profile's own duration wins.
	Duration       time.Duration
	MinWaiters     float64 // 0 means DefaultMinWaiters
	MinContentions int64   // 0 means DefaultMinContentions
	Top            int     // sites in the summary; 0 means 10
}

// Site is the waiting at one call site of one profile kind.
type Site struct {
	Kind        Kind    `json:"kind"`
	Function    string  `json:"function"`
	File        string  `json:"file"`
	Line        int     `json:"line"`
	Blocking    string  `json:"blocking"` // the sync/runtime frame below the site: sync.(*Mutex).Lock, runtime.chanrecv1, ...
	Lock        bool    `json:"lock"`     // a sync.Mutex/RWMutex site (the only ones SD309 counts)
	Contentions int64   `json:"contentions"`
	DelaySecs   float64 `json:"delay_seconds"`
	// Waiters is seconds of waiting per second of profile: the average
	// number of goroutines waiting here. 0 when the duration is unknown.
	Waiters float64 `json:"waiters"`
}

// ProfileSummary describes one input.
type ProfileSummary struct {
	Name        string  `json:"name"`
	Kind        Kind    `json:"kind"`
	Enabled     bool    `json:"enabled"` // has samples
	Status      string  `json:"status"`
	Seconds     float64 `json:"seconds"` // the duration the rates use; 0 unknown
	Contentions int64   `json:"contentions"`
	DelaySecs   float64 `json:"delay_seconds"`
	Skipped     int     `json:"skipped,omitempty"` // corrupt samples left out
}

// Summary is the JSON summary of the contention source.
type Summary struct {
	Profiles []ProfileSummary `json:"profiles"`
	Sites    []Site           `json:"sites"`
	Total    int              `json:"sites_total"`
}

// Hints asks for the collection time of a cumulative profile whose
// duration is unknown: without it the waits have no rate.
func (s *Summary) Hints() []finding.Note {
	for _, p := range s.Profiles {
		if p.Enabled && p.Seconds <= 0 {
			return []finding.Note{finding.HintNote(finding.HintDuration, "give how long profiling had been enabled, for rates")}
		}
	}
	return nil
}

// Result is what Analyze found.
type Result struct {
	Findings []finding.Finding
	Summary  *Summary
}

// Analyze sums each profile's waiting by call site and reports SD309 for
// sync.Mutex/RWMutex sites where goroutines queue.
func Analyze(profs []*Profile, opt Options) (*Result, error) {
	if len(profs) == 0 {
		return nil, errors.New("no mutex or block profile given")
	}
	minW := cmp.Or(opt.MinWaiters, DefaultMinWaiters)
	minC := cmp.Or(opt.MinContentions, DefaultMinContentions)
	top := cmp.Or(opt.Top, 10)
	s := &Summary{Sites: []Site{}}
	var all []Site
	for _, p := range profs {
		dur := p.Duration
		if dur <= 0 {
			dur = opt.Duration
		}
		ps := ProfileSummary{Name: p.Name, Kind: p.Kind, Seconds: dur.Seconds()}
		sites := map[[3]string]*Site{}
		var order []*Site
		for _, smp := range p.Prof.Sample {
			c, d := smp.Value[p.contIdx], smp.Value[p.delayIdx]
			if c <= 0 && d <= 0 || !plausible(c) || !plausible(d) {
				continue // nothing recorded, or corrupt (counted in p.Skipped)
			}
			ps.Contentions = addSat(ps.Contentions, c)
			ps.DelaySecs += float64(d) / 1e9
			fn, file, line, blocking := siteOf(smp)
			k := [3]string{fn, file, fmt.Sprint(line) + " " + blocking}
			st := sites[k]
			if st == nil {
				st = &Site{Kind: p.Kind, Function: fn, File: file, Line: line, Blocking: blocking, Lock: isLock(blocking)}
				sites[k] = st
				order = append(order, st)
			}
			st.Contentions = addSat(st.Contentions, c)
			st.DelaySecs += float64(d) / 1e9
		}
		ps.Enabled = ps.Contentions > 0 || ps.DelaySecs > 0
		switch {
		case !ps.Enabled && p.Kind == Mutex:
			ps.Status = "no samples: not enabled (runtime.SetMutexProfileFraction is 0 by default), or nothing recorded since it was"
		case !ps.Enabled:
			ps.Status = "no samples: not enabled (runtime.SetBlockProfileRate is 0 by default), or nothing recorded since it was"
		case dur <= 0:
			ps.Status = "cumulative profile of unknown duration: seconds of waiting only (give how long it had been collecting, or fetch a delta with ?seconds=N)"
		default:
			ps.Status = "ok"
		}
		if p.Skipped > 0 {
			ps.Skipped = p.Skipped
			ps.Status += fmt.Sprintf("; %d samples with a negative value skipped", p.Skipped)
		}
		for _, st := range order {
			if dur > 0 {
				st.Waiters = st.DelaySecs / dur.Seconds()
			}
			all = append(all, *st)
		}
		ps.DelaySecs = round3(ps.DelaySecs)
		s.Profiles = append(s.Profiles, ps)
	}
	slices.SortStableFunc(all, func(a, b Site) int {
		return cmp.Or(cmp.Compare(b.DelaySecs, a.DelaySecs), strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	res := &Result{Summary: s}
	for _, st := range all {
		if st.Lock && st.Waiters >= minW && st.Contentions >= minC && finding.UserFunction(st.Function) {
			res.Findings = append(res.Findings, siteFinding(st, minW))
		}
	}
	s.Total = len(all)
	for i := range all {
		all[i].DelaySecs = round3(all[i].DelaySecs)
		all[i].Waiters = round3(all[i].Waiters)
	}
	s.Sites = all[:min(len(all), top)]
	finding.Sort(res.Findings)
	return res, nil
}

// siteOf finds the first user frame above the sync and runtime frames,
// leaf first, and the frame below it that blocks (or unlocks). Without a
// user frame the site is the first frame outside the runtime.
func siteOf(s *pprof.Sample) (fn, file string, line int, blocking string) {
	var frames []pprof.Line
	for _, loc := range s.Location {
		for _, ln := range loc.Line {
			if ln.Function != nil {
				frames = append(frames, ln)
			}
		}
	}
	at := -1
	for i, ln := range frames {
		if finding.UserFunction(ln.Function.Name) {
			at = i
			break
		}
	}
	if at < 0 {
		for i, ln := range frames {
			if finding.FuncPackage(ln.Function.Name) != "runtime" {
				at = i
				break
			}
		}
	}
	if at < 0 {
		if len(frames) == 0 {
			return "?", "", 0, ""
		}
		at = 0
	}
	if at > 0 {
		blocking = frames[at-1].Function.Name
	}
	f := frames[at]
	return f.Function.Name, f.Function.Filename, int(f.Line), blocking
}

// isLock reports whether the blocking frame is sync.Mutex or RWMutex
// (Lock, RLock, Unlock, RUnlock and their internal/sync slow paths).
func isLock(blocking string) bool {
	return strings.Contains(blocking, "Mutex).")
}

func siteFinding(st Site, minW float64) finding.Finding {
	short := filepath.Base(st.File)
	var msg, fix string
	if st.Kind == Mutex {
		msg = fmt.Sprintf("%.2f goroutines wait on average for the lock released at %s:%d (%s): %.1fs of waiting in %d contentions (mutex profile)",
			st.Waiters, short, st.Line, shortFunc(st.Function), st.DelaySecs, st.Contentions)
		fix = "Shorten the critical section that ends at this Unlock (move work out of it), or shard the lock"
	} else {
		msg = fmt.Sprintf("%.2f goroutines wait on average at the Lock at %s:%d (%s): %.1fs blocked in %d contentions (block profile)",
			st.Waiters, short, st.Line, shortFunc(st.Function), st.DelaySecs, st.Contentions)
		fix = "Shorten or shard the critical section this Lock enters"
	}
	return finding.Finding{
		Rule:      "SD309",
		Severity:  finding.Warning,
		Message:   msg,
		Locations: []finding.Location{{File: st.File, Line: st.Line, Function: st.Function}},
		Evidence: []finding.Evidence{
			{Label: "goroutines waiting on average (" + string(st.Kind) + " profile delay over its duration)", Value: round3(st.Waiters), Unit: "goroutines"},
			{Label: "delay", Value: round3(st.DelaySecs), Unit: "s"},
			{Label: "contentions", Value: float64(st.Contentions), Unit: "count"},
			{Label: "threshold", Value: minW, Unit: "goroutines"},
		},
		Fix: fix,
	}
}

func shortFunc(fn string) string {
	if i := strings.LastIndexByte(fn, '/'); i >= 0 {
		return fn[i+1:]
	}
	return fn
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

// WriteText prints each profile's status and the top sites, in 80
// columns.
func (s *Summary) WriteText(w io.Writer) error { return s.WriteTextWidth(w, 80) }

// WriteTextWidth prints each profile's status and the top sites within
// width columns (0: unwrapped): the sentences wrap, and a site wraps under
// itself. Names from the profile are escaped (textsafe).
func (s *Summary) WriteTextWidth(w io.Writer, width int) error {
	var b strings.Builder
	for _, p := range s.Profiles {
		line := fmt.Sprintf("%s: %s profile, ", p.Name, p.Kind)
		switch {
		case !p.Enabled:
			line += p.Status
		case p.Seconds > 0:
			line += fmt.Sprintf("%d contentions, %.3fs of waiting over %s (%.3f goroutines waiting on average)", p.Contentions, p.DelaySecs,
				time.Duration(p.Seconds*float64(time.Second)).Round(time.Millisecond), p.DelaySecs/p.Seconds)
		default:
			line += fmt.Sprintf("%d contentions, %.3fs of waiting; %s", p.Contentions, p.DelaySecs, p.Status)
		}
		b.WriteString(textlayout.WrapFit("", "  ", textsafe.String(line), width))
	}
	if len(s.Sites) > 0 {
		b.WriteString("\nkind   waiters  delay      contentions  site\n")
		for _, st := range s.Sites {
			waiters := "-"
			if st.Waiters > 0 {
				waiters = fmt.Sprintf("%.3f", st.Waiters)
			}
			site := shortFunc(st.Function)
			if st.File != "" {
				site = fmt.Sprintf("%s:%d %s", filepath.Base(st.File), st.Line, site)
			}
			if st.Blocking != "" {
				site += " via " + shortFunc(st.Blocking)
			}
			row := fmt.Sprintf("%-6s %7s  %9.3fs  %11d  ", textsafe.String(string(st.Kind)), waiters, st.DelaySecs, st.Contentions)
			b.WriteString(textlayout.WrapFit(row, strings.Repeat(" ", len(row)+2), textsafe.String(site), width))
		}
		if n := s.Total - len(s.Sites); n > 0 {
			fmt.Fprintf(&b, "(%d smaller sites not shown)\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
