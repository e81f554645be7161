package schedtrace

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

// synthetic makes about size bytes of Go 1.26 schedtrace output for
// GOMAXPROCS=8 at 100ms, with a line of program output every ten ticks.
func synthetic(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 512)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "SCHED %dms: gomaxprocs=8 idleprocs=%d threads=%d spinningthreads=%d needspinning=1 idlethreads=3 runqueue=%d [ %d 0 3 1 0 %d 2 0 ] schedticks=[ %d %d %d %d %d %d %d %d ]\n",
			i*100, i%3, 11+i%2, i%2, i%17, i%5, i%7, i*40, i*41, i*39, i*40, i*42, i*38, i*40, i*41)
		if i%10 == 9 {
			fmt.Fprintf(&b, "2026/11/22 02:30:%02d GET /v1/items/%d 200 %dµs\n", i%60, i, 100+i%900)
		}
	}
	return b.Bytes()
}

// BenchmarkParse measures the parser's throughput (MB/s) on 100 MB of
// output, the size of about two days at schedtrace=100 with GOMAXPROCS=8.
func BenchmarkParse(b *testing.B) {
	data := synthetic(100 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		tr, err := Read(context.Background(), "bench", bytes.NewReader(data), ReadOptions{})
		if err != nil || len(tr.Ticks) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnalyze measures the analysis of the same input once parsed.
func BenchmarkAnalyze(b *testing.B) {
	tr, err := Read(context.Background(), "bench", bytes.NewReader(synthetic(100<<20)), ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(tr.Ticks)), "ticks")
	for b.Loop() {
		analyze(tr)
	}
}
