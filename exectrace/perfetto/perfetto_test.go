package perfetto

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/exp/trace"

	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/internal/golden"
	"github.com/schedoctor/schedoctor/internal/pbwire"
)

const testdata = "../testdata/"

func export(t *testing.T, name string, opt Options) ([]byte, *Stats, *decoded) {
	t.Helper()
	var buf bytes.Buffer
	st, err := ExportFile(context.Background(), &buf, testdata+name, opt)
	if err != nil {
		t.Fatal(err)
	}
	if st.Bytes != int64(buf.Len()) {
		t.Errorf("Stats.Bytes %d, wrote %d", st.Bytes, buf.Len())
	}
	d, err := decode(buf.Bytes())
	if err != nil {
		t.Fatalf("%s: decoding the export: %v", name, err)
	}
	return buf.Bytes(), st, d
}

// procsOf lists the Ps of a trace, read with the trace reader directly.
func procsOf(t *testing.T, name string) map[trace.ProcID]bool {
	t.Helper()
	f, err := os.Open(testdata + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := trace.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	ps := map[trace.ProcID]bool{}
	for {
		ev, err := rd.ReadEvent()
		if err == io.EOF {
			return ps
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind() == trace.EventStateTransition && ev.StateTransition().Resource.Kind == trace.ResourceProc {
			ps[ev.StateTransition().Resource.Proc()] = true
		}
	}
}

// enclosing returns the slice on track that holds an instant at ts
// (begun before or at it, ended after or at it, at depth 0). The slices
// of a track are in time order: a binary search finds it.
func (d *decoded) enclosing(track, ts uint64) (dSlice, bool) {
	if d.byTrack == nil {
		d.byTrack = map[uint64][]dSlice{}
		for _, s := range d.slices {
			if s.depth == 0 {
				d.byTrack[s.track] = append(d.byTrack[s.track], s)
			}
		}
	}
	list := d.byTrack[track]
	i := sort.Search(len(list), func(i int) bool { return list[i].start > ts }) - 1
	for ; i >= 0 && list[i].end >= ts; i-- {
		if list[i].start <= ts {
			return list[i], true
		}
	}
	return dSlice{}, false
}

func goroutineOf(t *testing.T, s dSlice) int64 {
	t.Helper()
	a, ok := s.begin.annot("goroutine")
	if !ok || a.str {
		t.Fatalf("slice %q on track %#x has no goroutine annotation", s.name, s.track)
	}
	return a.i
}

// TestPingpongTracksAndFlows: two goroutines hand a token over unbuffered
// channels, so each one's send unblocks the other. The export of the
// whole trace must hold a track per P, flows from each to the other
// (an unblock instant inside the unblocker's slice, ending at the slice
// where the unblocked goroutine runs next), and the counters.
func TestPingpongTracksAndFlows(t *testing.T) {
	_, st, d := export(t, "pingpong.trace", Options{})
	ps := procsOf(t, "pingpong.trace")
	group := d.byName("Ps")
	if len(group) != 1 {
		t.Fatalf("%d tracks named Ps", len(group))
	}
	pTracks := d.children(group[0].uuid)
	if len(pTracks) != len(ps) || st.Ps != len(ps) {
		t.Errorf("%d P tracks (Stats %d) for the trace's %d Ps", len(pTracks), st.Ps, len(ps))
	}
	for id := range ps {
		if len(d.byName("P"+strconv.Itoa(int(id)))) != 1 {
			t.Errorf("no track for P%d", id)
		}
	}

	pairs := map[[2]string]int{}
	through := 0 // flows through the unblocked goroutine's runnable state slice
	for _, f := range d.flows {
		if !f.ended {
			continue // unblocked at the end of the trace, never ran
		}
		if len(f.steps) == 3 && f.steps[1].name == "runnable" && d.tracks[d.tracks[f.steps[1].track].parent].name == "Goroutines" {
			through++
		}
		src, dst := f.steps[0], f.steps[len(f.steps)-1]
		if src.begin.typ != 3 || src.name != "unblock" {
			t.Fatalf("flow %d begins at %q (type %d), not an unblock instant", f.id, src.name, src.begin.typ)
		}
		holder, ok := d.enclosing(src.track, src.start)
		if !ok {
			t.Fatalf("unblock at %d on %q is in no slice", src.start, d.tracks[src.track].name)
		}
		if dst.begin.typ != 1 || d.tracks[dst.track].parent != group[0].uuid {
			t.Fatalf("flow %d ends at %q on %q, not a P's slice", f.id, dst.name, d.tracks[dst.track].name)
		}
		if want, got := goroutineOf(t, src), goroutineOf(t, dst); want != got {
			t.Fatalf("flow %d: unblocked G%d, ends at the run of G%d", f.id, want, got)
		}
		if goroutineOf(t, holder) == goroutineOf(t, dst) {
			t.Fatalf("flow %d: G%d unblocks itself", f.id, goroutineOf(t, dst))
		}
		if dst.start < src.start {
			t.Fatalf("flow %d ends at %d, before it begins at %d", f.id, dst.start, src.start)
		}
		pairs[[2]string{holder.name, dst.name}]++
	}
	for _, p := range [][2]string{{"main.main", "main.run.func1"}, {"main.run.func1", "main.main"}} {
		if pairs[p] < 100 {
			t.Errorf("%d flows from %s to %s, want the hand-offs (flows: %v)", pairs[p], p[0], p[1], pairs)
		}
	}
	if through < len(d.flows)/2 {
		t.Errorf("%d of %d flows pass through the runnable slice of the goroutine they unblock (both have state tracks)", through, len(d.flows))
	}
	if st.Flows < len(d.flows) || len(d.flows) == 0 {
		t.Errorf("Stats.Flows %d, decoded %d", st.Flows, len(d.flows))
	}

	for _, name := range []string{"runnable goroutines", "GOMAXPROCS", "heap objects (bytes)"} {
		tr := d.byName(name)
		if len(tr) != 1 || !tr[0].counter || len(d.counters[tr[0].uuid]) == 0 {
			t.Errorf("counter %q missing or empty", name)
		}
	}
	if c := d.counters[d.byName("GOMAXPROCS")[0].uuid]; len(c) == 0 || c[0].value != int64(len(ps)) {
		t.Errorf("GOMAXPROCS samples %v, want %d", c, len(ps))
	}
	// The state tracks: both goroutines of the hand-off are among those that matter.
	gs := d.children(d.byName("Goroutines")[0].uuid)
	var names []string
	for _, g := range gs {
		names = append(names, g.name)
	}
	for _, want := range []string{"main.main G1", "main.run.func1 G"} {
		if !strings.Contains(strings.Join(names, "|"), want) {
			t.Errorf("no state track %q among %q", want, names)
		}
	}
	if len(gs) > DefaultGoroutines {
		t.Errorf("%d goroutine tracks, over %d", len(gs), DefaultGoroutines)
	}
}

// TestWindow: -at and -span restrict every timestamp to the window, and
// what runs across its start begins at the start.
func TestWindow(t *testing.T) {
	win := Around(5*time.Millisecond, 2*time.Millisecond)
	if win != (Window{Start: 4 * time.Millisecond, End: 6 * time.Millisecond}) {
		t.Fatalf("Around = %v", win)
	}
	_, st, d := export(t, "pingpong.trace", Options{Window: win})
	if st.Window != win || st.Cut {
		t.Errorf("Stats.Window %v cut %v, want %v", st.Window, st.Cut, win)
	}
	lo, hi := uint64(win.Start), uint64(win.End)
	var first, last uint64 = 1<<64 - 1, 0
	for _, s := range append(d.slices, d.instants...) {
		if s.start < lo || s.end > hi {
			t.Fatalf("%q on %q at %d–%d, outside the window %d–%d", s.name, d.tracks[s.track].name, s.start, s.end, lo, hi)
		}
		first, last = min(first, s.start), max(last, s.end)
	}
	for _, cs := range d.counters {
		for _, c := range cs {
			if c.ts < lo || c.ts > hi {
				t.Fatalf("counter at %d outside the window", c.ts)
			}
		}
	}
	if first != lo || last != hi {
		t.Errorf("slices span %d–%d, want the window's %d–%d", first, last, lo, hi)
	}
	if len(d.flows) == 0 {
		t.Error("no flows in a window of the hand-off")
	}

	// The whole trace holds more than the window.
	_, whole, _ := export(t, "pingpong.trace", Options{})
	if whole.Slices <= st.Slices || whole.Window.End != whole.TraceEnd {
		t.Errorf("whole trace: %d slices to %v (trace end %v); window: %d", whole.Slices, whole.Window.End, whole.TraceEnd, st.Slices)
	}
	// A window starting at 0 without an end is the whole trace.
	_, open, _ := export(t, "pingpong.trace", Options{Window: Window{Start: 10 * time.Millisecond}})
	if open.Window.End != open.TraceEnd || open.Slices >= whole.Slices {
		t.Errorf("window from 10ms: %v, %d slices", open.Window, open.Slices)
	}
}

// TestGolden compares the decoded text of exports with golden files:
// a whole small trace, and a short window of the hand-off.
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		golden, trace string
		opt           Options
	}{
		{"mutex.golden", "mutex.trace", Options{}},
		{"pingpong-window.golden", "pingpong.trace", Options{Window: Window{Start: 3 * time.Millisecond, End: 3*time.Millisecond + 3*time.Microsecond}}},
		{"gcpressure-stw.golden", "gcpressure.trace", Options{Window: Window{Start: 10510 * time.Microsecond, End: 10530 * time.Microsecond}, Goroutines: 4}},
		{"mutex-cut.golden", "mutex.trace", Options{MaxBytes: MinMaxBytes + 4000}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			_, _, d := export(t, tc.trace, tc.opt)
			golden.Check(t, "testdata/"+tc.golden, []byte(d.dump()))
		})
	}
}

