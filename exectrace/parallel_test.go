package exectrace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/exp/trace"

	"github.com/schedoctor/schedoctor/internal/labtest"
)

// identityTraces are the traces the parallel read is checked on: every
// fixture (testdata/multigen: lab recordings of 3 and 4 generations; the
// others have one or two), and the files $SCHEDOCTOR_IDENTITY_TRACES lists (colon-separated:
// big recorded traces, e.g. scripts/bench-trace.sh's).
func identityTraces(t *testing.T) []string {
	names, err := filepath.Glob("testdata/*.trace")
	multi, err2 := filepath.Glob("testdata/multigen/*.trace")
	if err != nil || err2 != nil || len(names) == 0 || len(multi) == 0 {
		t.Fatalf("no fixtures: %v, %v", err, err2)
	}
	names = append(multi, names...)
	return append(names, bigTraces()...)
}

func bigTraces() []string {
	if extra := os.Getenv("SCHEDOCTOR_IDENTITY_TRACES"); extra != "" {
		return strings.Split(extra, ":")
	}
	return nil
}

// eventString is an event as the reader prints it, with its stack: what
// the stitched stream must reproduce.
func eventString(ev *trace.Event) string {
	s := ev.String()
	if ev.Kind() == trace.EventStateTransition {
		// String prints the transition's stack; add the event's own.
		s += "\nstack:" + ev.Stack().String()
	}
	return s
}

// statusContext strips the context (M, P, G) of a status event that does
// not change a state: the one thing stitch.go does not put back.
func statusContext(ev *trace.Event, s string) string {
	if ev.Kind() != trace.EventStateTransition {
		return s
	}
	st := ev.StateTransition()
	var same bool
	switch st.Resource.Kind {
	case trace.ResourceGoroutine:
		from, to := st.Goroutine()
		same = from == to
	case trace.ResourceProc:
		// P statuses stay as the generation's reader gave them, from
		// an unknown state (stitch.go): compare the P and the time.
		from, to := st.Proc()
		if from == to || from == trace.ProcUndetermined || from == trace.ProcNotExist {
			return fmt.Sprintf("ProcStatus Time=%d ProcID=%d", ev.Time(), st.Resource.Proc())
		}
	}
	if !same {
		return s
	}
	_, rest, _ := strings.Cut(s, " StateTransition ")
	return "StateTransition " + rest
}

// sequentialEvents reads data with one reader, as the sequential path
// does, and calls f with each event's text (normalized by statusContext).
func sequentialEvents(t *testing.T, data []byte, f func(string)) error {
	rd, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := rd.ReadEvent()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		f(statusContext(&ev, eventString(&ev)))
	}
}

// parallelEvents reads data generation by generation with jobs decoders
// and the stitcher, and calls f with each event's text.
func parallelEvents(t *testing.T, data []byte, jobs int, f func(string)) (s *stitcher, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lim := newGenLimiter(bytes.NewReader(data), 1<<40)
	hdr := make([]byte, headerLen)
	if _, err := io.ReadFull(lim, hdr); err != nil {
		t.Fatal(err)
	}
	d := parallelDecode(ctx, newSplitter(hdr, lim), lim, jobs)
	defer d.wg.Wait()
	defer cancel()
	s = newStitcher()
	_, err = s.run(d, func() int64 { return 0 }, func(ev *trace.Event) {
		f(statusContext(ev, eventString(ev)))
	})
	return s, err
}

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// TestParallelSameEvents checks that the stitched events of generations
// decoded each on its own are the events of one reader over the whole
// trace, in the same order, on every fixture (all Go 1.26) and on the big
// traces $SCHEDOCTOR_IDENTITY_TRACES names (compared by a hash of each
// event's text, to bound the memory). It fails without stitch.go: the
// statuses opening each generation come from an unknown state.
func TestParallelSameEvents(t *testing.T) {
	for _, small := range []bool{false, true} {
		if small {
			// Chunks of 16 events: many chunks per generation, recycled
			// from one generation to the next.
			defer func(n int) { parallelChunk = n }(parallelChunk)
			parallelChunk = 16
		}
		t.Run(fmt.Sprintf("chunk%d", parallelChunk), testParallelSameEvents)
	}
}

