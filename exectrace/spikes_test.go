package exectrace

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// The spikes fixtures are the lab's spikes program (scripts/gen-trace-
// fixtures.sh), recorded with -work 20us so that a burst lasts less than a
// window on 2 Ps (-work 40us: 2,000 goroutines of 40µs are 40ms on 2 Ps,
// their p99 wait 40ms); the lines are those of its source when recorded.
const (
	spikesGo      = "internal/lab/spikes/main.go:77"  // go func() of the fan-out
	spikesClose   = "internal/lab/spikes/main.go:164" // close(g.ch)
	spikesMethod  = "internal/lab/spikes/main.go:106" // (*gate).release
	spikesClosure = "internal/lab/spikes/main.go:161" // close in a closure
	spikesCond    = "internal/lab/spikes/main.go:154" // cond.Broadcast()
	spikesWG      = "internal/lab/spikes/main.go:156" // g.wg.Done()
)

func at(l finding.Location) string { return filepath.ToSlash(l.File) + ":" + itoa(l.Line) }

func findingsOf(fs []finding.Finding, rule string) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

// TestSpikeWindows: the bursts every 500ms are spikes at their times,
// caused by the go statement, with their figures.
func TestSpikeWindows(t *testing.T) {
	res := analyzeFile(t, "spikes", Options{})
	s := res.Summary
	sw := s.SpikeWindows
	if sw.Window != DefaultSpikeWindow || sw.P99 != DefaultSpikeP99 || sw.Runnable != DefaultSpikeRunnable || sw.Windows < 11 {
		t.Errorf("spike windows = %+v, want the defaults over 11 windows or more", sw)
	}
	var created []Spike
	for _, sp := range s.Spikes {
		if sp.End <= sp.Start || sp.Latency.P99 < DefaultSpikeP99 || len(sp.Runnable) == 0 {
			t.Errorf("spike %v: incomplete: %+v", sp, sp)
		}
		if sp.Cause.Kind == "created" {
			created = append(created, sp)
			if !strings.HasSuffix(at(sp.Cause.Location), spikesGo) || sp.Cause.Function != "main.fanOut.func1" {
				t.Errorf("spike %v caused at %v (%s), want %s", sp, sp.Cause.Location, sp.Cause.Function, spikesGo)
			}
			if len(sp.Created) == 0 || sp.Created[0].Count < 1000 || sp.RunnablePeak < 1000 {
				t.Errorf("spike %v: created %+v, runnable peak %d: want the burst of 2,000", sp, sp.Created, sp.RunnablePeak)
			}
		}
	}
	// one spike per burst, each starting in the window of its burst
	if len(created) != 3 {
		t.Fatalf("%d spikes caused by the fan-out, want 3: %+v", len(created), s.Spikes)
	}
	for i, sp := range created {
		want := time.Duration(i) * 500 * time.Millisecond
		if sp.Start < want-DefaultSpikeWindow || sp.Start > want+DefaultSpikeWindow {
			t.Errorf("spike %d at %v, want near %v", i, sp, want)
		}
	}
	var cause *SpikeCause
	for i := range s.SpikeCauses {
		if s.SpikeCauses[i].Kind == "created" {
			cause = &s.SpikeCauses[i]
		}
	}
	if cause == nil || cause.Spikes != 3 || cause.Every < 400*time.Millisecond || cause.Every > 600*time.Millisecond || cause.Burst < 1000 || cause.P99 < spikeWarnP99 {
		t.Errorf("cause = %+v, want 3 spikes every ~500ms of a burst of ~2,000 at p99 ≥ %v", cause, spikeWarnP99)
	}
	fs := findingsOf(res.Findings, "SD315")
	if len(fs) == 0 || fs[0].Severity != finding.Warning || !strings.HasSuffix(at(fs[0].Locations[0]), spikesGo) {
		t.Fatalf("SD315 = %+v, want a warning at %s first", fs, spikesGo)
	}
	if ev := evidence(fs[0], "spikes"); ev != 3 {
		t.Errorf("SD315 evidence spikes = %v, want 3", ev)
	}
	if !strings.Contains(fs[0].What, "created at spikes/main.go:77") || len(fs[0].What) > finding.MaxHeadline {
		t.Errorf("SD315 headline = %q", fs[0].What)
	}
}