// TestSizeLimit: the file never passes MaxBytes; a window cut by it ends
// every slice, says so in a note, and Stats.Window ends where it was cut.
func TestSizeLimit(t *testing.T) {
	_, whole, _ := export(t, "pingpong.trace", Options{})
	for _, max := range []int64{MinMaxBytes, MinMaxBytes + 1, 20_000, 100_003, 1 << 20} {
		b, st, d := export(t, "pingpong.trace", Options{MaxBytes: max})
		if int64(len(b)) > max {
			t.Errorf("limit %d: wrote %d bytes", max, len(b))
		}
		if !st.Cut {
			t.Errorf("limit %d: not cut (%d bytes)", max, len(b))
		}
		notes := d.byName("schedoctor")
		if len(notes) != 1 {
			t.Fatalf("limit %d: no note track", max)
		}
		var note *dSlice
		for i, s := range d.instants {
			if s.track == notes[0].uuid {
				note = &d.instants[i]
			}
		}
		if note == nil || !strings.Contains(note.name, "size limit") {
			t.Fatalf("limit %d: no note of the cut", max)
		}
		if a, ok := note.begin.annot("max_bytes"); !ok || a.i != max {
			t.Errorf("limit %d: note's max_bytes %+v", max, a)
		}
		if note.start != uint64(st.Window.End) || st.Window.End >= whole.TraceEnd {
			t.Errorf("limit %d: cut at %d, Stats.Window %v, trace end %v", max, note.start, st.Window, whole.TraceEnd)
		}
		for _, s := range d.slices {
			if s.end > note.start {
				t.Fatalf("limit %d: slice %q ends at %d, after the cut at %d", max, s.name, s.end, note.start)
			}
		}
		if max >= 20_000 && len(d.flows) == 0 {
			t.Errorf("limit %d: no flows before the cut", max)
		}
	}
	// Under the limit, no note.
	_, _, d := export(t, "mutex.trace", Options{})
	if len(d.byName("schedoctor")) != 0 {
		t.Error("a note track without a cut")
	}
}