func testParallelSameEvents(t *testing.T) {
	names := identityTraces(t)
	if parallelChunk < chunkSize {
		names = names[:len(names)-len(bigTraces())] // the fixtures suffice
		if testing.Short() {
			// Under -race -short (CI) every fixture in 16-event chunks
			// took 5 minutes: every fourth, and every trace of several
			// generations (where chunks are recycled across them), keep
			// the recycling covered.
			var some []string
			for i, n := range names {
				if i%4 == 0 || strings.Contains(n, "multigen") || strings.Contains(n, "burst") {
					some = append(some, n)
				}
			}
			names = some
		}
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if parseVersion(data[:min(len(data), headerLen)]) != splitVersion {
				t.Skipf("%s: not a Go 1.26 trace", name)
			}
			var want []uint64
			werr := sequentialEvents(t, data, func(s string) { want = append(want, hash(s)) })
			for _, jobs := range []int{1, 2, 4} {
				i, bad := 0, -1
				s, gerr := parallelEvents(t, data, jobs, func(s string) {
					if bad < 0 && (i >= len(want) || hash(s) != want[i]) {
						bad = i
					}
					i++
				})
				if fmt.Sprint(werr) != fmt.Sprint(gerr) {
					t.Errorf("jobs %d: error %v, want %v", jobs, gerr, werr)
				}
				if s.inexact != 0 {
					t.Errorf("jobs %d: %d events could not be remade", jobs, s.inexact)
				}
				if i != len(want) {
					t.Errorf("jobs %d: %d events, want %d", jobs, i, len(want))
				}
				if bad >= 0 {
					t.Fatalf("jobs %d: event %d differs:\n got %s\nwant %s", jobs, bad,
						nth(t, bad, func(f func(string)) { parallelEvents(t, data, jobs, f) }),
						nth(t, bad, func(f func(string)) { sequentialEvents(t, data, f) }))
				}
			}
		})
	}
}

// nth returns the n-th text that read passes on.
func nth(t *testing.T, n int, read func(func(string))) string {
	i, got := 0, "(none)"
	read(func(s string) {
		if i == n {
			got = s
		}
		i++
	})
	return got
}

// TestParallelSameResult checks that the analysis of a trace read with
// several decoders is identical to the sequential read's: summary,
// findings and pictures.
func TestParallelSameResult(t *testing.T) {
	for _, name := range identityTraces(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			want := analyzeJobs(t, name, ReadOptions{Jobs: 1})
			for _, jobs := range []int{2, 3} {
				got := analyzeJobs(t, name, ReadOptions{Jobs: jobs})
				sameResult(t, fmt.Sprintf("jobs %d", jobs), got, want)
			}
		})
	}
}

func analyzeJobs(t *testing.T, name string, ro ReadOptions) *Result {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := readAnalyze(context.Background(), f, Options{CPUs: 2}, ro)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func sameResult(t *testing.T, what string, got, want *Result) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	g, _ := json.MarshalIndent(got, "", " ")
	w, _ := json.MarshalIndent(want, "", " ")
	gl, wl := strings.Split(string(g), "\n"), strings.Split(string(w), "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			t.Fatalf("%s: results differ at JSON line %d:\n got %s\nwant %s", what, i, gl[i], wl[i])
		}
	}
	t.Fatalf("%s: results differ (%d vs %d JSON lines; not in JSON if equal)", what, len(gl), len(wl))
}