func evidence(f finding.Finding, label string) float64 {
	for _, e := range f.Evidence {
		if e.Label == label {
			return e.Value
		}
	}
	return -1
}

// TestHeavyUnblocker: the close that wakes 1,000 goroutines 20 times a
// second is named, at warning, with its burst and its wakees' latency.
func TestHeavyUnblocker(t *testing.T) {
	res := analyzeFile(t, "spikes", Options{})
	w := res.Summary.Wakers[0]
	if !strings.HasSuffix(at(w.Location), spikesClose) || w.How != howNames[howChanRecv] {
		t.Fatalf("top waker %+v, want the close at %s", w, spikesClose)
	}
	if w.MaxBurst != 1000 || w.HeavyMean < 500 || w.Heavy < 15 || w.HeavyPerS < 15 || w.Latency.P99 < heavyWarnP99 {
		t.Errorf("waker = %+v, want ~20 bursts a second of 1,000 with a p99 ≥ %v", w, heavyWarnP99)
	}
	fs := findingsOf(res.Findings, "SD316")
	if len(fs) != 1 || fs[0].Severity != finding.Warning || !strings.HasSuffix(at(fs[0].Locations[0]), spikesClose) {
		t.Fatalf("SD316 = %+v, want one warning at %s", fs, spikesClose)
	}
	if !strings.Contains(fs[0].What, "goroutines at once (up to 1000), 18 times a second") {
		t.Errorf("SD316 headline = %q", fs[0].What)
	}
	for _, f := range res.Findings {
		for _, l := range f.Locations {
			if (f.Rule == "SD315" || f.Rule == "SD316") && !isUserFunc(l.Function) {
				t.Errorf("%s points at %v: not the user's code", f.Rule, l)
			}
		}
	}
}

// TestWakerVariants: the waker is found whatever the code that wakes: a
// method, a closure, a sync.Cond's Broadcast, a WaitGroup's release.
func TestWakerVariants(t *testing.T) {
	for name, want := range map[string]struct{ line, how string }{
		"spikes-method":  {spikesMethod, howNames[howChanRecv]},
		"spikes-closure": {spikesClosure, howNames[howChanRecv]},
		"spikes-cond":    {spikesCond, howNames[howCond]},
		"spikes-wg":      {spikesWG, howNames[howWaitGroup]},
	} {
		t.Run(name, func(t *testing.T) {
			res := analyzeFile(t, name, Options{})
			w := res.Summary.Wakers[0]
			if !strings.HasSuffix(at(w.Location), want.line) || w.How != want.how || w.MaxBurst != 200 {
				t.Errorf("top waker %+v, want %s (%s) waking 200", w, want.line, want.how)
			}
			fs := findingsOf(res.Findings, "SD316")
			if len(fs) != 1 || !strings.HasSuffix(at(fs[0].Locations[0]), want.line) {
				t.Errorf("SD316 = %+v, want one at %s", fs, want.line)
			}
			if len(res.Summary.Spikes) != 0 {
				t.Errorf("spikes %+v in a trace of equal broadcasts", res.Summary.Spikes)
			}
		})
	}
}

