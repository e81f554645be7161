package profile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/internal/httpfetch"
	"github.com/schedoctor/schedoctor/internal/sniff"
)

// MaxSize was the one size cap of Read and Fetch; ReadOptions.MaxBytes
// (DefaultMaxBytes) replaces it. Kept for callers that size buffers by it.
const MaxSize = 256 << 20

// ErrEmpty is wrapped by the error for a CPU profile without samples.
var ErrEmpty = errors.New("empty CPU profile")

// ErrNotCPU is wrapped by the errors for profiles of another kind (heap,
// goroutine, mutex, block).
var ErrNotCPU = errors.New("not a CPU profile")

// ErrNotRegular is wrapped when ReadFile is given a FIFO, a device, a
// directory or a socket: reading one could block forever or never end.
var ErrNotRegular = errors.New("not a regular file")

// Read parses one CPU profile (gzip-compressed or not) from r; name (a
// file name, "stdin", or a URL) is used in errors. It checks that the
// profile is a CPU profile with samples and sane numbers, and stops reading
// as soon as the input passes one of opt's limits (the error wraps ErrLimit
// and is a *LimitError), so memory and time stay bounded by the limits,
// not by the input. It also stops when ctx is done: between reads of r (a
// reader that blocks must be made to return by its owner) and before and
// after the parse, which itself runs to its end (the limits bound it); the
// error then wraps context.Cause(ctx).
func Read(ctx context.Context, name string, r io.Reader, opt ReadOptions) (*profile.Profile, error) {
	lim, err := opt.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	data, err := readData(ctx, r, lim)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: %w", name, context.Cause(ctx))
	}
	p, err := parse(name, data)
	if ctx.Err() != nil {
		// The caller asked to stop: a profile parsed meanwhile is not used.
		return nil, fmt.Errorf("%s: %w", name, context.Cause(ctx))
	}
	return p, err
}

// ReadFile reads the CPU profile in the named file, as Read does. Anything
// but a regular file (a FIFO would block, /dev/zero never ends) is refused
// before it is opened for reading.
func ReadFile(ctx context.Context, name string, opt ReadOptions) (*profile.Profile, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, err // *PathError names the file
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s); give a CPU profile file, or - to read stdin", name, ErrNotRegular, fileKind(st.Mode()))
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The path may have been replaced between Stat and Open.
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", name, ErrNotRegular, fileKind(st.Mode()))
	}
	return Read(ctx, name, f, opt)
}

func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}

// countingReader counts the compressed bytes the gzip reader consumed.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readData reads the protobuf bytes of a profile, decompressing gzip, and
// checks the limits and the top-level structure as the bytes arrive.
func readData(ctx context.Context, r io.Reader, lim ReadOptions) ([]byte, error) {
	br := bufio.NewReader(r)
	head, err := br.Peek(2)
	if len(head) == 0 {
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("reading: %w", err)
		}
		return nil, errors.New("empty file; give a CPU profile (pprof format)")
	}
	in := &countingReader{r: br}
	src := io.Reader(in)
	gzipped := len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b
	buf := make([]byte, 0, 64<<10)
	if gzipped {
		// The compressed bytes first: their gzip trailer says how many
		// the profile is, so that they go into one buffer, not one that
		// doubles until they fit (at a million samples 190 MB of fresh
		// memory touched for 78 MB, and the page faults of it cost more
		// than the copies).
		comp, err := readCompressed(ctx, br, lim)
		if err != nil {
			return nil, err
		}
		buf = make([]byte, 0, gzipSizeHint(comp, lim))
		in = &countingReader{r: bytes.NewReader(comp)}
		// Decompress ourselves so that a truncated file says so instead
		// of pprof's generic "unrecognized profile format".
		zr, err := gzip.NewReader(in)
		if err != nil {
			return nil, fmt.Errorf("bad gzip header: %w", err)
		}
		src = zr
	}
	sc := scanner{lim: lim}
	for {
		// A regular file never blocks, so checking between reads stops a
		// 64 MB read within one buffer's time.
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(cap(buf), int(lim.MaxBytes)+1-len(buf)))
		}
		n, rerr := src.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > lim.MaxBytes || in.n > lim.MaxBytes {
			what := "decompressed bytes"
			if !gzipped {
				what = "bytes"
			} else if in.n > lim.MaxBytes {
				what = "compressed bytes"
			}
			return nil, &LimitError{Limit: "bytes", Value: float64(max(int64(len(buf)), in.n)), Max: float64(lim.MaxBytes), What: what}
		}
		if gzipped && len(buf) > gzipRatioFloor && in.n > 0 {
			if ratio := float64(len(buf)) / float64(in.n); ratio > lim.MaxGzipRatio {
				return nil, &LimitError{Limit: "gzip-ratio", Value: ratio, Max: lim.MaxGzipRatio}
			}
		}
		if err := sc.scan(buf); err != nil {
			if sniff.LooksLikeText(buf) {
				return nil, textError(buf)
			}
			return nil, err
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			if gzipped && errors.Is(rerr, io.ErrUnexpectedEOF) {
				return nil, errors.New("truncated gzip data (the file was cut short)")
			}
			if gzipped {
				return nil, fmt.Errorf("bad gzip data: %w", rerr)
			}
			return nil, fmt.Errorf("reading: %w", rerr)
		}
	}
	if len(buf) == 0 {
		return nil, errors.New("empty file; give a CPU profile (pprof format)")
	}
	if sniff.LooksLikeText(buf) {
		return nil, textError(buf)
	}
	if !sc.complete(buf) {
		return nil, fmt.Errorf("not a pprof profile: cut short in the field at byte %d of %d", sc.pos, len(buf))
	}
	return buf, nil
}

