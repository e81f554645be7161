// Package labsvc holds the lab service (internal/lab/service/labservice:
// net/http/pprof on loopback, a busy select, a tiny-sleep poll, a handler
// that leaks a goroutine, two healthy handlers) as embedded source, what a
// check of it must report (Causes, Judge), and the helpers that build it,
// start it on loopback for a bounded time and drive its handlers.
// `schedoctor demo` uses them to run `check` on the service from an
// installed binary, with no checkout and no network.
//
// The source is a copy (labservice.go.txt, kept equal by
// TestEmbeddedCopy; go generate ./internal/demo/labsvc refreshes it): a
// package under internal/lab/service would itself be swept into the lab's
// embedded programs (internal/lab embeds */*.go), and go:embed cannot
// reach the file from anywhere else.
package labsvc

//go:generate cp ../../lab/service/labservice/main.go labservice.go.txt

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

//go:embed labservice.go.txt
var source []byte

// Source returns the service's main.go as embedded.
func Source() []byte { return slices.Clone(source) }

// RelPath is where the service's source sits in the module; findings'
// locations end with it.
const RelPath = "internal/lab/service/labservice/main.go"

// Cause is one fault of the service that a check must report exactly
// once, at its line, by any rule of its family (the join of diagnose.Check
// makes one finding per cause; which source's rule leads it depends on
// the figures of the run), backed by at least MinSources sources.
type Cause struct {
	Name       string   `json:"name"`  // one word, for the demo's table
	Marker     string   `json:"-"`     // the comment that marks its line in main.go
	Line       int      `json:"line"`  // filled by Causes from the marker
	Rules      []string `json:"rules"` // the rules that may name it
	MinSources int      `json:"min_sources"`
}

// loopRules are the rules that name a loop that spins or polls: lint's,
// the profile's and the trace's view of the same loop (diagnose's "loop"
// family).
var loopRules = []string{"SD101", "SD102", "SD106", "SD201", "SD202", "SD203", "SD204", "SD307", "SD308"}

// causes are the service's faults. The spin and the poll are seen by the
// source code and by the profile or the trace: two sources at least. The
// leak is seen only by the goroutine dumps (the leak profile is absent
// unless the Go build has GOEXPERIMENT=goroutineleakprofile).
var causes = []Cause{
	{Name: "busy-select", Marker: "// the busy select", Rules: loopRules, MinSources: 2},
	{Name: "poll", Marker: "// the tiny-sleep poll", Rules: loopRules, MinSources: 2},
	{Name: "leak", Marker: "// the leak", Rules: []string{"SD701"}, MinSources: 1},
}

// HealthyFunctions are the handlers no finding at warning may point at.
var HealthyFunctions = []string{"main.handleOK", "main.handleHash"}

// Causes returns the service's faults with their lines in the embedded
// source.
func Causes() ([]Cause, error) {
	out := slices.Clone(causes)
	lines := strings.Split(string(source), "\n")
	for i := range out {
		for n, l := range lines {
			if strings.Contains(l, out[i].Marker) {
				out[i].Line = n + 1
				break
			}
		}
		if out[i].Line == 0 {
			return nil, fmt.Errorf("lab service: no line marked %q in %s", out[i].Marker, RelPath)
		}
	}
	return out, nil
}

// CauseResult is what a check said about one cause.
type CauseResult struct {
	Cause
	Count   int      `json:"count"`             // findings of the cause's rules at its line
	Rule    string   `json:"rule,omitempty"`    // the rule of the (first) one
	Sources []string `json:"sources,omitempty"` // its sources, as the join listed them
}

// NSources is how many sources back the cause's finding: a finding only
// one source made carries no Sources (the field is additive).
func (r CauseResult) NSources() int {
	if r.Count == 0 {
		return 0
	}
	return max(1, len(r.Sources))
}

// OK reports whether the cause was reported once by enough sources.
func (r CauseResult) OK() bool { return r.Count == 1 && r.NSources() >= r.MinSources }

// Problem says what is wrong with the result, "" when OK.
func (r CauseResult) Problem() string {
	switch {
	case r.Count == 0:
		return "not found"
	case r.Count > 1:
		return fmt.Sprintf("%d findings, not one", r.Count)
	case r.NSources() < r.MinSources:
		return fmt.Sprintf("%d source(s), want %d", r.NSources(), r.MinSources)
	}
	return ""
}

// Verdict compares a check's findings with the service's causes.
type Verdict struct {
	Causes []CauseResult `json:"causes"`
	// Healthy lists findings at warning or above that point into a
	// healthy handler ("SD204 at main.handleOK").
	Healthy []string `json:"healthy,omitempty"`
	// Others are the findings at warning or above that belong to no cause
	// (by index into the findings given to Judge).
	Others []int `json:"-"`
}

// Judge matches findings with the causes: a finding belongs to a cause
// when its first location is the cause's line of the service and its rule
// is of the cause's family. A finding's Sources, when empty, is its one
// source.
func Judge(fs []finding.Finding) (*Verdict, error) {
	cs, err := Causes()
	if err != nil {
		return nil, err
	}
	v := &Verdict{}
	matched := make([]bool, len(fs))
	for _, c := range cs {
		r := CauseResult{Cause: c}
		for i, f := range fs {
			if len(f.Locations) == 0 || !slices.Contains(c.Rules, f.Rule) {
				continue
			}
			l := f.Locations[0]
			if l.Line != c.Line || !strings.HasSuffix(filepath.ToSlash(l.File), "labservice/main.go") {
				continue
			}
			matched[i] = true
			r.Count++
			if r.Count == 1 {
				r.Rule = f.Rule
				r.Sources = f.Sources
			}
		}
		v.Causes = append(v.Causes, r)
	}
	for i, f := range fs {
		if matched[i] || f.Severity < finding.Warning {
			continue
		}
		for _, l := range f.Locations {
			if slices.Contains(HealthyFunctions, l.Function) {
				v.Healthy = append(v.Healthy, fmt.Sprintf("%s at %s", f.Rule, l.Function))
				break
			}
		}
		v.Others = append(v.Others, i)
	}
	return v, nil
}

