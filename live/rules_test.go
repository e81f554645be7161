package live

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// testBounds are the runtime's real bucket bounds for /sched/latencies.
func testBounds(t *testing.T) *reader {
	t.Helper()
	rd := newReader()
	rd.read(time.Now(), nil)
	if len(rd.latBounds) < 10 || len(rd.pauseBounds) < 10 {
		t.Fatalf("runtime gave %d latency and %d pause bounds", len(rd.latBounds), len(rd.pauseBounds))
	}
	return rd
}

// addAt adds n values of d seconds to cumulative counts.
func addAt(bounds []float64, counts []uint64, d float64, n uint64) []uint64 {
	c := append([]uint64(nil), counts...)
	for i := 0; i+1 < len(bounds); i++ {
		if d >= bounds[i] && d < bounds[i+1] {
			c[i] += n
			return c
		}
	}
	return c
}

func TestQuantileAndInterval(t *testing.T) {
	rd := testBounds(t)
	b := rd.latBounds
	zero := make([]uint64, len(b)-1)
	// 990 values at 100µs and 10 at 50ms: the p99 is the last 100µs value.
	c := addAt(b, zero, 100e-6, 990)
	c = addAt(b, c, 50e-3, 10)
	h := delta(b, c, zero)
	if h.n != 1000 {
		t.Fatalf("n = %d", h.n)
	}
	p99 := h.quantile(0.99)
	if p99.Seconds < 100e-6 || p99.Seconds > 125e-6 || p99.AtLeast {
		t.Errorf("p99 = %+v, want the upper bound of 100µs's bucket (≤ 25%% above)", p99)
	}
	if mx := h.quantile(1); mx.Seconds < 50e-3 || mx.Seconds > 62.5e-3 {
		t.Errorf("max = %+v, want 50ms's bucket", mx)
	}
	// With 1000 samples, the p99's 95% interval spans ranks 984–997:
	// from the 100µs bucket to the 50ms one. The sampling error is stated.
	lo, hi := h.interval(0.99)
	if lo > 100e-6 || hi.Seconds < 50e-3 {
		t.Errorf("interval = %g–%+v, want 100µs-bucket to 50ms-bucket", lo, hi)
	}
	// The open top bucket is reported as "at least" its lower bound.
	top := b[len(b)-2]
	c2 := addAt(b, zero, top*2, 5)
	if q := delta(b, c2, zero).quantile(0.99); !q.AtLeast || q.Seconds != top {
		t.Errorf("top-bucket quantile = %+v, want at least %g", q, top)
	}
	if !math.IsInf(b[len(b)-1], 1) {
		t.Errorf("last bound %g, want +Inf", b[len(b)-1])
	}
	// Differences: a reading minus an earlier one.
	c3 := addAt(b, c, 1e-3, 5)
	if d := delta(b, c3, c); d.n != 5 || d.quantile(0.5).Seconds < 1e-3 || d.quantile(0.5).Seconds > 1.25e-3 {
		t.Errorf("delta n=%d p50=%+v, want the 5 values at 1ms", d.n, d.quantile(0.5))
	}
}

// synth builds a window of readings one second apart.
type synth struct {
	rd *reader
	w  *ring
	o  Options
	t0 time.Time
}

