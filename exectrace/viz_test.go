package exectrace

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestVisuals: the timeline is built while the trace streams and agrees
// with the analysis's own figures: every P drawn, the Ps' held time (any
// state but idle) equal to their busy time, GC work where GC ran, and a
// latency histogram that counts every start.
func TestVisuals(t *testing.T) {
	for _, name := range []string{"gcpressure", "pingpong", "httpserver", "overprocs"} {
		t.Run(name, func(t *testing.T) {
			s := analyzeFile(t, name, Options{}).Summary
			v := s.Visuals()
			if v == nil || v.Timeline == nil || v.Latency == nil {
				t.Fatalf("no timeline or histogram: %+v", v)
			}
			tl := v.Timeline
			if tl.Buckets > vizBuckets || tl.Buckets < 1 {
				t.Errorf("%d buckets, want 1..%d", tl.Buckets, vizBuckets)
			}
			if len(tl.Procs) != s.Procs.GOMAXPROCS {
				t.Errorf("%d Ps drawn, GOMAXPROCS %d", len(tl.Procs), s.Procs.GOMAXPROCS)
			}
			held, gc := 0.0, 0.0
			for _, p := range tl.Procs {
				for si, st := range p.States {
					for i, pm := range st {
						if pm < 0 || pm > 1000 {
							t.Fatalf("P%d state %d bucket %d: %d‰", p.ID, si, i, pm)
						}
						if si != vsIdle {
							held += float64(pm) / 1000 * float64(tl.BucketNs)
						}
						if si == vsGC {
							gc += float64(pm) / 1000 * float64(tl.BucketNs)
						}
					}
				}
			}
			busy := s.Procs.BusyMean * float64(s.Trace.Duration)
			// Per mille rounding: at most half a per mille of a bucket each.
			slack := float64(len(tl.Procs)*tl.Buckets*nVizStates)*0.0005*float64(tl.BucketNs) + 0.01*busy
			if math.Abs(held-busy) > slack {
				t.Errorf("Ps held %v on the timeline, busy %v in the summary (slack %v)",
					time.Duration(held), time.Duration(busy), time.Duration(slack))
			}
			t.Logf("held %v, busy %v, gc %v", time.Duration(held), time.Duration(busy), time.Duration(gc))
			if name == "gcpressure" && gc == 0 {
				t.Error("no GC on the timeline of the gcpressure trace")
			}
			var n int64
			for _, sr := range v.Latency.Series {
				for _, c := range sr.Counts {
					n += c
				}
			}
			if uint64(n) != s.Latency.Overall.Count {
				t.Errorf("histogram counts %d starts, the summary %d", n, s.Latency.Overall.Count)
			}
		})
	}
}

// TestNoTimeline: without the timeline (what `schedoctor trace` reads when
// it writes no HTML) the summary and the findings are those with it, and
// the latency histogram is still there; only the timeline is left out.
func TestNoTimeline(t *testing.T) {
	for _, name := range []string{"gcpressure", "pingpong", "overprocs"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", name+".trace"))
			if err != nil {
				t.Fatal(err)
			}
			with := analyzeFile(t, name, Options{})
			without, err := readAnalyze(context.Background(), bytes.NewReader(data), Options{}, ReadOptions{NoTimeline: true})
			if err != nil {
				t.Fatal(err)
			}
			v := without.Summary.Visuals()
			if v == nil || v.Timeline != nil || v.Latency == nil {
				t.Fatalf("NoTimeline: want a latency histogram and no timeline, got %+v", v)
			}
			if !reflect.DeepEqual(v.Latency, with.Summary.Visuals().Latency) {
				t.Error("the latency histogram differs without the timeline")
			}
			ws, wos := *with.Summary, *without.Summary
			ws.Visual, wos.Visual = nil, nil
			if !reflect.DeepEqual(ws, wos) {
				t.Errorf("the summary differs without the timeline:\nwith    %+v\nwithout %+v", ws, wos)
			}
			if !reflect.DeepEqual(with.Findings, without.Findings) {
				t.Errorf("the findings differ without the timeline:\nwith    %+v\nwithout %+v", with.Findings, without.Findings)
			}
		})
	}
}