// TestParallelBrokenSame checks the two reads agree on broken input: a
// trace cut short at many places, and a generation over the limit, give
// the same result or the same error.
func TestParallelBrokenSame(t *testing.T) {
	data, err := os.ReadFile("testdata/epollloop-yield-busy.trace")
	if err != nil {
		t.Fatal(err)
	}
	gens := countGenerations(t, data)
	if gens < 2 {
		t.Fatalf("fixture has %d generations, want several", gens)
	}
	cuts := []int{headerLen + 1, len(data) / 3, len(data) / 2, len(data) - 1, len(data) - 100}
	for i := 1; i < 12; i++ {
		cuts = append(cuts, len(data)*i/12+i)
	}
	for _, cut := range cuts {
		seq, serr := readAnalyze(context.Background(), bytes.NewReader(data[:cut]), Options{}, ReadOptions{Jobs: 1})
		par, perr := readAnalyze(context.Background(), bytes.NewReader(data[:cut]), Options{}, ReadOptions{Jobs: 2})
		if (serr == nil) != (perr == nil) || (serr != nil && serr.Error() != perr.Error()) {
			t.Errorf("cut at %d: errors %v and %v", cut, serr, perr)
			continue
		}
		if serr == nil {
			sameResult(t, fmt.Sprintf("cut at %d", cut), par, seq)
		}
	}
	for _, max := range []int64{MinMaxGeneration, 100 << 10} {
		ro := ReadOptions{MaxGeneration: max}
		ro.Jobs = 1
		seq, serr := readAnalyze(context.Background(), bytes.NewReader(data), Options{}, ro)
		ro.Jobs = 2
		par, perr := readAnalyze(context.Background(), bytes.NewReader(data), Options{}, ro)
		if (serr == nil) != (perr == nil) || (serr != nil && serr.Error() != perr.Error()) {
			t.Fatalf("limit %d: errors %v and %v", max, serr, perr)
		}
		if serr == nil {
			if seq.Summary.Truncated == nil {
				t.Errorf("limit %d: not cut", max)
			}
			sameResult(t, fmt.Sprintf("limit %d", max), par, seq)
		}
	}
}

// nextPiece reads the splitter's next piece whole: its bytes (without
// the rest of a tail), and the piece; io.EOF at the end.
func nextPiece(sp *splitter) ([]byte, *piece, error) {
	p, err := sp.start()
	if err != nil {
		return nil, nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sp.fill(context.Background(), p)
	}()
	var data []byte
	for blk := range p.blocks {
		data = append(data, blk...)
	}
	<-done
	return data, p, nil
}

// countGenerations splits data and counts its pieces.
func countGenerations(t *testing.T, data []byte) int {
	sp := newSplitter(data[:headerLen], bytes.NewReader(data[headerLen:]))
	n := 0
	for {
		_, p, err := nextPiece(sp)
		if err == io.EOF {
			return n
		}
		if err != nil || p.rest != nil {
			t.Fatalf("piece %d: %v (tail %v)", n, err, p.rest != nil)
		}
		n++
	}
}

// TestSplitPieces checks the splitter on the fixtures: the pieces, each
// without its header, put back together are the trace; each is a trace a
// reader reads to its end.
func TestSplitPieces(t *testing.T) {
	for _, name := range identityTraces(t)[:3] {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sp := newSplitter(data[:headerLen], bytes.NewReader(data[headerLen:]))
		joined := slices.Clone(data[:headerLen])
		for {
			pdata, p, err := nextPiece(sp)
			if err == io.EOF {
				break
			}
			if err != nil || p.rest != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if p.end != int64(len(joined)+len(pdata)-headerLen) {
				t.Errorf("%s: piece ends at %d, want %d", name, p.end, len(joined)+len(pdata)-headerLen)
			}
			joined = append(joined, pdata[headerLen:]...)
			rd, err := trace.NewReader(bytes.NewReader(pdata))
			if err != nil {
				t.Fatal(err)
			}
			for {
				if _, err := rd.ReadEvent(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("%s: piece at %d: %v", name, p.end, err)
				}
			}
		}
		if !bytes.Equal(joined, data) {
			t.Errorf("%s: pieces joined are %d bytes, the trace %d", name, len(joined), len(data))
		}
	}
}

// TestParallelEndlessGeneration: with several decoders, a first
// generation that never ends is cut at the limit as with one, and the
// splitter adds no copy of it (it streams the generation to its reader in
// blocks): the allocation bound of TestEndlessFirstGeneration holds. With
// the generation buffered whole before its reader started, this allocated
// 296 MB.
func TestParallelEndlessGeneration(t *testing.T) {
	in := io.MultiReader(strings.NewReader(header126), newEndlessGen(1, 1<<30))
	var err error
	alloc := labtest.Allocated(func() {
		_, err = readAnalyze(context.Background(), in, Options{}, ReadOptions{MaxGeneration: 32 << 20, Jobs: 2})
	})
	if !errors.Is(err, ErrGenerationTooLarge) || !strings.Contains(err.Error(), "nothing analysed: generation 1 is larger than the limit of 32 MB") {
		t.Fatalf("err = %v", err)
	}
	if alloc > 160<<20 && !raceEnabled {
		t.Errorf("allocated %d MB, want < 160", alloc>>20)
	}
	t.Logf("allocated %.0f MB", float64(alloc)/(1<<20))
}
