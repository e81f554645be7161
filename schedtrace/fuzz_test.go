package schedtrace

import (
	"bytes"
	"context"
	"io"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the parser and the analysis: they must
// not panic, and what they return must be consistent. The seed corpus in
// testdata/fuzz/FuzzParse holds the format variants and damaged lines.
func FuzzParse(f *testing.F) {
	f.Add([]byte("SCHED 0ms: gomaxprocs=2 idleprocs=0 threads=4 runqueue=0 [ 0 0 ] schedticks=[ 1 2 ]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := parse(context.Background(), bytes.NewReader(data), "fuzz", 512, ReadOptions{MaxTicks: 8, MaxValues: 64})
		if err != nil {
			if tr != nil {
				t.Fatal("trace and error both returned")
			}
			return
		}
		st := tr.Stats
		if st.SchedLines-st.Dropped != len(tr.Ticks) || len(tr.Ticks) == 0 || len(tr.Ticks) > 8 {
			t.Fatalf("%d ticks, stats %+v", len(tr.Ticks), st)
		}
		vals := 0
		for i := range tr.Ticks {
			vals += tickValues(&tr.Ticks[i])
		}
		if vals > 64 && len(tr.Ticks) > 1 {
			t.Fatalf("%d values kept in %d ticks, over the bound of 64", vals, len(tr.Ticks))
		}
		if st.SchedLines+st.DetailLines+st.Skipped+st.Truncated+st.Overlong != st.Lines {
			t.Fatalf("stats do not add up: %+v", st)
		}
		for _, tk := range tr.Ticks {
			if tk.GOMAXPROCS <= 0 || tk.Line < 1 || tk.Line > st.Lines {
				t.Fatalf("bad tick %+v", tk)
			}
			for _, q := range tk.LocalQueues {
				if q < 0 || q > runqCap {
					t.Fatalf("queue length %d", q)
				}
			}
		}
		fs, s := analyze(tr)
		for _, fd := range fs {
			if len(fd.Locations) != 1 || fd.Locations[0].Line < 1 {
				t.Fatalf("finding without a line: %+v", fd)
			}
		}
		if err := s.WriteText(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
}
