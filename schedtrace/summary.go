package schedtrace

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/textlayout"
	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// maxPoints is how many points a series keeps in the summary: the ticks are
// grouped into at most this many buckets and each keeps its maximum, so a
// spike survives the downsampling.
const maxPoints = 60

// Summary is the figures of one input: what was read, and the time series
// of the analysed run, downsampled.
type Summary struct {
	File  string `json:"file"`
	Stats Stats  `json:"stats"`
	// Runs is the number of processes in the input (time restarted); only
	// the longest run is analysed.
	Runs       int    `json:"runs"`
	Ticks      int    `json:"ticks"` // analysed ticks (the 0ms start-up snapshot left out)
	FirstLine  int    `json:"first_line"`
	LastLine   int    `json:"last_line"`
	DurationMs int64  `json:"duration_ms"`
	IntervalMs int64  `json:"interval_ms"` // median time between ticks
	GOMAXPROCS [2]int `json:"gomaxprocs"`  // min and max
	Detail     bool   `json:"scheddetail"`
	// BucketTicks is how many ticks each point of a series stands for.
	BucketTicks int      `json:"bucket_ticks"`
	Series      []Series `json:"series"`
	// Goroutines counts the goroutines of the last complete scheddetail
	// tick by status and wait reason.
	Goroutines *GCounts `json:"goroutines,omitempty"`
	Notes      []string `json:"notes,omitempty"`

	dropped bool // snapshots were dropped to bound memory (Hints)
}

// Hints asks for a higher snapshot limit when the oldest were dropped.
func (s *Summary) Hints() []finding.Note {
	if !s.dropped {
		return nil
	}
	return []finding.Note{finding.HintNote(finding.HintTickLimit, "keep more snapshots to analyse the whole input")}
}

// Series is one figure over time.
type Series struct {
	Name   string    `json:"name"`
	Min    float64   `json:"min"`
	Median float64   `json:"median"`
	Max    float64   `json:"max"`
	Last   float64   `json:"last"`
	Points []float64 `json:"points"` // the maximum of each bucket
}

func summarize(t *Trace, ticks []Tick, rate []float64) *Summary {
	s := &Summary{File: t.Name, Stats: t.Stats, Ticks: len(ticks)}
	if len(ticks) == 0 {
		return s
	}
	s.FirstLine, s.LastLine = ticks[0].Line, ticks[len(ticks)-1].Line
	s.DurationMs = ticks[len(ticks)-1].Ms - ticks[0].Ms
	s.IntervalMs = medianInterval(ticks)
	s.GOMAXPROCS = [2]int{ticks[0].GOMAXPROCS, ticks[0].GOMAXPROCS}
	s.BucketTicks = (len(ticks) + maxPoints - 1) / maxPoints
	for i := range ticks {
		tk := &ticks[i]
		s.GOMAXPROCS[0] = min(s.GOMAXPROCS[0], tk.GOMAXPROCS)
		s.GOMAXPROCS[1] = max(s.GOMAXPROCS[1], tk.GOMAXPROCS)
		if tk.Detail != nil {
			s.Detail = true
			if tk.Detail.Gs.Total > 0 {
				s.Goroutines = &tk.Detail.Gs
			}
		}
	}
	pick := func(f func(*Tick) (float64, bool)) []float64 {
		vs := make([]float64, len(ticks))
		for i := range ticks {
			v, ok := f(&ticks[i])
			if !ok {
				v = -1
			}
			vs[i] = v
		}
		return vs
	}
	add := func(name string, vs []float64) {
		if sr, ok := series(name, vs, s.BucketTicks); ok {
			s.Series = append(s.Series, sr)
		}
	}
	add("queued goroutines", pick(func(t *Tick) (float64, bool) { q, ok := t.Queued(); return float64(q), ok }))
	add("global runqueue", pick(func(t *Tick) (float64, bool) { return float64(t.RunQueue), true }))
	add("idle Ps", pick(func(t *Tick) (float64, bool) { return float64(t.IdleProcs), true }))
	add("spinning threads", pick(func(t *Tick) (float64, bool) { return float64(t.Spinning), t.Spinning != Absent }))
	add("threads", pick(func(t *Tick) (float64, bool) { return float64(t.Threads), true }))
	add("idle threads", pick(func(t *Tick) (float64, bool) { return float64(t.IdleThreads), t.IdleThreads != Absent }))
	rs := make([]float64, len(rate))
	for i, r := range rate {
		rs[i] = r
		if r >= 0 {
			rs[i] = round1(r)
		}
	}
	add("starts/s per P", rs)
	if s.Goroutines != nil {
		g := *s.Goroutines
		s.Goroutines = &GCounts{Total: g.Total, ByStatus: maps.Clone(g.ByStatus), ByWaitReason: maps.Clone(g.ByWaitReason), RunnableFrom: maps.Clone(g.RunnableFrom)}
	}
	return s
}

