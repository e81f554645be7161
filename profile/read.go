package profile

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// MaxSize is the largest profile Read and Fetch accept, compressed or not:
// a CPU profile of an hour of a busy server is a few MB.
const MaxSize = 256 << 20

// ErrEmpty is wrapped by the error for a CPU profile without samples.
var ErrEmpty = errors.New("empty CPU profile")

// ErrNotCPU is wrapped by the errors for profiles of another kind (heap,
// goroutine, mutex, block).
var ErrNotCPU = errors.New("not a CPU profile")

// Read parses one profile (gzip-compressed or not) from r; name (a file
// name, "-" for stdin, or a URL) is used in errors. It checks that the
// profile is a CPU profile with samples.
func Read(name string, r io.Reader) (*profile.Profile, error) {
	return readLimited(name, r, MaxSize)
}

// ReadFile reads the CPU profile in the named file.
func ReadFile(name string) (*profile.Profile, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err // *PathError names the file
	}
	defer f.Close()
	return Read(name, f)
}

func readLimited(name string, r io.Reader, limit int64) (*profile.Profile, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than the limit of %d bytes; not a CPU profile?", name, limit)
	}
	return parse(name, data)
}

func parse(name string, data []byte) (*profile.Profile, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%s: empty file; give a CPU profile (pprof format)", name)
	}
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		// Decompress ourselves so that a truncated file says so instead
		// of pprof's generic "unrecognized profile format".
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: bad gzip header: %w", name, err)
		}
		raw, err := io.ReadAll(io.LimitReader(zr, MaxSize+1))
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("%s: truncated gzip data (the file was cut short)", name)
			}
			return nil, fmt.Errorf("%s: bad gzip data: %w", name, err)
		}
		if len(raw) > MaxSize {
			return nil, fmt.Errorf("%s: uncompresses to more than %d MB", name, MaxSize>>20)
		}
		data = raw
	}
	if looksLikeText(data) {
		return nil, fmt.Errorf("%s: this is text (%q...), not a profile; give a CPU profile in pprof format (from -cpuprofile or /debug/pprof/profile)",
			name, firstLine(data))
	}
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

// looksLikeText tells an HTML page, a JSON error or a legacy text profile
// from protobuf: its first bytes are all printable text, where a profile's
// field tags and varints are not.
func looksLikeText(data []byte) bool {
	head := data[:min(len(data), 64)]
	for _, c := range head {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' || c >= 0x7f {
			return false
		}
	}
	return true
}

func firstLine(data []byte) string {
	s := string(data[:min(len(data), 60)])
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
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
	Client  *http.Client  // nil means a plain client
	MaxSize int64         // largest answer accepted; 0 means MaxSize
}

// Fetch downloads a CPU profile from a /debug/pprof/profile URL. It bounds
// the time (opt.Timeout and ctx) and the size (MaxSize), and says clearly
// when the answer is not a profile (an HTML page, a 404).
func Fetch(ctx context.Context, rawURL string, opt FetchOptions) (*profile.Profile, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: not an http(s) URL", rawURL)
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
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	name := u.Redacted()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	client := opt.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("%s: no answer within %v (raise -timeout, or lower -seconds)", name, timeout)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return nil, fmt.Errorf("%s: server answered %s (%s); is this a /debug/pprof/profile endpoint?",
			name, resp.Status, strings.TrimSpace(firstLine(body)))
	}
	limit := opt.MaxSize
	if limit <= 0 {
		limit = MaxSize
	}
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("%s: answer of %d bytes is larger than the limit of %d bytes; not a CPU profile?", name, resp.ContentLength, limit)
	}
	p, err := readLimited(name, resp.Body, limit)
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		return nil, fmt.Errorf("%s: answer not complete within %v (raise -timeout)", name, timeout)
	}
	return p, err
}