// readCompressed reads all of a gzip stream, at most lim.MaxBytes.
func readCompressed(ctx context.Context, r io.Reader, lim ReadOptions) ([]byte, error) {
	buf := make([]byte, 0, 64<<10)
	for {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(cap(buf), int(lim.MaxBytes)+1-len(buf)))
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > lim.MaxBytes {
			return nil, &LimitError{Limit: "bytes", Value: float64(len(buf)), Max: float64(lim.MaxBytes), What: "compressed bytes"}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading: %w", err)
		}
	}
}

// gzipSizeHint is the capacity for the decompressed bytes of comp: the
// size its trailer gives (that of the last member, modulo 4 GiB), when
// it is one a profile compresses to (Go writes them at gzip's fastest
// level: 4 to 10 times smaller), else 64 KB to grow from. A trailer that
// claims more, a bomb's, is not believed: a lying one makes Read
// allocate at most hintRatio times the file it read, whatever limit
// then stops the decompression.
func gzipSizeHint(comp []byte, lim ReadOptions) int {
	const least = 64 << 10
	if len(comp) < 18 { // a header and a trailer
		return least
	}
	t := comp[len(comp)-4:]
	size := int64(uint32(t[0]) | uint32(t[1])<<8 | uint32(t[2])<<16 | uint32(t[3])<<24)
	if size > hintRatio*int64(len(comp)) || size >= lim.MaxBytes {
		return least
	}
	return int(max(size+1, least)) // +1: the read that finds the end
}

// hintRatio is the most decompressed bytes per compressed byte that
// gzipSizeHint believes.
const hintRatio = 16

func textError(data []byte) error {
	return fmt.Errorf("this is text (%q...), not a profile; give a CPU profile in pprof format (from -cpuprofile or /debug/pprof/profile)",
		sniff.FirstLine(data))
}

func parse(name string, data []byte) (*profile.Profile, error) {
	p, err := profile.ParseUncompressed(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a pprof profile: %v", name, err)
	}
	if err := checkValid(p); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := checkCPU(p); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := checkNumbers(p); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// checkValid is pprof's own consistency check (values per sample against
// sample types, nil locations and functions, zero IDs), worded for users.
func checkValid(p *profile.Profile) error {
	if err := p.CheckValid(); err != nil {
		return fmt.Errorf("malformed profile: %v", err)
	}
	return nil
}

// kinds recognises other profiles by their sample types.
var kinds = []struct {
	kind  string
	types []string
}{
	{"heap", []string{"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"}},
	{"goroutine", []string{"goroutine", "goroutines"}},
	{"mutex or block", []string{"contentions", "delay"}},
	{"threadcreate", []string{"threadcreate"}},
}

// checkCPU rejects profiles that are not CPU profiles, naming what they are,
// and empty ones.
func checkCPU(p *profile.Profile) error {
	if cpuIndex(p) >= 0 {
		if len(p.Sample) == 0 {
			return fmt.Errorf("%w: no samples (was the program idle, or was the profile stopped at once?)", ErrEmpty)
		}
		return nil
	}
	var types []string
	for _, st := range p.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
		for _, k := range kinds {
			for _, t := range k.types {
				if st.Type == t {
					return fmt.Errorf("%w: this is a %s profile; give a CPU profile (sample types: %s)", ErrNotCPU, k.kind, strings.Join(types, ", "))
				}
			}
		}
	}
	if len(types) == 0 {
		return fmt.Errorf("%w: the profile has no sample types; give a CPU profile", ErrNotCPU)
	}
	return fmt.Errorf("%w: sample types are %s, want cpu/nanoseconds or samples/count; give a CPU profile", ErrNotCPU, strings.Join(types, ", "))
}

