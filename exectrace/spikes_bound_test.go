package exectrace

import (
	"testing"
	"time"

	"golang.org/x/exp/trace"
)

// feedWindows runs n windows of 30 starts each through the spike analysis,
// of 50ms latency where loud says so and 1ms elsewhere, and returns the
// summary's spike rows; it fails when more than maxCandidates windows are
// ever kept.
func feedWindows(t *testing.T, n int, loud func(i int) bool) *Summary {
	t.Helper()
	a := newAnalyzer()
	a.gomaxprocs = 2
	t0 := trace.Time(1000)
	a.first, a.last = t0, t0
	a.spikeAdvance(t0)
	for i := range n {
		d := time.Millisecond
		if loud(i) {
			d = 50 * time.Millisecond
		}
		for range 30 {
			a.spk.cur.latency.Add(d)
			a.spk.cur.waitAll += d
		}
		a.last = t0 + trace.Time(time.Duration(i+1)*DefaultSpikeWindow)
		a.spikeAdvance(a.last)
		if len(a.spk.cands) > maxCandidates {
			t.Fatalf("%d windows kept, more than %d", len(a.spk.cands), maxCandidates)
		}
	}
	a.spikeFinish()
	s := &Summary{Procs: ProcSummary{GOMAXPROCS: 2}}
	a.spikeSummary(s)
	return s
}

// TestSpikeMemoryBound: however long the trace, the windows kept until
// the end and the spikes kept in full are capped, and the rest counted.
func TestSpikeMemoryBound(t *testing.T) {
	// every 5th window of 6,000 is loud: 1,200 candidates, all standing
	// out from the quiet baseline; 1,024 are kept, the rest dropped
	s := feedWindows(t, 6000, func(i int) bool { return i%5 == 0 })
	sw := s.SpikeWindows
	if sw.Windows != 6000 || len(s.Spikes) != maxSpikes || sw.Spikes != maxSpikes {
		t.Errorf("windows %d, spikes %d (%d): want 6000 windows, %d spikes kept", sw.Windows, len(s.Spikes), sw.Spikes, maxSpikes)
	}
	if want := (1200 - maxCandidates) + (maxCandidates - maxSpikes); sw.Dropped != want {
		t.Errorf("dropped %d, want %d (windows over the cap, then spikes over theirs)", sw.Dropped, want)
	}
	if len(s.SpikeCauses) != 1 || s.SpikeCauses[0].Spikes != maxCandidates || s.SpikeCauses[0].Kind != "mixed" {
		t.Errorf("causes %+v: want the %d spikes kept as windows, mixed (no maker)", s.SpikeCauses, maxCandidates)
	}
	if s.SpikeCauses[0].Every != 5*DefaultSpikeWindow {
		t.Errorf("every %v, want %v", s.SpikeCauses[0].Every, 5*DefaultSpikeWindow)
	}

	// every window loud: a latency problem, no spike; the candidates are
	// let go each time the cap is reached (twice, counted), the last 952
	// judged at the end
	s = feedWindows(t, 3000, func(int) bool { return true })
	if len(s.Spikes) != 0 || s.SpikeWindows.Dropped != 2*maxCandidates {
		t.Errorf("uniformly slow: spikes %v, dropped %d; want none, %d let go", s.Spikes, s.SpikeWindows.Dropped, 2*maxCandidates)
	}

	// adjacent loud windows merge: 3 loud in a row every 20
	s = feedWindows(t, 200, func(i int) bool { return i%20 < 3 })
	if len(s.Spikes) != 10 {
		t.Fatalf("%d spikes, want 10", len(s.Spikes))
	}
	for _, sp := range s.Spikes {
		if sp.Windows != 3 || sp.End-sp.Start != 3*DefaultSpikeWindow || sp.Starts != 90 {
			t.Errorf("spike %v: %d windows, %d starts; want 3 merged windows of 30 starts", sp, sp.Windows, sp.Starts)
		}
	}
}
