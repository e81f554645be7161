package goroutines

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A debug=2 dump written by hand with every header and frame variant the
// runtime prints (runtime/traceback.go, Go 1.26).
const handDump = `goroutine 1 gp=0xc000002380 m=0 mp=0x5b3c20 [running, locked to thread]:
main.main()
	/src/app/main.go:10 +0x1d

goroutine 18 [chan send, 12 minutes]:
main.worker(0xc00001e0c0)
	/src/app/worker.go:42 +0x45
created by main.start in goroutine 1
	/src/app/main.go:30 +0x66

goroutine 19 [select (no cases)]:
main.block(...)
	/src/app/main.go:50
created by main.start
	/src/app/main.go:31 +0x88

goroutine 20 [chan send (leaked), 3 minutes labels:{"path": "/a, b]:"}]:
main.worker(0xc00001e0c0)
	/src/app/worker.go:42 +0x45
...additional frames elided...
created by main.start in goroutine 1
	/src/app/main.go:30 +0x66

goroutine 21 [running]:
	goroutine running on other thread; stack unavailable
created by main.start in goroutine 1
	/src/app/main.go:32 +0x66

goroutine 22 [sync.RWMutex.RLock (scan)]:
github.com/x/y.(*T[...]).Get(0xc0000a0000, {0x1, 0x2})
	/go/pkg/mod/github.com/x/y/t.go:7 +0x1f
`

