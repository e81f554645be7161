package schedtrace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func mustParse(t *testing.T, in string) *Trace {
	t.Helper()
	tr, err := Read(context.Background(), "in.txt", strings.NewReader(in), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestParseFormats(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       Tick
	}{
		{
			"go1.26",
			"SCHED 1004ms: gomaxprocs=4 idleprocs=1 threads=9 spinningthreads=2 needspinning=1 idlethreads=3 runqueue=7 [ 1 0 256 3 ] schedticks=[ 40 33 4294967295 0 ]",
			Tick{Line: 1, Ms: 1004, GOMAXPROCS: 4, IdleProcs: 1, Threads: 9, Spinning: 2, NeedSpinning: 1, IdleThreads: 3, RunQueue: 7,
				LocalQueues: []int32{1, 0, 256, 3}, SchedTicks: []uint32{40, 33, 4294967295, 0}},
		},
		{
			"go1.20 without needspinning, list without inner spaces",
			"SCHED 2006ms: gomaxprocs=4 idleprocs=0 threads=25 spinningthreads=0 idlethreads=19 runqueue=12 [0 0 4 0]",
			Tick{Line: 1, Ms: 2006, GOMAXPROCS: 4, Threads: 25, Spinning: 0, NeedSpinning: Absent, IdleThreads: 19, RunQueue: 12,
				LocalQueues: []int32{0, 0, 4, 0}},
		},
		{
			"go1.1: no spinningthreads",
			"SCHED 0ms: gomaxprocs=1 idleprocs=0 threads=2 idlethreads=0 runqueue=0 [0]",
			Tick{Line: 1, GOMAXPROCS: 1, Threads: 2, Spinning: Absent, NeedSpinning: Absent, IdleThreads: 0, LocalQueues: []int32{0}},
		},
		{
			"unknown future field, torn queue length clamped",
			"SCHED 5ms: gomaxprocs=2 idleprocs=0 threads=4 newfield=17 runqueue=0 [ 4294967295 1 ] schedticks=[ 1 2 ]",
			Tick{Line: 1, Ms: 5, GOMAXPROCS: 2, Threads: 4, Spinning: Absent, NeedSpinning: Absent, IdleThreads: Absent,
				LocalQueues: []int32{runqCap, 1}, SchedTicks: []uint32{1, 2}},
		},
		{
			"prefixed by the program's output, cut in the list",
			"request done in 3msSCHED 7ms: gomaxprocs=2 idleprocs=2 threads=4 runqueue=1 [ 0 GET /",
			Tick{Line: 1, Ms: 7, GOMAXPROCS: 2, IdleProcs: 2, Threads: 4, RunQueue: 1, Spinning: Absent, NeedSpinning: Absent, IdleThreads: Absent},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := mustParse(t, tc.line+"\n")
			if len(tr.Ticks) != 1 {
				t.Fatalf("%d ticks, stats %+v", len(tr.Ticks), tr.Stats)
			}
			if got := tr.Ticks[0]; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseSkipsAndCounts(t *testing.T) {
	in := strings.Join([]string{
		"hello",
		"SCHED 0ms: gomaxprocs=2 idleprocs=0 threads=4 runqueue=0 [ 0 0 ]",
		"SCHED 100ms: gomaxprocs=2 idleprocs=0 thr",                           // cut before core fields
		"SCHED 200ms: gomaxprocs=2x idleprocs=0 threads=4 runqueue=0 [ 0 0 ]", // glued value
		"SCHED 300ms: gomaxprocs=0 idleprocs=0 threads=4 runqueue=0 []",       // impossible
		"SCHED xms: gomaxprocs=2",
		"SCHED 400ms: gomaxprocs=2 idleprocs=1 threads=4 runqueue=3 [ 1", // kept without queues
		"  P0: status=1 schedtick=1 syscalltick=0 m=0 runqsize=0",        // no open detailed tick
		"SCHED 500ms: gomaxprocs=2 idleprocs=1 threads=4 runqueue=3 [ 1 2 ]\r",
	}, "\n")
	tr := mustParse(t, in)
	want := Stats{Lines: 9, SchedLines: 3, Skipped: 2, Truncated: 4, PartialP: 1}
	if tr.Stats != want {
		t.Errorf("stats %+v, want %+v", tr.Stats, want)
	}
	if q, ok := tr.Ticks[1].Queued(); ok || q != 3 {
		t.Errorf("cut tick: Queued() = %d, %v; want 3 (global only), false", q, ok)
	}
	if q, ok := tr.Ticks[2].Queued(); !ok || q != 6 {
		t.Errorf("CRLF tick: Queued() = %d, %v; want 6, true", q, ok)
	}
}

func TestParseDetail(t *testing.T) {
	in := `SCHED 200ms: gomaxprocs=2 idleprocs=0 threads=5 spinningthreads=0 needspinning=1 idlethreads=1 runqueue=2 gcwaiting=false nmidlelocked=0 stopwait=0 sysmonwait=true
  P0: status=1 schedtick=7285 syscalltick=3 m=3 runqsize=4 gfreecnt=2 timerslen=1
  P1: status=0 schedtick=7187 syscalltick=0 m=nil runqsize=1 gfreecnt=0 timerslen=0
  M1: p=nil curg=nil mallocing=0 throwing=0 preemptoff= locks=2 dying=0 spinning=false blocked=false lockedg=nil
  M0: p=0 curg=1 mallocing=0 throwing=0 preemptoff= locks=0 dying=0 spinning=true blocked=false lockedg=1
some program output
  G1: status=4(sync.WaitGroup.Wait) m=nil lockedm=nil
  G2: status=4(force gc (idle)) m=nil lockedm=nil
  G7: status=1(sync.Mutex.Lock) m=nil lockedm=nil
  G8: status=4100(chan receive) m=nil lockedm=nil
  G9: status=2() m=3 lockedm=nil
  G10: status=6() m=nil lockedm=nil
  G11: status=4(select (no ca
SCHED 400ms: gomaxprocs=2 idleprocs=0 threads=5 spinningthreads=0 needspinning=1 idlethreads=1 runqueue=0 gcwaiting=0 nmidlelocked=0 stopwait=0 sysmonwait=0
  P0: status=1 schedtick=7300 syscalltick=3 m=3 runqsize=4 gfreecnt=2 timerslen=1
`
	tr := mustParse(t, in)
	if len(tr.Ticks) != 2 {
		t.Fatalf("%d ticks", len(tr.Ticks))
	}
	d := tr.Ticks[0].Detail
	if d == nil || d.SysmonWait != 1 || d.GCWaiting != 0 {
		t.Fatalf("detail %+v", d)
	}
	if !reflect.DeepEqual(tr.Ticks[0].LocalQueues, []int32{4, 1}) || !reflect.DeepEqual(tr.Ticks[0].SchedTicks, []uint32{7285, 7187}) {
		t.Errorf("queues %v, schedticks %v", tr.Ticks[0].LocalQueues, tr.Ticks[0].SchedTicks)
	}
	wantP := PLine{ID: 1, Status: "idle", SchedTick: 7187, M: -1, RunqSize: 1}
	if d.Ps[1] != wantP {
		t.Errorf("P1 %+v, want %+v", d.Ps[1], wantP)
	}
	if want := (MCounts{Total: 2, WithP: 1, Running: 1, Spinning: 1, Locked: 1}); d.Ms != want {
		t.Errorf("Ms %+v, want %+v", d.Ms, want)
	}
	g := d.Gs
	wantStatus := map[string]int{"waiting": 4, "runnable": 1, "running": 1, "dead": 1}
	wantWait := map[string]int{"sync.WaitGroup.Wait": 1, "force gc (idle)": 1, "chan receive": 1}
	if g.Total != 7 || !reflect.DeepEqual(g.ByStatus, wantStatus) || !reflect.DeepEqual(g.ByWaitReason, wantWait) ||
		!reflect.DeepEqual(g.RunnableFrom, map[string]int{"sync.Mutex.Lock": 1}) {
		t.Errorf("Gs %+v", g)
	}
	// The second tick lost a P line: counters kept, queues unknown.
	if tr.Ticks[1].LocalQueues != nil || tr.Stats.PartialP != 1 {
		t.Errorf("incomplete detail tick: queues %v, stats %+v", tr.Ticks[1].LocalQueues, tr.Stats)
	}
	if tr.Stats.DetailLines != 12 || tr.Stats.Skipped != 1 {
		t.Errorf("stats %+v", tr.Stats)
	}
}

func TestParseOverlong(t *testing.T) {
	long := strings.Repeat("x", 300)
	in := long + "\nSCHED 0ms: gomaxprocs=2 idleprocs=0 threads=4 runqueue=0 [ 0 0 ]\n" + long + long + "\n" + long
	tr, err := parse(context.Background(), strings.NewReader(in), "in.txt", 128, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Stats{Lines: 4, SchedLines: 1, Overlong: 3}); tr.Stats != want {
		t.Errorf("stats %+v, want %+v", tr.Stats, want)
	}
	_, err = parse(context.Background(), strings.NewReader(long+"\n"+long), "big.txt", 128, ReadOptions{})
	if !errors.Is(err, ErrNoSchedLines) || !strings.Contains(err.Error(), "big.txt: every line is longer than 128 bytes") {
		t.Errorf("all overlong: %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "in.txt is empty; run the program with GODEBUG=schedtrace=1000"},
		{"panic: boom\n\ngoroutine 1 [running]:\n", "no GODEBUG=schedtrace lines found in in.txt (3 lines read); run the program with GODEBUG=schedtrace=1000"},
		{"SCHED 1ms: gomaxprocs=2\nSCHED", "in.txt: 1 SCHED lines, none complete enough to use"},
	} {
		_, err := Read(context.Background(), "in.txt", strings.NewReader(tc.in), ReadOptions{})
		if !errors.Is(err, ErrNoSchedLines) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Read(%q): %v, want %q", tc.in, err, tc.want)
		}
	}
	_, err := Read(context.Background(), "in.txt", errReader{}, ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), "reading in.txt: disk on fire") {
		t.Errorf("read error: %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

// TestParseFixtures checks that every real capture parses whole: each
// SCHED line of the runtime becomes a tick.
func TestParseFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := Read(context.Background(), f, strings.NewReader(string(data)), ReadOptions{})
		sched := strings.Count(string(data), "SCHED ")
		switch base := filepath.Base(f); base {
		case "empty.txt", "garbage.txt", "truncated-only.txt":
			if !errors.Is(err, ErrNoSchedLines) {
				t.Errorf("%s: %v, want ErrNoSchedLines", base, err)
			}
		case "interleaved.txt":
			if err != nil || tr.Stats.SchedLines+tr.Stats.Truncated != sched {
				t.Errorf("%s: %v, stats %+v, %d SCHED", base, err, tr.Stats, sched)
			}
		default:
			if err != nil || tr.Stats.SchedLines != sched || tr.Stats.Truncated+tr.Stats.PartialP+tr.Stats.Overlong != 0 {
				t.Errorf("%s: %v, stats %+v, %d SCHED", base, err, tr.Stats, sched)
			}
		}
	}
}

// TestParseBounded: an input far longer than the bounds keeps only its last
// MaxTicks snapshots, says how many it dropped, and analyses those.
func TestParseBounded(t *testing.T) {
	var b strings.Builder
	const n = 5000
	for i := range n {
		fmt.Fprintf(&b, "SCHED %dms: gomaxprocs=4 idleprocs=0 threads=6 runqueue=%d [ 1 2 3 4 ] schedticks=[ %d %d %d %d ]\n", i*10, i%7, i, i, i, i)
	}
	tr, err := Read(context.Background(), "long.txt", strings.NewReader(b.String()), ReadOptions{MaxTicks: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Ticks) != 100 || tr.Stats.Dropped != n-100 || tr.Stats.SchedLines != n {
		t.Fatalf("%d ticks kept, stats %+v", len(tr.Ticks), tr.Stats)
	}
	if first, last := tr.Ticks[0].Line, tr.Ticks[99].Line; first != n-99 || last != n {
		t.Errorf("kept lines %d-%d, want the last 100 (%d-%d)", first, last, n-99, n)
	}
	_, s := analyze(tr)
	if len(s.Notes) == 0 || !strings.Contains(s.Notes[0], "the oldest 4900 were dropped") {
		t.Errorf("notes %q", s.Notes)
	}
	// The value bound: 8 values per tick, 80 allowed, so 10 ticks kept.
	tr, err = Read(context.Background(), "long.txt", strings.NewReader(b.String()), ReadOptions{MaxValues: 80})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Ticks) != 10 {
		t.Errorf("%d ticks kept under a bound of 80 values, want 10", len(tr.Ticks))
	}
	// Within the bounds nothing is dropped.
	tr, _ = Read(context.Background(), "long.txt", strings.NewReader(b.String()), ReadOptions{})
	if len(tr.Ticks) != n || tr.Stats.Dropped != 0 {
		t.Errorf("default bounds: %d ticks, dropped %d", len(tr.Ticks), tr.Stats.Dropped)
	}
}

// TestParseOverfullDetail: a snapshot followed by more P lines than it has
// Ps, or by thousands of distinct wait reasons, is bounded: the extra lines
// are counted, and the tick keeps no per-P figures it cannot trust.
func TestParseOverfullDetail(t *testing.T) {
	var b strings.Builder
	b.WriteString("SCHED 0ms: gomaxprocs=2 idleprocs=0 threads=4 spinningthreads=0 needspinning=0 idlethreads=0 runqueue=0 gcwaiting=false nmidlelocked=0 stopwait=0 sysmonwait=false\n")
	for i := range 10000 {
		fmt.Fprintf(&b, "  P%d: status=1 schedtick=1 syscalltick=0 m=0 runqsize=0 gfreecnt=0 timerslen=0\n", i%3)
		fmt.Fprintf(&b, "  G%d: status=4(reason %d) m=nil lockedm=nil\n", i, i)
	}
	tr, err := Read(context.Background(), "detail.txt", strings.NewReader(b.String()), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tk := tr.Ticks[0]
	if len(tk.Detail.Ps) != 0 || tk.LocalQueues != nil {
		t.Errorf("overfull tick kept %d P lines, queues %v", len(tk.Detail.Ps), tk.LocalQueues)
	}
	if n := len(tk.Detail.Gs.ByWaitReason); n != maxReasons {
		t.Errorf("%d wait reasons kept, want %d", n, maxReasons)
	}
	if tk.Detail.Gs.Total != 10000 {
		t.Errorf("%d goroutines counted, want 10000", tk.Detail.Gs.Total)
	}
	if want := 10000 - 2 + 10000 - maxReasons; tr.Stats.ExtraDetail != want {
		t.Errorf("extra detail %d, want %d", tr.Stats.ExtraDetail, want)
	}
}
