package exectrace

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// FuzzAnalyze feeds arbitrary bytes to the analysis: it must return a
// result or an error, never panic, and finish. The seed corpus in
// testdata/fuzz/FuzzAnalyze holds small fixtures and truncated variants.
func FuzzAnalyze(f *testing.F) {
	f.Add([]byte("go 1.26 trace\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := Analyze(ctx, bytes.NewReader(data), Options{CPUs: 2})
		if err != nil {
			return
		}
		if res.Summary == nil {
			t.Fatal("nil summary without an error")
		}
		if tr := res.Summary.Truncated; tr != nil && tr.Offset > int64(len(data)) {
			t.Fatalf("truncation offset %d beyond the input's %d bytes", tr.Offset, len(data))
		}
		var buf bytes.Buffer
		if err := res.Summary.WriteText(&buf); err != nil {
			t.Fatal(err)
		}
	})
}