func TestParseDebug2Variants(t *testing.T) {
	d, err := parse("hand", []byte(handDump), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != FormatDebug2 || d.Total != 6 || d.Skipped != 0 {
		t.Fatalf("format %s, total %d, skipped %d", d.Format, d.Total, d.Skipped)
	}
	if d.Profile != ProfileGoroutineLeak {
		t.Errorf("a dump with (leaked) marks is the leak profile's debug=2 form; got %s", d.Profile)
	}
	g := d.Goroutines
	if g[0].ID != 1 || g[0].State != "running" || !g[0].Locked || len(g[0].Stack) != 1 {
		t.Errorf("goroutine 1: %+v", g[0])
	}
	if g[1].State != "chan send" || g[1].WaitMinutes != 12 || g[1].CreatorID != 1 ||
		g[1].CreatedBy == nil || *g[1].CreatedBy != (Frame{"main.start", "/src/app/main.go", 30}) ||
		g[1].Stack[0] != (Frame{"main.worker", "/src/app/worker.go", 42}) {
		t.Errorf("goroutine 18: %+v", g[1])
	}
	if g[2].State != "select (no cases)" || g[2].CreatorID != 0 || g[2].Stack[0].Line != 50 {
		t.Errorf("goroutine 19 (inlined frame, old created-by form): %+v", g[2])
	}
	if !g[3].Leaked || g[3].State != "chan send" || g[3].WaitMinutes != 3 || !g[3].Elided {
		t.Errorf("goroutine 20 (leaked, labels, elided): %+v", g[3])
	}
	if len(g[4].Stack) != 0 || g[4].CreatedBy == nil {
		t.Errorf("goroutine 21 (no stack): %+v", g[4])
	}
	if g[5].State != "sync.RWMutex.RLock" || g[5].Stack[0].Func != "github.com/x/y.(*T[...]).Get" {
		t.Errorf("goroutine 22 (scan, generic method): %+v", g[5])
	}
}

func TestParseMalformedCounted(t *testing.T) {
	in := "goroutine 5 [chan receive]:\nmain.f()\nnot a file line\n\tno-colon +0x1\nmain.g()\n\t/a.go:3 +0x1\n\n" +
		"garbage between records\ngoroutine x [running]:\n\ngoroutine 6 [sleep]:\ntime.Sleep(0x1)\n\t/go/time.go:9 +0x1\n"
	d, err := parse("bad", []byte(in), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Total != 2 || d.Skipped != 4 {
		t.Errorf("total %d (want 2), skipped %d (want 4: the file-less frame, the bad file line, the text, the bad header)", d.Total, d.Skipped)
	}
	if got := d.Goroutines[0].Stack; len(got) != 1 || got[0].Func != "main.g" {
		t.Errorf("goroutine 5 keeps only its well-formed frame: %+v", got)
	}
}

func TestParseCaps(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&b, "goroutine %d [chan send]:\nmain.f()\n\t/a.go:1 +0x1\n\n", i)
	}
	d, err := parse("many", []byte(b.String()), ReadOptions{MaxGoroutines: 10})
	if err != nil {
		t.Fatal(err)
	}
	if d.Total != 10 || !d.Truncated {
		t.Errorf("total %d truncated %v, want 10 true", d.Total, d.Truncated)
	}
	long := "goroutine 1 [chan send]:\nmain.f(" + strings.Repeat("0x1, ", 1000) + ")\n\t/a.go:1 +0x1\n"
	d, err = parse("long", []byte(long), ReadOptions{MaxLine: 100})
	if err != nil {
		t.Fatal(err)
	}
	if d.Skipped != 2 || len(d.Goroutines[0].Stack) != 0 {
		t.Errorf("long line: skipped %d (want 2: the line and its orphan file line), stack %v", d.Skipped, d.Goroutines[0].Stack)
	}
	if _, err := Read(context.Background(), "big", strings.NewReader(strings.Repeat("x", 100)), ReadOptions{MaxBytes: 10}); err == nil || !strings.Contains(err.Error(), "limit of 10 bytes") {
		t.Errorf("size cap: %v", err)
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{"", "<html><body>404</body></html>", "{\"error\": 1}", "goroutine profile: total 3\n"} {
		_, err := parse("x", []byte(in), ReadOptions{})
		if !errors.Is(err, ErrNotDump) {
			t.Errorf("%q: %v, want ErrNotDump", in, err)
		}
	}
	// A CPU profile is a pprof profile of another kind.
	cpu, err := os.ReadFile(filepath.Join("..", "profile", "testdata", "lab", "workerpool.pb.gz"))
	if err != nil {
		t.Skip(err)
	}
	if _, err := parse("cpu", cpu, ReadOptions{}); !errors.Is(err, ErrNotDump) || !strings.Contains(err.Error(), "cpu/nanoseconds") {
		t.Errorf("CPU profile: %v", err)
	}
}

// TestFormatsAgree reads the same recorded moment in the three formats:
// totals and the leaking group agree; only debug=2 has states as printed,
// waits and creators, and the proto's inferred state matches it.
func TestFormatsAgree(t *testing.T) {
	var totals []int
	for _, f := range []string{"leak-end.debug2.txt", "leak-end.debug1.txt", "leak-end.pb.gz"} {
		d, err := ReadFile(context.Background(), filepath.Join("testdata", f), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Skipped != 0 || d.Truncated {
			t.Errorf("%s: skipped %d, truncated %v", f, d.Skipped, d.Truncated)
		}
		totals = append(totals, d.Total)
		top := Groups(d)[0]
		if top.Wait.Func != "main.leakyHandler.func1" || top.Wait.Line != 61 {
			t.Errorf("%s: top group waits at %v", f, top.Wait)
		}
		switch d.Format {
		case FormatDebug2:
			if top.State != "chan send" || top.StateInferred || top.Created.Line != 60 || top.OldestMinutes != 2 {
				t.Errorf("debug=2 top group: %+v", top.Key)
			}
		case FormatProto:
			if top.State != "chan send" || !top.StateInferred || top.Created.Func != "" || d.Time.IsZero() {
				t.Errorf("proto top group: %+v (inferred %v), time %v", top.Key, top.StateInferred, d.Time)
			}
		case FormatDebug1:
			// The runtime's frames are left out: the send cannot be seen.
			if top.State != "" || d.Declared != d.Total {
				t.Errorf("debug=1 top group: state %q, declared %d total %d", top.State, d.Declared, d.Total)
			}
		}
	}
	// The three were written one after the other: a goroutine or two may
	// come and go between them.
	for _, n := range totals[1:] {
		if d := n - totals[0]; d < -5 || d > 5 {
			t.Errorf("totals %v differ by more than 5", totals)
		}
	}
}

func TestLeakProfileFormats(t *testing.T) {
	for _, f := range []string{"leakprof-end.goroutineleak.debug1.txt", "leakprof-end.goroutineleak.pb.gz", "leakprof-end.goroutineleak.debug2.txt"} {
		d, err := ReadFile(context.Background(), filepath.Join("testdata", f), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		leaked := 0
		for _, g := range d.Goroutines {
			if g.Leaked {
				leaked += g.Count
			}
		}
		if d.Profile != ProfileGoroutineLeak || leaked < 99 {
			t.Errorf("%s: profile %s, %d leaked", f, d.Profile, leaked)
		}
	}
	d, err := ReadFile(context.Background(), filepath.Join("testdata", "healthy-end.goroutineleak.debug1.txt"), ReadOptions{})
	if err != nil || d.Total != 0 || d.Declared != 0 {
		t.Errorf("empty leak profile: %v, %+v", err, d)
	}
}
