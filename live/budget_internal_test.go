package live

import (
	"testing"
	"time"
)

// The model charges each transition of the last two seconds, so a short
// burst (the runtime's sweeper yielding in a loop on a loaded host) does
// not pause the recorder under the default budget, while a sustained rate
// that would fill it does, before it passes the budget.
func TestBudgetModel(t *testing.T) {
	const limit = 8 << 20
	t0 := time.Unix(1000, 0)
	run := func(perCheck []uint64) (pausedAt int, held float64) {
		var b budgetReader
		b.observe(t0, 0)
		var n uint64
		for i, k := range perCheck {
			n += k
			r, ok := b.observe(t0.Add(time.Duration(i+1)*100*time.Millisecond), n)
			if !ok {
				t.Fatalf("check %d: no reading", i+1)
			}
			if r.overBudget(limit) {
				return i + 1, heldBytes(r.held)
			}
		}
		return 0, 0
	}
	// 17,500 transitions in one 100ms check (measured: the sweeper under
	// load), then quiet: about 0.66 MB held, never paused.
	burst := make([]uint64, 40)
	burst[3] = 17500 / 8
	if at, _ := run(burst); at != 0 {
		t.Errorf("a 100ms burst of 17,500 transitions paused the recorder at check %d", at)
	}
	// Close negative of the next case: 100,000 transitions/s for ever
	// keeps 7.5 MB, under the budget.
	steady := make([]uint64, 60)
	for i := range steady {
		steady[i] = 10000 / 8
	}
	if at, _ := run(steady); at != 0 {
		t.Errorf("100,000 transitions/s (7.5 MB at steady state) paused the recorder at check %d", at)
	}
	// 1M transitions/s: paused at the second check, holding 7.5 MB.
	fast := make([]uint64, 60)
	for i := range fast {
		fast[i] = 100000 / 8
	}
	if at, held := run(fast); at != 2 || held > limit {
		t.Errorf("1M transitions/s: paused at check %d holding %.1f MB, want the second check under %d bytes", at, held/1e6, limit)
	}
	// 120,000/s: over the budget only once two seconds of it are held.
	slow := make([]uint64, 60)
	for i := range slow {
		slow[i] = 12000 / 8
	}
	if at, held := run(slow); at < 15 || at > 20 || held > limit {
		t.Errorf("120,000 transitions/s: paused at check %d holding %.1f MB, want checks 15–20 under the budget", at, held/1e6)
	}
	// The CPU model averages a minute: 53,000 transitions/s for a minute
	// cost 375ns each, 0.99% of two Ps; on eight Ps a quarter of that.
	feed := func(perSecond []float64) (budgetReading, int) {
		var c budgetReader
		c.observe(t0, 0)
		var r budgetReading
		var n float64
		crossed := 0
		for i, v := range perSecond {
			n += v / 10
			r, _ = c.observe(t0.Add(time.Duration(i+1)*100*time.Millisecond), uint64(n/8))
			if crossed == 0 && r.cpuShare(2) > 0.01 {
				crossed = i + 1
			}
		}
		return r, crossed
	}
	steadyCPU := make([]float64, 600)
	for i := range steadyCPU {
		steadyCPU[i] = 53000
	}
	r, crossed := feed(steadyCPU)
	if got := r.cpuShare(2); got < 0.0098 || got > 0.0100 || crossed != 0 {
		t.Errorf("53,000 transitions/s for a minute on 2 Ps: CPU share %.5f (crossed 1%% at check %d), want 0.0099", got, crossed)
	}
	if got := r.cpuShare(8); got < 0.0024 || got > 0.0025 {
		t.Errorf("53,000 transitions/s on 8 Ps: CPU share %.5f, want 0.0025", got)
	}
	// A spike, the thing to record: 500,000 transitions/s for a second
	// in a quiet minute is 0.16%, not a reason to pause.
	spike := make([]float64, 600)
	for i := 100; i < 110; i++ {
		spike[i] = 500000
	}
	if r, crossed := feed(spike); crossed != 0 || r.cpuShare(2) > 0.002 {
		t.Errorf("a 1s spike of 500,000 transitions/s: CPU share %.4f, crossed 1%% at check %d", r.cpuShare(2), crossed)
	}
	// A sustained 100,000 transitions/s passes 1% after about 32s.
	fast100k := make([]float64, 600)
	for i := range fast100k {
		fast100k[i] = 100000
	}
	if _, crossed := feed(fast100k); crossed < 310 || crossed > 330 {
		t.Errorf("100,000 transitions/s: crossed 1%% at check %d, want about 320 (32s)", crossed)
	}
	// A burst ages out: two seconds later it counts no more.
	var b budgetReader
	b.observe(t0, 0)
	b.observe(t0.Add(100*time.Millisecond), 50000)
	r, _ = b.observe(t0.Add(2200*time.Millisecond), 50000)
	if r.held != 0 {
		t.Errorf("2.1s after a burst: %.0f transitions still held", r.held)
	}
}