// WriteModule writes a module into dir holding the service at RelPath, so
// that `go build ./internal/lab/service/labservice` builds it there with
// no network (it imports the standard library only).
func WriteModule(dir string) error {
	dst := filepath.Join(dir, filepath.FromSlash(RelPath))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("writing the lab service: %w", err)
	}
	if err := os.WriteFile(dst, source, 0o644); err != nil {
		return fmt.Errorf("writing the lab service: %w", err)
	}
	gomod := "module github.com/schedoctor/schedoctor\n\ngo 1.26\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return fmt.Errorf("writing the lab service's go.mod: %w", err)
	}
	return nil
}

// Build compiles the service from a module written by WriteModule (or the
// project's root) into binDir and returns the binary's path.
func Build(ctx context.Context, moduleDir, binDir string) (string, error) {
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return "", fmt.Errorf("building the lab service: %w", err)
	}
	bin := filepath.Join(binDir, "labservice")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./internal/lab/service/labservice")
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the lab service: %v\n%s", err, out)
	}
	return bin, nil
}

// Service is a running lab service.
type Service struct {
	PProf string // base URL of its net/http/pprof listener
	App   string // base URL of its application listener
	cmd   *exec.Cmd
	done  chan struct{}
	err   error // Wait's, after done is closed
	stop  sync.Once
}

// Start runs the service binary on loopback, in its own process group,
// for at most lifetime (its -duration: it exits by itself if Stop is never
// called), and waits until it prints its two addresses.
func Start(ctx context.Context, bin string, lifetime time.Duration) (*Service, error) {
	cmd := exec.Command(bin, "-duration", lifetime.String(), "-addr", "127.0.0.1:0", "-app", "127.0.0.1:0")
	setProcessGroup(cmd)
	// A pipe of our own rather than StdoutPipe: Wait then waits for the
	// copy, and closing the writer after Wait ends the reader even when
	// the service died before printing its addresses.
	stdout, pw := io.Pipe()
	cmd.Stdout = pw
	var stderr bytes.Buffer
	cmd.Stderr = &syncWriter{w: &stderr}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the lab service: %w", err)
	}
	s := &Service{cmd: cmd, done: make(chan struct{})}
	addrs := make(chan map[string]string, 1)
	go func() {
		m := map[string]string{}
		sc := bufio.NewScanner(stdout)
		for len(m) < 2 && sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), " "); ok {
				m[k] = v
			}
		}
		addrs <- m
		io.Copy(io.Discard, stdout) // keep the pipe drained until it exits
	}()
	go func() {
		s.err = cmd.Wait()
		pw.Close()
		close(s.done)
	}()
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	select {
	case m := <-addrs:
		s.PProf, s.App = m["pprof"], m["app"]
		if s.PProf == "" || s.App == "" {
			s.Stop()
			return nil, fmt.Errorf("the lab service did not print its addresses (got %v): %s", m, strings.TrimSpace(stderr.String()))
		}
		if !isLoopback(s.PProf) || !isLoopback(s.App) {
			s.Stop()
			return nil, fmt.Errorf("the lab service listens on %s and %s, not on loopback", s.PProf, s.App)
		}
		return s, nil
	case <-timeout.C:
		s.Stop()
		return nil, errors.New("the lab service printed no address within 30s")
	case <-ctx.Done():
		s.Stop()
		return nil, context.Cause(ctx)
	}
}

func isLoopback(u string) bool {
	return strings.HasPrefix(u, "http://127.0.0.1:") || strings.HasPrefix(u, "http://[::1]:")
}

// PID is the service's process ID.
func (s *Service) PID() int { return s.cmd.Process.Pid }

// Stop kills the service's process group and waits for it: nothing it
// started is left behind. Only the first call kills: once the service is
// reaped its PID may belong to another process.
func (s *Service) Stop() {
	s.stop.Do(func() {
		select {
		case <-s.done: // exited by itself and reaped: nothing to kill
		default:
			killGroup(s.cmd)
		}
		<-s.done
	})
}

// Load counts the requests Drive made.
type Load struct {
	Requests atomic.Int64 // answered, any status
	Errors   atomic.Int64 // no answer
}

// Paths are the handlers Drive calls: the leaky one and the two healthy.
var Paths = []string{"/slow", "/ok", "/hash?x=1"}

// Drive calls each of Paths in a loop, one goroutine per path, a request
// every 20ms each, until ctx ends; it returns when every goroutine has.
// The pace keeps the load small next to the spin it must not hide.
func Drive(ctx context.Context, app string, load *Load) {
	client := &http.Client{Timeout: 5 * time.Second}
	var wg sync.WaitGroup
	for _, path := range Paths {
		wg.Go(func() {
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, app+path, nil)
				if err != nil {
					load.Errors.Add(1)
					return
				}
				if resp, err := client.Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					load.Requests.Add(1)
				} else if ctx.Err() == nil {
					load.Errors.Add(1)
				}
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
			}
		})
	}
	wg.Wait()
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}