// TestBrokenTrace: a trace cut part way is exported up to its break,
// which Stats and a note name.
func TestBrokenTrace(t *testing.T) {
	// Two generations, the second cut (as exectrace's TestTruncated).
	data, err := os.ReadFile(testdata + "workerpool.trace")
	if err != nil {
		t.Fatal(err)
	}
	cut := data[:len(data)*97/100]
	var buf bytes.Buffer
	st, err := Export(context.Background(), &buf, opener(cut), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Broken == "" || st.Cut {
		t.Errorf("Stats %+v: want Broken set, not Cut", st)
	}
	d, err := decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range d.instants {
		found = found || strings.HasPrefix(s.name, "the trace breaks here")
	}
	if !found || len(d.slices) == 0 {
		t.Errorf("no break note, or nothing before it (%d slices)", len(d.slices))
	}
}

func opener(data []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	data, err := os.ReadFile(testdata + "mutex.trace")
	if err != nil {
		t.Fatal(err)
	}
	pingpong, err := os.ReadFile(testdata + "pingpong.trace") // one generation of 313 KB
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		in   []byte
		opt  Options
		want string
	}{
		{"window after the end", data, Options{Window: Window{Start: time.Hour}}, "after the last event"},
		{"empty window", data, Options{Window: Window{Start: time.Second, End: time.Second}}, "want 0 ≤ start < end"},
		{"negative start", data, Options{Window: Window{Start: -1}}, "want 0 ≤ start < end"},
		{"limit too small", data, Options{MaxBytes: 100}, "below the smallest"},
		{"not a trace", []byte("hello, world\n"), Options{}, "not a readable Go execution trace"},
		{"header only", []byte("go 1.26 trace\x00\x00\x00"), Options{}, "no events"},
		{"first generation cut", data[:len(data)/2], Options{}, "broken before its first event"},
		{"generation limit too small", data, Options{Read: exectrace.ReadOptions{MaxGeneration: 10}}, "below the smallest allowed"},
		{"first generation over the limit", pingpong, Options{Read: exectrace.ReadOptions{MaxGeneration: exectrace.MinMaxGeneration}}, "generation 1 is larger than the limit"},
	} {
		_, err := Export(ctx, io.Discard, opener(tc.in), tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	_, err = Export(ctx, io.Discard, opener(data), Options{Window: Window{Start: time.Hour}})
	if !errors.Is(err, ErrWindow) {
		t.Errorf("window after the end: %v does not wrap ErrWindow", err)
	}
	_, err = ExportFile(ctx, io.Discard, testdata+"no-such.trace", Options{})
	if err == nil || !strings.Contains(err.Error(), "no-such.trace") {
		t.Errorf("missing file: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Export(cctx, io.Discard, opener(data), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestMaxEndPacket: the bound on an end packet's size holds for the
// largest one (the encoding itself: internal/pbwire's TestEncoding).
func TestMaxEndPacket(t *testing.T) {
	if maxEndPacket < len(pbwire.AppendBytes(nil, 1, pbwire.AppendBytes(pbwire.AppendUint(pbwire.AppendUint(pbwire.AppendUint(nil, fPacketTimestamp, 1<<64-1), fPacketSequenceID, sequenceID), fPacketSeqFlags, 1), fPacketTrackEvent, appendEvent(nil, &event{typ: typeSliceEnd, track: 1<<64 - 1})))) {
		t.Error("maxEndPacket is below the largest end packet")
	}
}

// FuzzExport feeds the trace analysis' fuzz corpus and arbitrary bytes
// to the export with a small limit: it must return an error or a file
// that decodes and stays under the limit, never panic.
func FuzzExport(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed, uint16(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, extra uint16) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		max := int64(MinMaxBytes) + int64(extra)
		var buf bytes.Buffer
		st, err := Export(ctx, &buf, opener(data), Options{MaxBytes: max})
		if err != nil {
			return
		}
		if int64(buf.Len()) > max || st.Bytes != int64(buf.Len()) {
			t.Fatalf("wrote %d bytes (Stats %d) under a limit of %d", buf.Len(), st.Bytes, max)
		}
		if _, err := decode(buf.Bytes()); err != nil {
			t.Fatalf("the export does not decode: %v", err)
		}
	})
}

// fuzzSeeds reads exectrace's FuzzAnalyze corpus (go test fuzz v1 files
// of one []byte) and a small trace.
func fuzzSeeds(tb testing.TB) [][]byte {
	dir := testdata + "fuzz/FuzzAnalyze/"
	ents, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for _, e := range ents {
		b, err := os.ReadFile(dir + e.Name())
		if err != nil {
			tb.Fatal(err)
		}
		v, err := corpusBytes(string(b))
		if err != nil {
			tb.Fatalf("%s: %v", e.Name(), err)
		}
		out = append(out, v)
	}
	return out
}

// corpusBytes decodes a "go test fuzz v1" file holding one []byte("...").
func corpusBytes(s string) ([]byte, error) {
	_, body, ok := strings.Cut(s, "\n")
	body = strings.TrimSpace(body)
	if !ok || !strings.HasPrefix(body, "[]byte(") || !strings.HasSuffix(body, ")") {
		return nil, errors.New("not one []byte value")
	}
	q, err := strconv.Unquote(body[len("[]byte(") : len(body)-1])
	return []byte(q), err
}

// TestNames: a goroutine the standard library started is named after the
// user's function it runs (busyhandler's handlers, started by net/http),
// never after a standard-library frame, on the P tracks and the state
// tracks; a runtime name is kept only where no user frame exists.
func TestNames(t *testing.T) {
	_, _, d := export(t, "busyhandler.trace", Options{})
	names := map[string]bool{}
	for _, s := range d.slices {
		if d.tracks[d.tracks[s.track].parent].name == "Ps" && s.name != "syscall" {
			names[s.name] = true
		}
	}
	if !names["main.badHandler"] {
		t.Errorf("no run of main.badHandler on the P tracks: %v", names)
	}
	for _, bad := range []string{"net/http.(*conn).serve", "net/http.(*Server).Serve"} {
		if names[bad] {
			t.Errorf("a run named %q: the goroutine runs user code", bad)
		}
	}
	for _, g := range d.children(d.byName("Goroutines")[0].uuid) {
		if strings.HasPrefix(g.name, "net/http.(*conn).serve") {
			t.Errorf("state track %q", g.name)
		}
	}
}

// TestScanKeepsTheBestEnded: the first pass keeps, of the goroutines that
// ended in the window, no more than a few times the picks, and still
// picks the best of each ranking, in turn.
func TestScanKeepsTheBestEnded(t *testing.T) {
	s := newScan(Window{}, 4)
	for i := 1; i <= 10_000; i++ {
		g := &gscan{runnable: time.Duration(i % 5000), unblocks: (i * 7919) % 10_007}
		g.name = "main.f"
		s.retire(trace.GoID(i), g)
		if len(s.gone) > 4*4+64 {
			t.Fatalf("%d ended goroutines kept after %d", len(s.gone), i)
		}
	}
	got := s.pick(4)
	// Longest runnable: 4999 ns, by ids 4999 and 9999 (ties by id); most
	// unblocks: the i where i*7919 mod 10007 is largest.
	var most trace.GoID
	for i := 1; i <= 10_000; i++ {
		if most == 0 || (i*7919)%10_007 > (int(most)*7919)%10_007 {
			most = trace.GoID(i)
		}
	}
	if len(got) != 4 || got[0] != 4999 || got[1] != most || got[2] != 9999 {
		t.Errorf("picked %v, want [4999 %d 9999 ...]", got, most)
	}
	if s.nameOf(got[0]) != "main.f" {
		t.Errorf("picked goroutine's name %q", s.nameOf(got[0]))
	}
}

// TestCutPicksWhatIsWritten: when the size limit cuts the window, the
// goroutines given a state track are picked from what is written, not
// from the rest of the window (a goroutine created after the cut would
// get an empty track).
func TestCutPicksWhatIsWritten(t *testing.T) {
	for _, tc := range []struct {
		trace string
		max   int64
	}{{"mutex.trace", MinMaxBytes + 4000}, {"pingpong.trace", 200_000}, {"busyhandler.trace", 60_000}} {
		_, st, d := export(t, tc.trace, Options{MaxBytes: tc.max})
		if !st.Cut {
			t.Fatalf("%s: not cut at %d bytes", tc.trace, tc.max)
		}
		used := map[uint64]bool{}
		for _, s := range d.slices {
			used[s.track] = true
		}
		for _, g := range d.children(d.byName("Goroutines")[0].uuid) {
			if !used[g.uuid] {
				t.Errorf("%s: state track %q is empty: picked from after the cut at %v", tc.trace, g.name, st.Window.End)
			}
		}
	}
}