// cpuIndex is the index of the sample value that measures CPU: the
// cpu/nanoseconds type, else samples/count (scaled by the period later);
// -1 when there is none. A samples/count alone is only CPU when the period
// is CPU time.
func cpuIndex(p *profile.Profile) int {
	for i, st := range p.SampleType {
		if st.Type == "cpu" && st.Unit == "nanoseconds" {
			return i
		}
	}
	for i, st := range p.SampleType {
		if st.Type == "samples" && st.Unit == "count" && p.PeriodType != nil && p.PeriodType.Type == "cpu" {
			return i
		}
	}
	return -1
}

// FetchOptions tune Fetch. The zero value fetches a 30-second profile with a
// timeout of the profile's length plus 30 seconds.
type FetchOptions struct {
	Seconds int           // ?seconds=N; 0 keeps the URL's own or the server's default (30)
	Timeout time.Duration // whole request; 0 means Seconds (or 30) + 30s
	Client  *http.Client  // nil means http.DefaultClient
	MaxSize int64         // largest answer accepted; 0 means Read.MaxBytes
	Read    ReadOptions   // limits of the profile, as for Read
}

// Fetch downloads a CPU profile from a /debug/pprof/profile URL. It bounds
// the time (opt.Timeout and ctx) and the size (opt.Read), and says clearly
// when the answer is not a profile (an HTML page, a 404).
func Fetch(ctx context.Context, rawURL string, opt FetchOptions) (*profile.Profile, error) {
	u, err := httpfetch.ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	secs := opt.Seconds
	if secs > 0 {
		q := u.Query()
		q.Set("seconds", fmt.Sprint(secs))
		u.RawQuery = q.Encode()
	} else if n, err := strconv.Atoi(u.Query().Get("seconds")); err == nil && n > 0 {
		secs = n // the URL's own ?seconds=N
	} else {
		secs = 30 // the server's default
	}
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = time.Duration(secs)*time.Second + 30*time.Second
	}
	lim, err := opt.Read.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", u.Redacted(), err)
	}
	if opt.MaxSize > 0 {
		lim.MaxBytes = opt.MaxSize
	}
	resp, err := httpfetch.Get(ctx, u, httpfetch.Options{
		Client: opt.Client, Timeout: timeout, Limit: lim.MaxBytes,
		Expect: "/debug/pprof/profile", What: "a CPU profile",
	})
	if err != nil {
		return nil, err
	}
	defer resp.Close()
	// Parsed as it streams, under the request's deadline; a cut or a late
	// answer is reported as such, not as the parser's "truncated gzip".
	p, err := Read(resp.Context(), resp.Name, resp.Body, lim)
	return p, resp.Err(err)
}

// MaxCores is the most CPUs a profile's CPU time over its duration may
// come to: Linux supports at most 8192 CPUs (NR_CPUS), so a profile that
// claims more has a wrong duration or wrong sample values.
const MaxCores = 8192

// ErrBadNumbers is wrapped by the errors for profiles whose numbers cannot
// be real: negative CPU time, sums that overflow, a duration that makes
// the CPU time impossible. Such a profile is refused rather than analysed:
// every share and core count would rest on the broken figure.
var ErrBadNumbers = errors.New("impossible numbers")

// checkNumbers rejects a CPU profile whose sample values, period or
// duration cannot come from a real run.
func checkNumbers(p *profile.Profile) error {
	vi := cpuIndex(p)
	if vi < 0 {
		return nil // checkCPU's error
	}
	perSample := int64(1)
	if p.SampleType[vi].Type == "samples" {
		if p.Period <= 0 {
			return fmt.Errorf("%w: the period is %d, so samples cannot be turned into CPU time", ErrBadNumbers, p.Period)
		}
		perSample = p.Period
	}
	var total int64
	for i, s := range p.Sample {
		for j, v := range s.Value {
			if v < 0 {
				return fmt.Errorf("%w: sample %d has a negative %s value (%d); a difference of two profiles (pprof -diff_base) is not a profile of a run",
					ErrBadNumbers, i+1, p.SampleType[j].Type, v)
			}
		}
		v := s.Value[vi]
		if v > math.MaxInt64/perSample || total > math.MaxInt64-v*perSample {
			return fmt.Errorf("%w: the CPU time of the samples overflows 64 bits at sample %d (value %d): they are not real CPU times",
				ErrBadNumbers, i+1, v)
		}
		total += v * perSample
	}
	if p.DurationNanos < 0 {
		return fmt.Errorf("%w: the duration is negative (%dns)", ErrBadNumbers, p.DurationNanos)
	}
	if p.DurationNanos > 0 {
		if cores := float64(total) / float64(p.DurationNanos); cores > MaxCores {
			return fmt.Errorf("%w: %s of CPU in a duration of %s is %.0f cores, more than the %d CPUs any Linux machine can have: the duration or the sample values are wrong",
				ErrBadNumbers, time.Duration(total), time.Duration(p.DurationNanos), cores, MaxCores)
		}
	}
	return nil
}
