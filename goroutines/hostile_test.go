package goroutines

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"
)

// TestDeepStackBounded: a record of a million frames (no Go stack is deeper
// than 100 in a traceback) keeps maxDepth and says it dropped the rest.
func TestDeepStackBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("goroutine 1 [running]:\n")
	for i := range 100_000 {
		fmt.Fprintf(&b, "main.f%d()\n\t/src/a.go:%d +0x1\n", i%7, i+1)
	}
	d, err := parse("deep", []byte(b.String()), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(d.Goroutines[0].Stack); n != maxDepth {
		t.Errorf("%d frames kept, want %d", n, maxDepth)
	}
	if !d.Truncated || d.DroppedFrames != 100_000-maxDepth {
		t.Errorf("truncated %v, dropped %d", d.Truncated, d.DroppedFrames)
	}
	// A normal dump drops nothing.
	if d, _ := parse("hand", []byte(handDump), ReadOptions{}); d.Truncated || d.DroppedFrames != 0 {
		t.Errorf("hand dump: truncated %v, dropped %d", d.Truncated, d.DroppedFrames)
	}
}

// TestFrameBudget: the frames of all records together are bounded.
func TestFrameBudget(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "goroutine %d [chan receive]:\nmain.a()\n\t/src/a.go:1 +0x1\nmain.b()\n\t/src/a.go:2 +0x1\n\n", i+1)
	}
	d, err := parse("many", []byte(b.String()), ReadOptions{MaxFrames: 500})
	if err != nil {
		t.Fatal(err)
	}
	frames := 0
	for _, g := range d.Goroutines {
		frames += len(g.Stack)
	}
	if frames != 500 || d.DroppedFrames != 1500 || !d.Truncated || len(d.Goroutines) != 1000 {
		t.Errorf("%d frames kept in %d records, dropped %d", frames, len(d.Goroutines), d.DroppedFrames)
	}
	if d.Goroutines[0].Stack[0].Func != "main.a" {
		t.Errorf("first frame %+v", d.Goroutines[0].Stack[0])
	}
}

// TestDebug1Counts: a count that overflows int is capped, a negative total
// in the header is ignored, malformed lines are counted.
func TestDebug1Counts(t *testing.T) {
	in := "goroutine profile: total -3\n" +
		"99999999999999999 @ 0x1 0x2\n#\t0x1\tmain.a+0x1\t/src/a.go:1\n\n" +
		"x @ 0x1\n#\t0x1\tmain.b+0x1\t/src/a.go:oops\n\n" +
		"2 @ 0x1\n#\t0x1\tmain.c+0x1\t/src/a.go:3\n"
	d, err := parse("counts", []byte(in), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Declared != -1 || d.Goroutines[0].Count != maxCount || d.Total != maxCount+2 {
		t.Errorf("declared %d, count %d, total %d", d.Declared, d.Goroutines[0].Count, d.Total)
	}
	if d.Skipped != 2 {
		t.Errorf("skipped %d, want 2 (the bad count line and the bad frame)", d.Skipped)
	}
}

// TestProtoRecordLimits: a proto claiming too many stack frames is refused
// before pprof parses it.
func TestProtoRecordLimits(t *testing.T) {
	fn := &pprof.Function{ID: 1, Name: "main.a", Filename: "/src/a.go"}
	loc := &pprof.Location{ID: 1, Line: []pprof.Line{{Function: fn, Line: 1}}}
	p := &pprof.Profile{SampleType: []*pprof.ValueType{{Type: "goroutine", Unit: "count"}},
		Function: []*pprof.Function{fn}, Location: []*pprof.Location{loc}}
	for range 100 {
		p.Sample = append(p.Sample, &pprof.Sample{Location: []*pprof.Location{loc, loc, loc}, Value: []int64{1}})
	}
	var buf bytes.Buffer
	if err := p.WriteUncompressed(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := parse("proto", buf.Bytes(), ReadOptions{MaxFrames: 299}); err == nil || !strings.Contains(err.Error(), "300 stack frames, over the limit of 299") {
		t.Errorf("err = %v", err)
	}
	d, err := parse("proto", buf.Bytes(), ReadOptions{})
	if err != nil || d.Total != 100 {
		t.Fatalf("within the limits: %v", err)
	}
	if _, err := parse("proto", buf.Bytes(), ReadOptions{MaxGoroutines: 20}); err == nil || !strings.Contains(err.Error(), "100 samples, over the limit of 80") {
		t.Errorf("err = %v", err)
	}
}