// TestWakerNegatives: a goroutine woken often is no burst (the ping-pong's
// 10,000 wake-ups), nor are bursts small for the Ps: 40 goroutines on 2
// Ps, 100 on 16; and the steady twin has neither spikes nor heavy bursts.
func TestWakerNegatives(t *testing.T) {
	for _, name := range []string{"pingpong", "spikes-small", "spikes-small16", "spikes-fixed"} {
		t.Run(name, func(t *testing.T) {
			res := analyzeFile(t, name, Options{})
			for _, f := range res.Findings {
				if f.Rule == "SD315" || f.Rule == "SD316" {
					t.Errorf("unexpected %s: %s", f.Rule, f.Text())
				}
			}
			for _, w := range res.Summary.Wakers {
				if w.Heavy > 0 {
					t.Errorf("heavy bursts %+v", w)
				}
			}
			if len(res.Summary.Spikes) != 0 {
				t.Errorf("spikes %+v", res.Summary.Spikes)
			}
		})
	}
	res := analyzeFile(t, "pingpong", Options{})
	if w := res.Summary.Wakers[0]; w.Wakes < 1000 || w.MaxBurst != 1 {
		t.Errorf("ping-pong's waker %+v: want many wake-ups, bursts of 1", w)
	}
	// a pool's producer hands work to 2,000 workers one after the other in
	// one running stretch, each starting as soon as woken: 84,884
	// wake-ups, never more than 2 runnable at once (the corpus's ants,
	// which the stretch alone called a burst of 1,961)
	data, err := os.ReadFile(filepath.Join("..", "internal", "corpus", "testdata", "ants-pool-saturated", "trace.out"))
	if err != nil {
		t.Fatal(err)
	}
	ants, err := readAnalyze(t.Context(), bytes.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w := ants.Summary.Wakers[0]; w.Wakes < 10000 || w.Heavy != 0 || w.MaxBurst > 4 || len(findingsOf(ants.Findings, "SD316")) != 0 {
		t.Errorf("ants' top waker %+v: want many wake-ups, a few runnable at once, no SD316", w)
	}
	res = analyzeFile(t, "spikes-small16", Options{})
	if w := res.Summary.Wakers[0]; w.MaxBurst != 100 || w.HeavyMark != heavyBurstProcs*16 {
		t.Errorf("waker %+v: want bursts of 100 under a mark of %d", w, heavyBurstProcs*16)
	}
}

// TestSpikeOptions: the window and the thresholds are the caller's.
func TestSpikeOptions(t *testing.T) {
	half := readSpikes(t, "spikes", SpikeOptions{Window: 50 * time.Millisecond})
	if half.SpikeWindows.Window != 50*time.Millisecond || half.SpikeWindows.Windows < 22 {
		t.Errorf("windows = %+v, want 50ms ones, 22 or more", half.SpikeWindows)
	}
	n := 0
	for _, sp := range half.Spikes {
		if sp.Cause.Kind == "created" {
			n++
			if sp.End-sp.Start < 50*time.Millisecond {
				t.Errorf("spike %v narrower than a window", sp)
			}
		}
	}
	if n != 3 {
		t.Errorf("%d spikes of the fan-out in 50ms windows, want 3: %+v", n, half.Spikes)
	}
	if high := readSpikes(t, "spikes", SpikeOptions{P99: time.Second, Runnable: 1e4}); len(high.Spikes) != 0 {
		t.Errorf("thresholds no window reaches gave spikes %+v", high.Spikes)
	}
	if narrow := readSpikes(t, "spikes", SpikeOptions{Window: time.Millisecond}); narrow.SpikeWindows.Window != MinSpikeWindow {
		t.Errorf("window %v, want it raised to %v", narrow.SpikeWindows.Window, MinSpikeWindow)
	}
}

func readSpikes(t *testing.T, name string, o SpikeOptions) *Summary {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name+".trace"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := readAnalyze(t.Context(), bytes.NewReader(data), Options{}, ReadOptions{Spikes: o})
	if err != nil {
		t.Fatal(err)
	}
	return res.Summary
}

// TestSpikesShortTrace: a trace of fewer windows than spikeMinWindows has
// no baseline for a window to stand out from.
func TestSpikesShortTrace(t *testing.T) {
	s := analyzeFile(t, "gcpressure", Options{}).Summary
	if s.SpikeWindows.Windows >= spikeMinWindows || len(s.Spikes) != 0 {
		t.Errorf("spike windows %+v, spikes %v: want none in %v", s.SpikeWindows, s.Spikes, s.Trace.Duration)
	}
}

// TestRealFanOut: a real program. nats-server (commit 1787eee0, built
// locally, not committed) with 300 subscriber connections on one subject
// and a publisher sending 20 messages a second; its own /debug/pprof/trace
// for 3s (testdata/nats-fanout.trace, on this crowded 2-CPU machine). Each
// message makes the publisher's read loop signal the writer goroutine of
// every subscriber (flushSignal, client.go:2104: a sync.Cond Signal per
// client), 300 runnable at once: the heavy unblocker, and the cause of
// the trace's spikes.
func TestRealFanOut(t *testing.T) {
	const flush = "server/client.go:2104"
	res := analyzeFile(t, "nats-fanout", Options{})
	w := res.Summary.Wakers[0]
	if !strings.HasSuffix(at(w.Location), flush) || w.Location.Function != "github.com/nats-io/nats-server/v2/server.(*client).flushSignal" ||
		w.How != howNames[howCond] || w.MaxBurst != 300 || w.Heavy < 60 {
		t.Errorf("top waker %+v, want flushSignal's Signal, 300 at once, 20 times a second", w)
	}
	fs := findingsOf(res.Findings, "SD316")
	if len(fs) != 1 || fs[0].Severity != finding.Warning || !strings.HasSuffix(at(fs[0].Locations[0]), flush) {
		t.Errorf("SD316 = %+v, want a warning at %s", fs, flush)
	}
	for _, sp := range res.Summary.Spikes {
		if sp.Cause.Kind != "woken" || !strings.HasSuffix(at(sp.Cause.Location), flush) {
			t.Errorf("spike %v caused by %+v, want the flush signal", sp, sp.Cause)
		}
	}
	if len(res.Summary.Spikes) == 0 || len(findingsOf(res.Findings, "SD315")) != 1 {
		t.Errorf("spikes %v, SD315 %v: want the flush signal's", res.Summary.Spikes, findingsOf(res.Findings, "SD315"))
	}
}

// TestRealPubSub: cskr/pubsub (commit b6f7af9f, not committed) with 300
// subscribers on one topic, each computing 50µs (-20hz) or 200µs (-burst)
// per message, recorded on this crowded 2-CPU machine (docs/ACCURACY.md).
// registry.send (pubsub.go:202) sends the message to every subscriber's
// channel in one loop: 300 runnable at once. At 20 messages a second the
// load is steady: SD316 and no spike. At 2 a second each message is a
// spike, all five in the trace caused by that send, the first one too:
// its subscribers already waited when the trace began, so their wait has
// no recorded reason, and keyed by operation that burst was another waker
// of the same line ("a wake-up"), left out of SD315 (4 spikes, up to
// 229.94ms instead of 279.86ms) and shown as a second row.
func TestRealPubSub(t *testing.T) {
	const send = "pubsub/pubsub.go:202"
	const fn = "github.com/cskr/pubsub/v2.(*registry[...]).send"
	for _, name := range []string{"pubsub-burst", "pubsub-20hz"} {
		res := analyzeFile(t, name, Options{})
		rows := 0
		for _, w := range res.Summary.Wakers {
			if strings.HasSuffix(at(w.Location), send) {
				rows++
				if w.How != howNames[howChanRecv] || w.MaxBurst != 300 {
					t.Errorf("%s: waker %+v, want the send loop, a channel close or send, 300 at once", name, w)
				}
			}
		}
		if rows != 1 {
			t.Errorf("%s: %d waker rows at %s, want 1", name, rows, send)
		}
		fs := findingsOf(res.Findings, "SD316")
		if len(fs) != 1 || fs[0].Severity != finding.Warning || !strings.HasSuffix(at(fs[0].Locations[0]), send) || fs[0].Locations[0].Function != fn {
			t.Errorf("%s: SD316 = %+v, want a warning at %s", name, fs, send)
		}
	}
	res := analyzeFile(t, "pubsub-burst", Options{})
	if n := len(res.Summary.Spikes); n != 5 {
		t.Fatalf("pubsub-burst: %d spikes, want one per message: 5", n)
	}
	for _, sp := range res.Summary.Spikes {
		if sp.Cause.Kind != "woken" || !strings.HasSuffix(at(sp.Cause.Location), send) || sp.Cause.How != howNames[howChanRecv] {
			t.Errorf("pubsub-burst: spike %v caused by %+v, want the send", sp, sp.Cause)
		}
	}
	fs := findingsOf(res.Findings, "SD315")
	if len(fs) != 1 || fs[0].Severity != finding.Warning || !strings.HasSuffix(at(fs[0].Locations[0]), send) || !strings.HasPrefix(fs[0].What, "5 latency spikes") {
		t.Errorf("pubsub-burst: SD315 = %+v, want 5 spikes at %s, a warning", fs, send)
	}
	if res := analyzeFile(t, "pubsub-20hz", Options{}); len(res.Summary.Spikes) != 0 {
		t.Errorf("pubsub-20hz: spikes %v, want none: every window has its 20 messages", res.Summary.Spikes)
	}
}

// TestRealEventBus: asaskevich/EventBus (commit 49d42305, not committed):
// 300 handlers subscribed with SubscribeAsync, 2 events published every
// 500ms (-burst), each handler computing 100µs per event. Publish starts
// a goroutine per async handler (event_bus.go:152): 600 goroutines at
// once, the cause of every spike (SD315). The same work in even steps
// (-even: 30 handlers, an event every 25ms) makes no spike and no SD316.
func TestRealEventBus(t *testing.T) {
	const publish = "eventbus/event_bus.go:152"
	res := analyzeFile(t, "eventbus-burst", Options{})
	if len(res.Summary.Spikes) < 3 {
		t.Errorf("eventbus-burst: spikes %v, want one or more per period", res.Summary.Spikes)
	}
	for _, sp := range res.Summary.Spikes {
		if sp.Cause.Kind != "created" || !strings.HasSuffix(at(sp.Cause.Location), publish) || sp.Cause.Function != "github.com/asaskevich/EventBus.(*EventBus).doPublishAsync" {
			t.Errorf("eventbus-burst: spike %v caused by %+v, want the go statement in Publish", sp, sp.Cause)
		}
	}
	fs := findingsOf(res.Findings, "SD315")
	if len(fs) != 1 || fs[0].Severity != finding.Warning || !strings.HasSuffix(at(fs[0].Locations[0]), publish) {
		t.Errorf("eventbus-burst: SD315 = %+v, want a warning at %s", fs, publish)
	}
	if fs := findingsOf(res.Findings, "SD316"); len(fs) != 0 {
		t.Errorf("eventbus-burst: SD316 = %+v, want none: creating is no wake-up", fs)
	}
	for _, name := range []string{"eventbus-even", "pubsub-even"} {
		res := analyzeFile(t, name, Options{})
		if len(res.Summary.Spikes) != 0 || len(findingsOf(res.Findings, "SD315")) != 0 || len(findingsOf(res.Findings, "SD316")) != 0 {
			t.Errorf("%s: spikes %v, findings %v: want none", name, res.Summary.Spikes, res.Findings)
		}
	}
}

// TestRealMobyPubSub: moby/pubsub (commit 3688cf26, not committed), the
// same driver as TestRealPubSub (300 subscribers, 200µs per message, 2
// messages a second; -20hz: 50µs, 20 a second), a publish timeout of
// 100ms. Publish starts a goroutine per subscriber (publisher.go:88), each
// sending one message: the spikes are that go statement's, and no waker
// is heavy, for each of the 300 senders wakes one subscriber
// (publisher.go:116, bursts of 1). At 20 a second every window has its
// bursts: no spike (the goroutines' creation latency, p99 15.73ms, is in
// no finding: docs/ACCURACY.md counts it a miss).
func TestRealMobyPubSub(t *testing.T) {
	const publish, send = "mobypubsub/publisher.go:88", "mobypubsub/publisher.go:116"
	res := analyzeFile(t, "mobypubsub-burst", Options{})
	if n := len(res.Summary.Spikes); n != 5 {
		t.Errorf("mobypubsub-burst: %d spikes, want one per message: 5", n)
	}
	for _, sp := range res.Summary.Spikes {
		if sp.Cause.Kind != "created" || !strings.HasSuffix(at(sp.Cause.Location), publish) || sp.Cause.Function != "github.com/moby/pubsub.(*Publisher).sendTopic" {
			t.Errorf("mobypubsub-burst: spike %v caused by %+v, want the go statement in Publish", sp, sp.Cause)
		}
	}
	fs := findingsOf(res.Findings, "SD315")
	if len(fs) != 1 || fs[0].Severity != finding.Warning || !strings.HasSuffix(at(fs[0].Locations[0]), publish) {
		t.Errorf("mobypubsub-burst: SD315 = %+v, want a warning at %s", fs, publish)
	}
	for _, name := range []string{"mobypubsub-burst", "mobypubsub-20hz"} {
		res := analyzeFile(t, name, Options{})
		if fs := findingsOf(res.Findings, "SD316"); len(fs) != 0 {
			t.Errorf("%s: SD316 = %+v, want none: each sender wakes one subscriber", name, fs)
		}
		w := res.Summary.Wakers[0]
		if !strings.HasSuffix(at(w.Location), send) || w.MaxBurst != 1 || w.Heavy != 0 {
			t.Errorf("%s: top waker %+v, want the senders' select, bursts of 1", name, w)
		}
	}
	if res := analyzeFile(t, "mobypubsub-20hz", Options{}); len(res.Summary.Spikes) != 0 {
		t.Errorf("mobypubsub-20hz: spikes %v, want none", res.Summary.Spikes)
	}
}
