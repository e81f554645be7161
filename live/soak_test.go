//go:build soak

package live_test

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/internal/labtest"
	"github.com/schedoctor/schedoctor/live"
	"github.com/schedoctor/schedoctor/live/livetrace"
)

// TestSoak runs a monitor for ten minutes (SCHEDOCTOR_SOAK_DURATION to
// change it) under repeated spikes, with snapshots diagnosed, and checks
// that memory stays flat and the snapshot directory bounded. Not in CI:
//
//	go test -tags soak -run Soak -timeout 20m -v ./live/
func TestSoak(t *testing.T) {
	d := 10 * time.Minute
	if s := os.Getenv("SCHEDOCTOR_SOAK_DURATION"); s != "" {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	const maxFiles, maxBytes = 5, 20 << 20
	m, err := livetrace.Start(t.Context(), live.Options{Dir: dir, SnapshotGap: 10 * time.Second,
		MaxSnapshots: maxFiles, MaxSnapshotBytes: maxBytes})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()

	var mem []uint64
	end := time.Now().Add(d)
	for i := 0; time.Now().Before(end); i++ {
		// A second of backlog every 15s, then quiet.
		labtest.Spike(200*runtime.GOMAXPROCS(0), time.Second)
		time.Sleep(14 * time.Second)
		mem = append(mem, totalMemory())
		var files int
		var bytes int64
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if info, err := e.Info(); err == nil {
				files++
				bytes += info.Size()
			}
		}
		st := m.State()
		t.Logf("%3d: memory %.1f MB, %d files %.1f MB in Dir, %d snapshots written, %d errors",
			i, float64(mem[len(mem)-1])/1e6, files, float64(bytes)/1e6, st.SnapshotsWritten, st.ErrorCount)
		if files > maxFiles || bytes > maxBytes {
			t.Errorf("snapshot directory beyond its bounds: %d files, %d bytes", files, bytes)
		}
	}
	if len(mem) < 4 {
		t.Skipf("only %d rounds: too short to judge memory", len(mem))
	}
	// Flat: the second half's peak within 20% (and 5 MB) of the first half's.
	half := len(mem) / 2
	var p1, p2 uint64
	for i, v := range mem {
		if i < half {
			p1 = max(p1, v)
		} else {
			p2 = max(p2, v)
		}
	}
	if float64(p2) > float64(p1)*1.2+5e6 {
		t.Errorf("memory grew: first half peak %.1f MB, second half %.1f MB", float64(p1)/1e6, float64(p2)/1e6)
	}
	if m.State().SnapshotsWritten <= maxFiles {
		t.Logf("only %d snapshots written: the bounds were not exercised", m.State().SnapshotsWritten)
	}
}
