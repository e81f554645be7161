package contention

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func readAll(t *testing.T, names ...string) []*Profile {
	t.Helper()
	var ps []*Profile
	for _, n := range names {
		p, err := ReadFile(context.Background(), filepath.Join("testdata", n), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

// The fixtures (testdata/README.md) cover 5s after the rates were set.
const fixtureDuration = 5 * time.Second

func TestKindFromStacks(t *testing.T) {
	for name, want := range map[string]Kind{"mutex.mutex.pb.gz": Mutex, "mutex.block.pb.gz": Block, "light.block.pb.gz": Block, "light.mutex.pb.gz": Mutex} {
		if p := readAll(t, name)[0]; p.Kind != want {
			t.Errorf("%s: kind %s, want %s", name, p.Kind, want)
		}
	}
}

// TestQueuePositive: 8 goroutines holding one lock 50µs each.
func TestQueuePositive(t *testing.T) {
	res, err := Analyze(readAll(t, "mutex.mutex.pb.gz", "mutex.block.pb.gz"), Options{Duration: fixtureDuration})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 2 {
		t.Fatalf("%d findings, want 2 (mutex at the Unlock, block at the Lock): %+v", len(res.Findings), res.Findings)
	}
	for _, f := range res.Findings {
		if f.Rule != "SD309" || f.Locations[0].Function != "main.contend" {
			t.Errorf("%s at %v", f.Rule, f.Locations)
		}
		if f.Evidence[0].Value < 4 || f.Evidence[0].Value > 7 {
			t.Errorf("waiters %v, measured 5.6 (mutex) and 5.5 (block)", f.Evidence[0].Value)
		}
	}
	lines := map[int]bool{res.Findings[0].Locations[0].Line: true, res.Findings[1].Locations[0].Line: true}
	if !lines[139] || !lines[132] {
		t.Errorf("want the Unlock (main.go:139) and the Lock (main.go:132): %v", lines)
	}
	if !strings.Contains(res.Findings[0].Message+res.Findings[1].Message, "released at main.go:139") {
		t.Errorf("messages: %q / %q", res.Findings[0].Message, res.Findings[1].Message)
	}
}

// TestQueueNegatives: light contention, a ticker's receive in the block
// profile (3.6s of blocking that is idleness, not a queue), disabled
// profiles, and a profile of unknown duration.
func TestQueueNegatives(t *testing.T) {
	res, err := Analyze(readAll(t, "light.mutex.pb.gz", "light.block.pb.gz"), Options{Duration: fixtureDuration})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 0 {
		t.Errorf("light: %+v", res.Findings)
	}
	var idle bool
	for _, s := range res.Summary.Sites {
		if s.Kind == Block && !s.Lock && s.DelaySecs > 1 {
			idle = true
		}
	}
	if !idle {
		t.Errorf("the block profile's idle receive should be listed as a site, not a finding: %+v", res.Summary.Sites)
	}
	res, err = Analyze(readAll(t, "none.mutex.pb.gz", "none.block.pb.gz"), Options{Duration: fixtureDuration})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Summary.Profiles {
		if p.Enabled || !strings.HasPrefix(p.Status, "no samples: not enabled") {
			t.Errorf("%s: enabled %v status %q", p.Name, p.Enabled, p.Status)
		}
	}
	res, err = Analyze(readAll(t, "mutex.mutex.pb.gz"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 0 || !strings.Contains(res.Summary.Profiles[0].Status, "unknown duration") {
		t.Errorf("no duration, no rate, no finding: %+v %q", res.Findings, res.Summary.Profiles[0].Status)
	}
}

func TestReject(t *testing.T) {
	for _, in := range []string{"", "--- contention:\ncycles/second=1\n", "hello"} {
		if _, err := parse("x", []byte(in), ReadOptions{}); !errors.Is(err, ErrNotContention) {
			t.Errorf("%q: %v", in, err)
		}
	}
	if _, err := ReadFile(context.Background(), filepath.Join("..", "goroutines", "testdata", "leak-end.pb.gz"), ReadOptions{}); !errors.Is(err, ErrNotContention) ||
		!strings.Contains(err.Error(), "goroutine/count") {
		t.Errorf("goroutine profile: %v", err)
	}
}
