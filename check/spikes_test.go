package check

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCheckTraceSpikes: check hands its captured trace to the same
// analysis as schedoctor trace, so the spike windows (SD315) and the heavy
// unblocker (SD316) of issue 22's lab reach its findings and its summary.
// The trace is the lab's recording (exectrace/testdata/spikes.trace): a
// burst of 2,000 goroutines every 500ms at line 77, a close waking 1,000
// goroutines 20 times a second at line 164.
func TestCheckTraceSpikes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "exectrace", "testdata", "spikes.trace"))
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{Target: "http://127.0.0.1:1", Start: time.Now(), Captures: []*Capture{
		{Kind: KindTrace, Endpoint: "http://127.0.0.1:1/debug/pprof/trace?seconds=1", Data: data, Duration: 1},
	}}
	res, err := Analyze(context.Background(), s, AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"SD315": "spikes/main.go:77", "SD316": "spikes/main.go:164"}
	for _, f := range res.Findings {
		if at, ok := want[f.Rule]; ok && len(f.Locations) > 0 && strings.HasSuffix(filepath.ToSlash(f.Locations[0].File)+":"+strconv.Itoa(f.Locations[0].Line), at) {
			delete(want, f.Rule)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing from check's findings: %v", want)
	}
	if res.Summary.Trace == nil || len(res.Summary.Trace.Spikes) < 3 || len(res.Summary.Trace.Wakers) == 0 {
		t.Fatalf("check's trace summary lacks the spike windows or the wakers")
	}
	// check's text summary names its captures only; the JSON carries the
	// trace's figures, the spike windows among them
	js, err := json.Marshal(res.Summary)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"spike_windows":`, `"spikes":[{`, `"spike_causes":[{`, `"wakers":[{`} {
		if !strings.Contains(string(js), key) {
			t.Errorf("check's JSON summary lacks %s", key)
		}
	}
}