func newSynth(t *testing.T, o Options) *synth {
	o.Interval = time.Second
	if o.Window == 0 {
		o.Window = 40 * time.Second
	}
	o, err := o.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	rd := testBounds(t)
	return &synth{rd: rd, w: newRing(o.ringSize()), o: o, t0: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (s *synth) zero() sample {
	return sample{gomaxprocs: 2, latency: make([]uint64, len(s.rd.latBounds)-1), gcPauses: make([]uint64, len(s.rd.pauseBounds)-1),
		gcStopping: make([]uint64, len(s.rd.pauseBounds)-1)}
}

// fill adds n readings made by f(i, previous).
func (s *synth) fill(n int, f func(i int, prev sample) sample) {
	prev := s.zero()
	for i := range n {
		x := f(i, prev)
		x.at = s.t0.Add(time.Duration(i) * time.Second)
		if x.latency == nil {
			x.latency = prev.latency
		}
		if x.gcPauses == nil {
			x.gcPauses = prev.gcPauses
		}
		s.w.add(x)
		prev = x
	}
}

func (s *synth) eval() (State, []finding.Finding, map[string]string) {
	var st State
	figures(&st, s.w, s.o, s.rd)
	fs, conds := evaluate(&st, s.w, s.o)
	return st, fs, conds
}

func rules(fs []finding.Finding) string {
	var r []string
	for _, f := range fs {
		r = append(r, f.Rule)
	}
	return strings.Join(r, ",")
}

func TestGrowth(t *testing.T) {
	cases := []struct {
		name    string
		waiting func(i int) int64
		threads func(i int) int64
		want    string
	}{
		// A leak: +5 waiting goroutines a second on top of load bursts.
		{"leak", func(i int) int64 { return 200 + int64(5*i) + int64(i%3)*50 }, nil, "SD701"},
		// Close negatives.
		{"steady", func(i int) int64 { return 5000 }, nil, ""},
		{"bursts that drain", func(i int) int64 { return 200 + int64(i%5)*400 }, nil, ""},
		{"step to a plateau", func(i int) int64 {
			if i < 15 {
				return 200
			}
			return 900
		}, nil, ""},
		{"slow rise below the minimum", func(i int) int64 { return 200 + int64(i) }, nil, ""},
		{"rise below a quarter of a big base", func(i int) int64 { return 10000 + int64(10*i) }, nil, ""},
		{"falling", func(i int) int64 { return 2000 - int64(20*i) }, nil, ""},
		{"threads grow", func(int) int64 { return 100 }, func(i int) int64 { return 10 + int64(2*i) }, "SD703"},
		{"threads step once", func(int) int64 { return 100 }, func(i int) int64 { return 10 + 100*int64(min(i/20, 1)) }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSynth(t, Options{})
			s.fill(41, func(i int, prev sample) sample {
				x := s.zero()
				x.waiting = c.waiting(i)
				x.threads = 12
				if c.threads != nil {
					x.threads = c.threads(i)
				}
				return x
			})
			_, fs, conds := s.eval()
			if got := rules(fs); got != c.want {
				t.Fatalf("rules %q, want %q: %v", got, c.want, fs)
			}
			for _, f := range fs {
				if !strings.Contains(f.Text(), " because ") {
					t.Errorf("message %q is not \"N because X\"", f.Text())
				}
				if c.want == "SD701" && conds["goroutines"] == "" || c.want == "SD703" && conds["threads"] == "" {
					t.Errorf("no trigger condition for %s: %v", c.want, conds)
				}
			}
		})
	}
	// Not judged before the window is half full, however steep.
	s := newSynth(t, Options{})
	s.fill(15, func(i int, prev sample) sample { x := s.zero(); x.waiting = 100 + int64(100*i); return x })
	if _, fs, _ := s.eval(); len(fs) != 0 {
		t.Errorf("judged a window 14s of 40s long: %v", fs)
	}
}

func TestLatencyRule(t *testing.T) {
	cases := []struct {
		name     string
		fast     uint64 // sampled transitions per second at 50µs
		slow     uint64 // and at 40ms
		runnable int64
		want     string
	}{
		{"spike", 300, 20, 40, "SD702"},
		// Close negatives: a high p99 from too few samples, a tail thinner
		// than 1%, and a p99 whose interval reaches below the threshold.
		{"few samples", 5, 3, 40, ""},
		{"thin tail", 3000, 2, 1, ""},
		{"interval straddles", 1000, 10, 1, ""},
		{"quiet", 1000, 0, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSynth(t, Options{})
			b := s.rd.latBounds
			s.fill(12, func(i int, prev sample) sample {
				x := s.zero()
				x.runnable = c.runnable
				x.latency = addAt(b, addAt(b, prev.latency, 50e-6, c.fast), 40e-3, c.slow)
				return x
			})
			st, fs, conds := s.eval()
			if got := rules(fs); got != c.want {
				t.Fatalf("rules %q, want %q; latency %+v", got, c.want, st.Latency)
			}
			if c.want != "" {
				if conds["latency"] == "" {
					t.Errorf("no latency trigger: %v", conds)
				}
				if m := fs[0].Text(); !strings.Contains(m, "because goroutines queued for the Ps: 20.0 runnable per P") {
					t.Errorf("message %q does not give the measured cause", m)
				}
			} else if conds["latency"] != "" {
				t.Errorf("latency trigger without SD702: %v", conds)
			}
		})
	}
}

