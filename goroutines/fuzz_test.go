package goroutines

import (
	"testing"
)

// FuzzParse: no input makes the reader, the grouping or the analysis
// panic, and what is read stays within the caps. Seeds in
// testdata/fuzz/FuzzParse (the three formats, truncated and mangled).
func FuzzParse(f *testing.F) {
	f.Add([]byte(handDump))
	f.Fuzz(func(t *testing.T, data []byte) {
		opt := ReadOptions{MaxBytes: 1 << 20, MaxLine: 256, MaxGoroutines: 100}
		d, err := parse("fuzz", data, opt)
		if err != nil {
			return
		}
		if len(d.Goroutines) > 100 || d.Total < 0 || d.Skipped < 0 {
			t.Fatalf("records %d total %d skipped %d", len(d.Goroutines), d.Total, d.Skipped)
		}
		if _, err := Analyze([]*Dump{d, d}, Options{Window: 0}); err != nil {
			t.Fatal(err)
		}
	})
}
