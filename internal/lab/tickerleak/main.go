// Tickerleak starts a ticker per poll and never stops it. In a module whose
// go line is before 1.23 every one stays on the timer heap and keeps firing
// after poll returns; `schedoctor demo` lints this program in such a module
// (go 1.22). The fixed twin stops its ticker.
//
// lab:go 1.22
package main

import (
	"context"
	"time"

	"github.com/schedoctor/schedoctor/internal/lab/labrun"
)

func main() { labrun.Main(bad, fixed) }

var checks int

func pollBad(ctx context.Context) {
	t := time.NewTicker(time.Millisecond) // lab:SD105
	for i := 0; i < 3; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			checks++
		}
	}
}

func pollFixed(ctx context.Context) {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for i := 0; i < 3; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			checks++
		}
	}
}

func bad(ctx context.Context) {
	for ctx.Err() == nil {
		pollBad(ctx)
	}
}

func fixed(ctx context.Context) {
	for ctx.Err() == nil {
		pollFixed(ctx)
	}
}