func TestRunnableTrigger(t *testing.T) {
	for _, c := range []struct {
		runnable int64
		want     bool
	}{{21, true}, {20, false}, {3, false}} {
		s := newSynth(t, Options{})
		s.fill(3, func(i int, prev sample) sample { x := s.zero(); x.runnable = c.runnable; return x })
		if _, _, conds := s.eval(); (conds["runnable"] != "") != c.want {
			t.Errorf("runnable %d on 2 Ps: trigger %q, want %v", c.runnable, conds["runnable"], c.want)
		}
	}
}

func TestGCRule(t *testing.T) {
	cases := []struct {
		name   string
		cycles uint64 // per reading
		forced uint64
		gc     float64 // GC cpu-seconds per reading
		used   float64 // non-idle cpu-seconds per reading
		pause  float64
		stop   float64 // share of each pause spent stopping
		want   string
		why    string
	}{
		{"gc cpu high", 1, 0, 0.5, 1.5, 100e-6, 0.5, "SD704", "the program allocates"},
		{"forced", 1, 1, 0.5, 1.5, 100e-6, 0.5, "SD704", "were forced"},
		{"long pauses, long stopping", 1, 0, 0.01, 1.5, 30e-3, 0.9, "SD704", "stopping the world took most of it"},
		{"long pauses, short stopping", 1, 0, 0.01, 1.5, 30e-3, 0.01, "SD704", "the pauses' own work was long"},
		{"healthy", 1, 0, 0.05, 1.5, 100e-6, 0.5, "", ""},
		{"short pauses", 1, 0, 0.05, 1.5, 5e-3, 0.9, "", ""},
		{"no gc at all", 0, 0, 0, 1.5, 0, 0, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSynth(t, Options{})
			s.fill(20, func(i int, prev sample) sample {
				x := s.zero()
				x.gcCycles = prev.gcCycles + c.cycles
				x.gcForced = prev.gcForced + c.forced
				x.gcCPU = prev.gcCPU + c.gc
				x.totalCPU = prev.totalCPU + 2
				x.idleCPU = prev.idleCPU + 2 - c.used
				x.allocBytes = prev.allocBytes + 64<<20
				x.gcPauses = prev.gcPauses
				x.gcStopping = prev.gcStopping
				if c.cycles > 0 {
					x.gcPauses = addAt(s.rd.pauseBounds, prev.gcPauses, c.pause, 2)
					// Stopping takes most of each pause.
					x.gcStopping = addAt(s.rd.pauseBounds, prev.gcStopping, c.pause*c.stop, 2)
				}
				return x
			})
			_, fs, _ := s.eval()
			if got := rules(fs); got != c.want {
				t.Fatalf("rules %q, want %q: %v", got, c.want, fs)
			}
			if c.want != "" && !strings.Contains(fs[0].Text(), c.why) {
				t.Errorf("message %q, want %q", fs[0].Text(), c.why)
			}
		})
	}
}

// The ring keeps the last readings in order and reuses the overwritten
// reading's histogram slices.
func TestRingWraps(t *testing.T) {
	o, _ := Options{Interval: 10 * time.Millisecond, Window: 40 * time.Millisecond}.withDefaults()
	w := newRing(o.ringSize())
	rd := newReader()
	t0 := time.Now()
	for i := range 12 {
		v := w.victim()
		if (v != nil) != (i >= 5) {
			t.Fatalf("reading %d: victim %v with %d of 5 readings", i, v != nil, w.len())
		}
		s := rd.read(t0.Add(time.Duration(i)*10*time.Millisecond), v)
		if v != nil && len(v.latency) > 0 && &s.latency[0] != &v.latency[0] {
			t.Errorf("reading %d allocated new histogram counts", i)
		}
		w.add(s)
	}
	if w.len() != 5 {
		t.Fatalf("len %d, want 5", w.len())
	}
	for i := range 5 {
		if want := t0.Add(time.Duration(7+i) * 10 * time.Millisecond); !w.at(i).at.Equal(want) {
			t.Errorf("at(%d) = %v, want reading %d", i, w.at(i).at.Sub(t0), 7+i)
		}
	}
	if old := w.since(0.025); old == nil || !old.at.Equal(t0.Add(90*time.Millisecond)) {
		t.Errorf("since(25ms) = %v, want reading 9", old)
	}
	var st State
	figures(&st, w, o, rd)
	if st.Readings != 5 || st.Window < 0.039 || st.Window > 0.041 {
		t.Errorf("figures over %d readings, %gs", st.Readings, st.Window)
	}
}
