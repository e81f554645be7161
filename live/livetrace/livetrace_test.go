package livetrace

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/trace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/live"
)

// record runs f under a flight recorder and returns the snapshot.
func record(t *testing.T, f func()) []byte {
	t.Helper()
	fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: 5 * time.Second})
	if err := fr.Start(); err != nil {
		t.Skipf("flight recorder unavailable: %v", err)
	}
	defer fr.Stop()
	f()
	var b bytes.Buffer
	if _, err := fr.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// queue runs n goroutines under the label that compute 200µs and yield,
// for d.
func queue(ctx context.Context, n int, d time.Duration, kv ...string) {
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			live.Do(ctx, func(context.Context) {
				for !stop.Load() {
					t := time.Now()
					for time.Since(t) < 200*time.Microsecond {
					}
					runtime.Gosched()
				}
			}, kv...)
		}()
	}
	time.Sleep(d)
	stop.Store(true)
	wg.Wait()
}

func TestBreakdown(t *testing.T) {
	ctx := t.Context()
	data := record(t, func() {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A light label: sleeps mostly, waits little for a P.
			live.Do(ctx, func(context.Context) {
				for range 50 {
					time.Sleep(5 * time.Millisecond)
				}
			}, "endpoint", "/light")
		}()
		queue(ctx, 40*runtime.GOMAXPROCS(0), 500*time.Millisecond, "endpoint", "/heavy")
		wg.Wait()
	})
	labels, err := Breakdown(ctx, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(labels) == 0 {
		t.Fatalf("no labels in a %d-byte trace", len(data))
	}
	for _, l := range labels {
		t.Logf("%s: %d starts, wait %v, p99 %v, running %v", l.Labels, l.Starts, l.Wait, l.Latency.Quantile(0.99), l.Running)
	}
	if labels[0].Labels != "endpoint=/heavy" || labels[0].Starts < 100 {
		t.Errorf("top label %s with %d starts, want endpoint=/heavy", labels[0].Labels, labels[0].Starts)
	}

	// The whole diagnosis: the backlog finding names the heavy label.
	path := filepath.Join(t.TempDir(), "snap.trace")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	fs, err := Diagnose(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	named := false
	for _, f := range fs {
		t.Logf("%s %s", f.Rule, f.Text())
		if breakdownRules[f.Rule] && strings.Contains(f.Text(), "by label, endpoint=/heavy waited longest") {
			named = true
		}
	}
	if !named {
		t.Errorf("no scheduling finding split by label")
	}
}

// A trace without live.Do regions has no breakdown and findings unchanged.
func TestBreakdownNone(t *testing.T) {
	data := record(t, func() { queue(t.Context(), 10, 100*time.Millisecond) })
	labels, err := Breakdown(t.Context(), bytes.NewReader(data))
	if err != nil || len(labels) != 0 {
		t.Errorf("labels %v, err %v; want none", labels, err)
	}
	if _, err := Breakdown(t.Context(), strings.NewReader("not a trace")); err == nil {
		t.Error("no error for a non-trace")
	}
}

func TestDoOddLabels(t *testing.T) {
	ran := false
	live.Do(t.Context(), func(context.Context) { ran = true }, "endpoint")
	live.Do(t.Context(), func(context.Context) {})
	if !ran {
		t.Error("f did not run")
	}
	if got := live.RegionName("a", "1", "b", "2"); got != "schedoctor a=1,b=2" {
		t.Errorf("RegionName = %q", got)
	}
}
