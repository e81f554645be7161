package check

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/contention"
	"github.com/schedoctor/schedoctor/finding"
)

// TestEmptyBlockProfileKind: an empty block profile has no leaves that
// tell it from a mutex profile; the endpoint does, and the summary must
// name the block profile's own setting. (A healthy nats-server, which
// enables neither, was reported as two "mutex profile: no samples" lines.)
func TestEmptyBlockProfileKind(t *testing.T) {
	runtime.SetBlockProfileRate(0)
	runtime.SetMutexProfileFraction(0)
	var mutex, block bytes.Buffer
	if err := pprof.Lookup("mutex").WriteTo(&mutex, 0); err != nil {
		t.Fatal(err)
	}
	if err := pprof.Lookup("block").WriteTo(&block, 0); err != nil {
		t.Fatal(err)
	}
	s := &Set{Target: "http://127.0.0.1:1", Start: time.Now(), Captures: []*Capture{
		{Kind: KindMutex, Endpoint: "http://127.0.0.1:1/debug/pprof/mutex?seconds=2", Data: mutex.Bytes(), Duration: 2},
		{Kind: KindBlock, Endpoint: "http://127.0.0.1:1/debug/pprof/block?seconds=2", Data: block.Bytes(), Duration: 2},
	}}
	res, err := Analyze(context.Background(), s, AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Summary.Contention
	if c == nil || len(c.Profiles) != 2 {
		t.Fatalf("contention summary %+v; want two profiles", c)
	}
	if c.Profiles[0].Kind != contention.Mutex || c.Profiles[1].Kind != contention.Block {
		t.Errorf("kinds %s, %s; want mutex, block", c.Profiles[0].Kind, c.Profiles[1].Kind)
	}
	var b strings.Builder
	if err := res.Summary.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"mutex profile: no samples: not enabled (runtime.SetMutexProfileFraction)", "block profile: no samples: not enabled (runtime.SetBlockProfileRate)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	if len(res.Findings) != 0 {
		t.Errorf("findings from empty profiles: %+v", res.Findings)
	}
}

// TestLeakEndpointFullDump: a Go 1.26 service built with
// GOEXPERIMENT=goroutineleakprofile answers goroutineleak?debug=2 with a
// full dump (recorded in goroutines/testdata): beside the two dumps check
// takes it is the leak profile, the goroutine analysis stands and SD701
// carries the GC's proof. A full dump with no "(leaked)" mark (nothing
// leaked) from that endpoint is the leak profile too, not a third dump.
// Before, both made three dumps: the analysis failed and SD701 was lost.
func TestLeakEndpointFullDump(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "goroutines", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	t0 := time.Date(2026, 11, 26, 19, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		leak  []byte
		proof bool
	}{
		{read("leakprof-end.goroutineleak.debug2.txt"), true},
		{read("leak-end.debug2.txt"), false}, // a full dump without marks
	} {
		s := &Set{Target: "http://127.0.0.1:1", Start: t0, Captures: []*Capture{
			{Kind: KindGoroutineStart, Endpoint: "http://127.0.0.1:1/debug/pprof/goroutine?debug=2", Data: read("leak-start.debug2.txt"), Start: t0},
			{Kind: KindLeak, Endpoint: "http://127.0.0.1:1/debug/pprof/goroutineleak?debug=2", Data: tc.leak, Start: t0.Add(time.Minute)},
			{Kind: KindGoroutineEnd, Endpoint: "http://127.0.0.1:1/debug/pprof/goroutine?debug=2", Data: read("leak-end.debug2.txt"), Start: t0.Add(2 * time.Minute)},
		}}
		res, err := Analyze(context.Background(), s, AnalyzeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Summary.Failed) > 0 || res.Summary.Goroutines == nil {
			t.Fatalf("failed %q; want the goroutine analysis", res.Summary.Failed)
		}
		var leak *finding.Finding
		for i := range res.Findings {
			if res.Findings[i].Rule == "SD701" {
				leak = &res.Findings[i]
			}
		}
		if leak == nil {
			t.Fatalf("no SD701: %+v", res.Findings)
		}
		if got := strings.Contains(leak.Text(), "the GC proved"); got != tc.proof {
			t.Errorf("SD701 %q: the GC's proof present=%v, want %v", leak.Text(), got, tc.proof)
		}
	}
}
