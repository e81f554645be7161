package livetrace

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"golang.org/x/exp/trace"

	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/live"
)

// Label is what the goroutines inside one live.Do region did in a trace:
// how long they waited runnable for a P, and ran.
type Label struct {
	Labels  string        // "endpoint=/v1/pay"
	Starts  int           // runnable → running transitions
	Wait    time.Duration // total time runnable before running
	Running time.Duration
	Latency exectrace.Histogram
}

// Breakdown reads a trace and attributes scheduling waits and running time
// to the innermost live.Do region each goroutine was in; goroutines in no
// such region are left out. It returns the labels by total wait, most first,
// or none when the trace has no live.Do region.
func Breakdown(ctx context.Context, r io.Reader) (labels []*Label, err error) {
	rd, err := trace.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("reading the trace: %w", err)
	}
	// The reader's accessors panic on inconsistent tables: the input's
	// fault, reported as an error.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("reading the trace: %v", p)
		}
	}()
	type gstate struct {
		regions  []string
		runnable trace.Time // 0: not runnable
		running  trace.Time
	}
	gs := map[trace.GoID]*gstate{}
	by := map[string]*Label{}
	g := func(id trace.GoID) *gstate {
		s := gs[id]
		if s == nil {
			s = &gstate{}
			gs[id] = s
		}
		return s
	}
	label := func(s *gstate) *Label {
		for i := len(s.regions) - 1; i >= 0; i-- {
			if name, ok := strings.CutPrefix(s.regions[i], live.RegionPrefix); ok {
				l := by[name]
				if l == nil {
					l = &Label{Labels: name}
					by[name] = l
				}
				return l
			}
		}
		return nil
	}
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		ev, err := rd.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			// A snapshot cut short still attributes what was read.
			break
		}
		switch ev.Kind() {
		case trace.EventRegionBegin:
			s := g(ev.Goroutine())
			s.regions = append(s.regions, ev.Region().Type)
		case trace.EventRegionEnd:
			s := g(ev.Goroutine())
			typ := ev.Region().Type
			// Regions begun before the trace started end without a begin.
			if i := slices.Index(s.regions, typ); i >= 0 {
				s.regions = slices.Delete(s.regions, i, len(s.regions))
			}
		case trace.EventStateTransition:
			st := ev.StateTransition()
			if st.Resource.Kind != trace.ResourceGoroutine {
				continue
			}
			id := st.Resource.Goroutine()
			from, to := st.Goroutine()
			s := g(id)
			t := ev.Time()
			if from == trace.GoRunning && s.running != 0 {
				if l := label(s); l != nil {
					l.Running += time.Duration(t - s.running)
				}
				s.running = 0
			}
			switch to {
			case trace.GoRunnable:
				s.runnable = t
			case trace.GoRunning:
				if from == trace.GoRunnable && s.runnable != 0 {
					if l := label(s); l != nil {
						d := time.Duration(t - s.runnable)
						l.Starts++
						l.Wait += d
						l.Latency.Add(d)
					}
				}
				s.runnable = 0
				s.running = t
			case trace.GoNotExist:
				delete(gs, id)
			default:
				s.runnable = 0
			}
		}
	}
	for _, l := range by {
		labels = append(labels, l)
	}
	slices.SortFunc(labels, func(a, b *Label) int {
		if c := cmp.Compare(b.Wait, a.Wait); c != 0 {
			return c
		}
		return strings.Compare(a.Labels, b.Labels)
	})
	return labels, nil
}

// breakdownRules are the findings about waiting for, or holding, a P: the
// ones a per-label split makes actionable.
var breakdownRules = map[string]bool{"SD301": true, "SD302": true, "SD303": true, "SD308": true}

// annotate adds each label's share of the wait for a P to the findings
// about scheduling, as evidence and, for the top label, in the message.
func annotate(fs []finding.Finding, labels []*Label) {
	var total time.Duration
	for _, l := range labels {
		total += l.Wait
	}
	if total <= 0 {
		return
	}
	top := labels[0]
	share := 100 * float64(top.Wait) / float64(total)
	for i := range fs {
		f := &fs[i]
		if !breakdownRules[f.Rule] {
			continue
		}
		f.Note(finding.NoteLink, fmt.Sprintf("by label, %s waited longest for a P: %.0f%% of the labelled wait (%v in all, p99 %v over %d starts)",
			top.Labels, share, top.Wait.Round(time.Millisecond), top.Latency.Quantile(0.99).Round(time.Microsecond), top.Starts))
		for _, l := range labels[:min(len(labels), 3)] {
			f.Evidence = append(f.Evidence,
				finding.Evidence{Label: "wait for a P under " + l.Labels, Value: round2(float64(l.Wait) / 1e6), Unit: "ms"},
				finding.Evidence{Label: "p99 wait for a P under " + l.Labels, Value: round2(float64(l.Latency.Quantile(0.99)) / 1e6), Unit: "ms"},
				finding.Evidence{Label: "running under " + l.Labels, Value: round2(float64(l.Running) / 1e6), Unit: "ms"})
		}
	}
}

func round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }
