package livetrace

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDiagnoseSpikes: a live snapshot is analysed like any trace, so the
// spike windows (SD315) and the heavy unblocker (SD316) reach the
// monitor's findings. The snapshot is issue 22's lab recording
// (exectrace/testdata/spikes.trace): a burst of 2,000 goroutines every
// 500ms at line 77, a close waking 1,000 goroutines 20 times a second at
// line 164.
func TestDiagnoseSpikes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "exectrace", "testdata", "spikes.trace"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "20261127T010000.000Z-latency.trace")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	fs, err := Diagnose(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"SD315": "spikes/main.go:77", "SD316": "spikes/main.go:164"}
	for _, f := range fs {
		if at, ok := want[f.Rule]; ok && len(f.Locations) > 0 && strings.HasSuffix(filepath.ToSlash(f.Locations[0].File)+":"+strconv.Itoa(f.Locations[0].Line), at) {
			delete(want, f.Rule)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing from the snapshot's findings: %v", want)
	}
}
