package check

import (
	"bytes"
	"context"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/contention"
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