// series summarises vs, where -1 marks an unknown value; ok is false when
// every value is unknown.
func series(name string, vs []float64, bucket int) (Series, bool) {
	var known []float64
	for _, v := range vs {
		if v >= 0 {
			known = append(known, v)
		}
	}
	if len(known) == 0 {
		return Series{}, false
	}
	sr := Series{Name: name, Min: slices.Min(known), Median: median(known), Max: slices.Max(known), Last: known[len(known)-1]}
	for i := 0; i < len(vs); i += bucket {
		m := -1.0
		for _, v := range vs[i:min(i+bucket, len(vs))] {
			m = max(m, v)
		}
		sr.Points = append(sr.Points, m)
	}
	return sr, true
}

var bars = []rune("▁▂▃▄▅▆▇█")

// sparkline draws points scaled to the series' maximum; unknown points are
// blank.
func sparkline(points []float64, mx float64) string {
	var b strings.Builder
	for _, v := range points {
		switch {
		case v < 0:
			b.WriteByte(' ')
		case mx <= 0:
			b.WriteRune(bars[0])
		default:
			b.WriteRune(bars[min(int(v/mx*float64(len(bars)-1)+0.5), len(bars)-1)])
		}
	}
	return b.String()
}

// WriteText prints what was read, a table of the series with sparklines,
// and the goroutine counts of scheddetail, in 80 columns.
func (s *Summary) WriteText(w io.Writer) error { return s.WriteTextWidth(w, 80) }

// WriteTextWidth prints the summary within width columns (0: however
// wide): sentences are wrapped and the sparklines merged down to the room
// left (each mark then the max of more ticks, as the header says). Text
// from the input (the file name, notes, wait reasons) is escaped.
func (s *Summary) WriteTextWidth(w io.Writer, width int) error {
	var bw strings.Builder
	para := func(first, rest, text string) {
		bw.WriteString(textlayout.Wrap(first, rest, textsafe.String(text), width))
	}
	procs := fmt.Sprint(s.GOMAXPROCS[0])
	if s.GOMAXPROCS[1] != s.GOMAXPROCS[0] {
		procs = fmt.Sprintf("%d-%d", s.GOMAXPROCS[0], s.GOMAXPROCS[1])
	}
	mode := ""
	if s.Detail {
		mode = ", scheddetail"
	}
	para("", "  ", fmt.Sprintf("schedtrace %s: %d ticks over %dms (one every ~%dms), gomaxprocs %s%s",
		s.File, s.Ticks, s.DurationMs, s.IntervalMs, procs, mode))
	st := s.Stats
	lines := fmt.Sprintf("lines: %d read, %d SCHED", st.Lines, st.SchedLines)
	if st.DetailLines > 0 {
		lines += fmt.Sprintf(", %d detail", st.DetailLines)
	}
	lines += fmt.Sprintf(", %d other skipped", st.Skipped)
	for _, c := range []struct {
		n    int
		what string
	}{{st.Truncated, "truncated SCHED"}, {st.PartialP, "without per-P queues"}, {st.Overlong, fmt.Sprintf("over %d bytes skipped", MaxLine)}} {
		if c.n > 0 {
			lines += fmt.Sprintf(", %d %s", c.n, c.what)
		}
	}
	para("", "  ", lines)
	for _, n := range s.Notes {
		para("note: ", "  ", n)
	}
	if len(s.Series) > 0 {
		// 18 + 4×10 + 2 columns before the sparkline.
		room, merge := 0, 1
		if width > 0 {
			room = max(width-60, 8)
			for _, sr := range s.Series {
				merge = max(merge, (len(sr.Points)+room-1)/room)
			}
		}
		over := fmt.Sprintf("over time (max per %d ticks)", s.BucketTicks*merge)
		if width > 0 && 60+len(over) > width {
			over = fmt.Sprintf("max per %d ticks", s.BucketTicks*merge)
		}
		fmt.Fprintf(&bw, "\n%-18s %9s %9s %9s %9s  %s\n", "", "min", "median", "max", "last", over)
		for _, sr := range s.Series {
			fmt.Fprintf(&bw, "%-18s %9s %9s %9s %9s  %s\n", sr.Name, num(sr.Min), num(sr.Median), num(sr.Max), num(sr.Last), sparkline(mergePoints(sr.Points, merge), sr.Max))
		}
	}
	if g := s.Goroutines; g != nil {
		bw.WriteString("\n")
		para("", "  ", fmt.Sprintf("goroutines at the last detailed tick: %d (%s)", g.Total, counts(g.ByStatus)))
		if len(g.ByWaitReason) > 0 {
			para("waiting on: ", "  ", counts(g.ByWaitReason))
		}
		if len(g.RunnableFrom) > 0 {
			para("runnable, woken from: ", "  ", counts(g.RunnableFrom))
		}
	}
	_, err := io.WriteString(w, bw.String())
	return err
}

// mergePoints takes the max of every k points (a negative point, a gap,
// counts only when the whole group is gaps), for a sparkline of fewer
// marks.
func mergePoints(p []float64, k int) []float64 {
	if k <= 1 {
		return p
	}
	out := make([]float64, 0, (len(p)+k-1)/k)
	for i := 0; i < len(p); i += k {
		m := -1.0
		for _, v := range p[i:min(i+k, len(p))] {
			m = max(m, v)
		}
		out = append(out, m)
	}
	return out
}

// counts prints a map as "k n, k n", largest first.
func counts(m map[string]int) string {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func num(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprint(int64(v))
	}
	return fmt.Sprintf("%.1f", v)
}
