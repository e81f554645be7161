package schedtrace

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
)

// Thresholds of the rules. A schedtrace line is a snapshot read without
// stopping the world, so every rule asks for its condition in a share of the
// ticks, never in one. RuleThresholds quotes them in the rule docs;
// docs/schedtrace.md shows the lab runs they separate.
const (
	// SD302: at least one goroutine waiting per P, behind the one running.
	backlogShare    = 0.5
	backlogMinTicks = 3
	// backlogWarnWait is the estimated run-queue wait (queued per P times
	// the time each goroutine start ran, from schedticks) from which the
	// backlog is a warning: a queued goroutine waits a whole 10ms time slice
	// or more. The lab's fan-out estimates 39ms; a mutex convoy, a channel
	// chain (the prime sieve) and a Gosched pool estimate 1-500µs: their
	// queues are hand-offs that run for microseconds.
	backlogWarnWait = 0.010 // seconds
	// SD310: spinning threads with nothing queued.
	spinShare    = 0.5
	spinMinTicks = 5
	// SD311: idle Ps beside queued goroutines. The runtime wakes a thread
	// for queued work within microseconds, so a quarter of 10-1000ms
	// snapshots showing both is far above chance.
	idleQueuedShare    = 0.25
	idleQueuedMinTicks = 3
	// A warning needs more than a goroutine caught between being readied
	// and being started: a median of idleQueuedWarnQueued queued at those
	// ticks, or idleQueuedWarnShare of all ticks. A healthy go-httpbin
	// under 1,000 req/s on a crowded host showed 1 idle P beside 1 queued
	// goroutine in 7 of 23 ticks (internal/corpus/testdata/go-httpbin-moderate).
	idleQueuedWarnQueued = 2
	idleQueuedWarnShare  = 0.5
	// SD312: thread growth.
	threadMinTicks    = 8
	threadMinGrowth   = 10
	threadGrowthRatio = 1.5
	// SD313 and SD314: goroutine starts per second per P, from schedticks.
	// Preemption alone gives about 100/s (10ms slices); the healthy lab
	// controls stay under 1,000; the lab's 5µs sleep-poller makes about
	// 4,000 with idle Ps, and its Gosched spinner 2-4 million. A healthy
	// loopback echo server makes as many as the sleep-poller and more
	// (4,752/s per P at 9,600 messages/s, 14,708/s at 29,000, Ps 88-97%
	// idle; schedtrace/testdata/echo-server-*.txt): the rate cannot tell a
	// poll loop from a server woken once per request, so SD313 stays info.
	churnRate        = 1000
	churnIdleShare   = 0.5
	stormRate        = 100_000
	rateShare        = 0.5
	rateMinIntervals = 3
)

// Options tune Analyze. The zero value is the default; there is nothing to
// tune yet, and the type keeps Analyze's signature that of every source.
type Options struct{}

// Result is what an analysis found.
type Result struct {
	Findings []finding.Finding
	Summary  *Summary
}

// Analyze diagnoses a trace that Read returned. When the input holds
// several processes' snapshots (`go run` gives the go command's, the
// linker's and the program's), it analyses the last one started and says
// so in the summary.
func Analyze(t *Trace, opt Options) (*Result, error) {
	if t == nil {
		return nil, errors.New("schedtrace: Analyze of a nil Trace")
	}
	fs, s := analyze(t)
	return &Result{Findings: fs, Summary: s}, nil
}

func analyze(t *Trace) ([]finding.Finding, *Summary) {
	runs := splitRuns(t.Ticks)
	run := pickRun(runs)
	// The 0ms snapshot is taken as the runtime starts; it says nothing of
	// the workload.
	ticks := run
	if len(ticks) > 1 && ticks[0].Ms == 0 {
		ticks = ticks[1:]
	}
	a := &analysis{name: t.Name, ticks: ticks, interval: -1}
	a.rates()
	var fs []finding.Finding
	for _, rule := range []func() (finding.Finding, bool){a.backlog, a.spinning, a.idleQueued, a.threadGrowth, a.churn, a.storm} {
		if f, ok := rule(); ok {
			fs = append(fs, f)
		}
	}
	fs = foldBacklogIntoStorm(fs)
	finding.Sort(fs)
	s := summarize(t, ticks, a.rate)
	s.Runs = len(runs)
	if d := t.Stats.Dropped; d > 0 && len(t.Ticks) > 0 {
		s.dropped = true
		s.Notes = append(s.Notes, fmt.Sprintf("the input holds %d snapshots; the oldest %d were dropped to bound memory, "+
			"so the last %d (from line %d) were analysed; a higher snapshot limit keeps more",
			t.Stats.SchedLines, d, len(t.Ticks), t.Ticks[0].Line))
	}
	if x := t.Stats.ExtraDetail; x > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d scheddetail lines beyond what a snapshot can hold (P lines past gomaxprocs, "+
			"more than %d wait reasons) were counted and not kept: foreign output in the stream", x, maxReasons))
	}
	if len(runs) > 1 {
		s.Notes = append(s.Notes, fmt.Sprintf("the input holds %d processes' snapshots (go run prints the go command's "+
			"too); analysed the last one started, lines %d-%d; run the built binary directly",
			len(runs), run[0].Line, run[len(run)-1].Line))
	}
	return fs, s
}

// foldBacklogIntoStorm reports a backlog seen beside a yield storm as part
// of the storm: goroutines that call runtime.Gosched go back to the global
// run queue at once, so their own yields fill the queues, and "more
// goroutines than Ps" would blame the CPU for a spin (the lab's Gosched
// spinner, the ants pool's Gosched spin lock).
func foldBacklogIntoStorm(fs []finding.Finding) []finding.Finding {
	bi, si := -1, -1
	for i := range fs {
		switch fs[i].Rule {
		case "SD302":
			bi = i
		case "SD314":
			si = i
		}
	}
	if bi < 0 || si < 0 {
		return fs
	}
	b := fs[bi]
	s := &fs[si]
	for _, e := range b.Evidence {
		if e.Label == "queued goroutines, mean over those ticks" || e.Label == "ticks with at least one queued goroutine per P" {
			s.Evidence = append(s.Evidence, finding.Evidence{Label: e.Label + " (the yielders, re-queued)", Value: e.Value, Unit: e.Unit})
		}
	}
	s.Note(finding.NoteCause, "the run-queue backlog seen beside it is these yields re-queued, not a lack of CPU")
	return slices.Delete(fs, bi, bi+1)
}

// pickRun chooses the process to analyse: the last one started that has at
// least minRunTicks snapshots (under go run, the program starts after the
// go command and the linker), else the one with the most.
func pickRun(runs [][]Tick) []Tick {
	for i := len(runs) - 1; i >= 0; i-- {
		if len(runs[i]) >= minRunTicks {
			return runs[i]
		}
	}
	run := runs[0]
	for _, r := range runs[1:] {
		if len(r) > len(run) {
			run = r
		}
	}
	return run
}

const minRunTicks = 3

// maxQuiet is how many other processes' snapshots may come between two of
// one process before it is taken to have exited; it also bounds the work
// per snapshot when an input holds thousands of restarts.
const maxQuiet = 64

// splitRuns separates the output of several processes: `go run` prints the
// go command's snapshots, the compiler's, the linker's and the program's,
// interleaved, each timed from its own start. A 0ms snapshot starts a
// process (the runtime's first is always 0ms). Any other joins the process
// whose last snapshot is about one period earlier (the period being the
// smallest time of a second snapshot); among near ties, the process that
// printed most recently, since a process that stopped printing has exited.
// A single process's ticks always stay together. It returns at least one run.
func splitRuns(ticks []Tick) [][]Tick {
	backwards := false
	for i := 1; i < len(ticks); i++ {
		if ticks[i].Ms < ticks[i-1].Ms {
			backwards = true
			break
		}
	}
	if !backwards {
		return [][]Tick{ticks}
	}
	period := int64(0)
	for i := range ticks {
		if ms := ticks[i].Ms; ms > 0 && (period == 0 || ms < period) {
			period = ms
		}
	}
	var runs [][]Tick
	lastAppend := []int{} // index in ticks of each run's last snapshot
	var live []int        // runs that printed within the last maxQuiet ticks
	for ti, tk := range ticks {
		live = slices.DeleteFunc(live, func(i int) bool { return ti-lastAppend[i] > maxQuiet })
		best := -1
		if tk.Ms > 0 {
			bestScore := int64(-1)
			for _, i := range live {
				r := runs[i]
				gap := tk.Ms - r[len(r)-1].Ms
				if gap <= 0 {
					continue
				}
				score := gap - period
				if score < 0 {
					score = -score
				}
				switch {
				case best < 0 || score < bestScore-period/10:
					best, bestScore = i, score
				case score <= bestScore+period/10 && lastAppend[i] > lastAppend[best]:
					best, bestScore = i, min(score, bestScore)
				}
			}
		}
		if best < 0 {
			runs = append(runs, nil)
			lastAppend = append(lastAppend, 0)
			best = len(runs) - 1
			live = append(live, best)
		}
		runs[best] = append(runs[best], tk)
		lastAppend[best] = ti
	}
	return runs
}

type analysis struct {
	name  string
	ticks []Tick
	// rate[i] is the goroutine starts per second per P between ticks[i-1]
	// and ticks[i]; -1 where unknown (no schedticks, P count changed).
	rate     []float64
	interval int64 // median ms between ticks; -1 until computed
}

func (a *analysis) rates() {
	a.rate = make([]float64, len(a.ticks))
	for i := range a.ticks {
		a.rate[i] = -1
		if i == 0 {
			continue
		}
		prev, cur := &a.ticks[i-1], &a.ticks[i]
		dt := cur.Ms - prev.Ms
		if dt <= 0 || prev.SchedTicks == nil || len(prev.SchedTicks) != len(cur.SchedTicks) {
			continue
		}
		var sum float64
		ok := true
		for p := range cur.SchedTicks {
			d := cur.SchedTicks[p] - prev.SchedTicks[p] // uint32: a wrap-around is still the right difference
			if d > 1<<31 {
				ok = false // went backwards: the P was reset
				break
			}
			sum += float64(d)
		}
		if ok {
			a.rate[i] = sum / float64(len(cur.SchedTicks)) / (float64(dt) / 1000)
		}
	}
}

// loc is where a finding points: the input and the first offending line.
func (a *analysis) loc(line int) []finding.Location {
	return []finding.Location{{File: a.name, Line: line}}
}

func (a *analysis) finding(rule string, line int, what, why string, ev []finding.Evidence) finding.Finding {
	r := finding.MustLookup(rule)
	return finding.Finding{Rule: rule, Severity: r.Severity, What: what, Because: why, Locations: a.loc(line), Evidence: ev, Fix: fixes[rule]}
}

// fixes are the concrete changes, shorter than the catalog's Fix texts.
var fixes = map[string]string{
	"SD302": "schedtrace cannot see what the Ps run: a CPU shortage and goroutines that spin (a select with a " +
		"default, a Gosched or CAS loop) look the same here, so do not add CPU on this alone; profile or trace the " +
		"same process (schedoctor profile, schedoctor trace) to decide: a spin is SD204/SD308 at its line (block " +
		"instead), real work calls for a worker pool of GOMAXPROCS goroutines or more CPU (schedoctor procs checks " +
		"GOMAXPROCS against the CPUs available)",
	"SD310": "hand work over in batches rather than waking a goroutine per item, block instead of sleep-polling, " +
		"and profile the process (schedoctor profile: SD201, SD202) to see what the spinning costs",
	"SD311": "check CPU quota and throttling with schedoctor procs (SD401, SD404) and set GOMAXPROCS to the CPUs " +
		"the process really gets",
	"SD312": "bound the goroutines that make blocking syscalls or cgo calls with a semaphore or a worker pool, and " +
		"pair runtime.LockOSThread with UnlockOSThread",
	"SD313": "find what wakes the goroutines before changing anything: schedoctor profile (SD201, SD203) or " +
		"schedoctor trace (SD307) of the same process names a sleep loop at its line, and a server woken once per " +
		"request needs no change; a sleep loop should block on the event instead (SD102), one goroutine per tiny " +
		"task should become a few long-lived goroutines fed in batches",
	"SD314": "replace the runtime.Gosched or polling loop by blocking on a channel, sync.Cond or WaitGroup " +
		"(SD106); schedoctor trace names the goroutine (SD308)",
}

// durationMs estimates the time covered by n ticks: n times the median
// interval.
func (a *analysis) durationMs(n int) float64 {
	if a.interval < 0 {
		a.interval = medianInterval(a.ticks)
	}
	return float64(n) * float64(a.interval)
}

// backlog is SD302 as schedtrace sees it: goroutines queued behind busy
// Ps. schedtrace cannot see what the Ps run, so a CPU shortage and
// goroutines that spin (a select with a default, a Gosched or CAS loop)
// look the same here; the finding states the figures, estimates how long a
// queued goroutine waited, and leaves the cause to a profile or a trace.
func (a *analysis) backlog() (finding.Finding, bool) {
	var hit []int
	var queued []int
	total, busy := 0, 0
	procs := 0
	for i := range a.ticks {
		tk := &a.ticks[i]
		q, ok := tk.Queued()
		if !ok {
			continue
		}
		total++
		if tk.IdleProcs == 0 {
			busy++
		}
		if q >= tk.GOMAXPROCS {
			hit = append(hit, i)
			queued = append(queued, q)
			procs = max(procs, tk.GOMAXPROCS)
		}
	}
	if len(hit) < backlogMinTicks || float64(len(hit)) < backlogShare*float64(total) {
		return finding.Finding{}, false
	}
	mx := slices.Max(queued)
	mean := meanF(toFloats(queued))
	perP := mean / float64(procs)
	// How long each goroutine start ran: the busy share of the Ps over the
	// starts per second per P, in the intervals that end in a backlog tick.
	var runs []float64
	for _, i := range hit {
		if r := a.rate[i]; r > 0 {
			tk := &a.ticks[i]
			runs = append(runs, (1-float64(tk.IdleProcs)/float64(tk.GOMAXPROCS))/r)
		}
	}
	perStart, wait := -1.0, -1.0
	if len(runs) > 0 {
		perStart = median(runs)
		wait = perP * perStart
	}
	why := fmt.Sprintf("more goroutines were runnable than the %d Ps could run", procs)
	if wait >= 0 {
		why += fmt.Sprintf(", and each goroutine start ran about %s, so a queued goroutine waited about %s", dur(perStart), dur(wait))
	} else {
		why += " (no schedticks: how long each waited is unknown)"
	}
	from, fromTotal := map[string]int{}, 0
	for _, i := range hit {
		if d := a.ticks[i].Detail; d != nil {
			for k, v := range d.Gs.RunnableFrom {
				from[k] += v
				fromTotal += v
			}
		}
	}
	top, topN := "", 0
	for k, v := range from {
		if v > topN || (v == topN && k < top) {
			top, topN = k, v
		}
	}
	lockWaiters := false
	if fromTotal > 0 && 2*topN > fromTotal {
		why += fmt.Sprintf("; most were woken from %s (%d of %d with a wait reason)", top, topN, fromTotal)
		lockWaiters = strings.HasPrefix(top, "sync.") || top == "semacquire"
	}
	what := fmt.Sprintf("%.1f goroutines queued on average (%.1f per P, peak %d) in %d of %d ticks, with all Ps busy in %.0f%% of ticks",
		mean, perP, mx, len(hit), total, pct(busy, total))
	ev := []finding.Evidence{
		{Label: "ticks with at least one queued goroutine per P", Value: float64(len(hit)), Unit: "ticks"},
		{Label: "share of ticks", Value: pct(len(hit), total), Unit: "%"},
		{Label: "ticks with every P busy (idleprocs=0)", Value: pct(busy, total), Unit: "%"},
		{Label: "queued goroutines at peak (global + per-P queues)", Value: float64(mx), Unit: "goroutines"},
		{Label: "queued goroutines, mean over those ticks", Value: round1(mean), Unit: "goroutines"},
		{Label: "queued goroutines, median over those ticks", Value: float64(median(queued)), Unit: "goroutines"},
		{Label: "gomaxprocs", Value: float64(procs), Unit: "Ps"},
		{Label: "time covered by those ticks", Value: a.durationMs(len(hit)), Unit: "ms"},
	}
	if wait >= 0 {
		ev = append(ev,
			finding.Evidence{Label: "run time per goroutine start (busy share / starts per second per P), median", Value: round1(perStart * 1e6), Unit: "µs"},
			finding.Evidence{Label: "estimated wait of a queued goroutine (queued per P × run time per start)", Value: round1(wait * 1e3), Unit: "ms"})
	}
	if topN > 0 {
		ev = append(ev, finding.Evidence{Label: "runnable goroutines woken from " + top + " (scheddetail), summed over those ticks", Value: float64(topN), Unit: "goroutines"},
			finding.Evidence{Label: "runnable goroutines with a wait reason (scheddetail), summed over those ticks", Value: float64(fromTotal), Unit: "goroutines"})
	}
	f := a.finding("SD302", a.ticks[hit[0]].Line, what, why, ev)
	// schedtrace sees queue lengths, not causes: the backlog is a warning
	// only when queued goroutines waited a whole time slice or more; short
	// hand-offs (a lock convoy, a channel chain, yields) and a release
	// without schedticks stay info.
	f.Severity = finding.Info
	if wait >= backlogWarnWait {
		f.Severity = finding.Warning
	}
	if lockWaiters {
		f.Fix = "the queue is mostly goroutines woken from " + top + ": shorten or shard the critical section, or " +
			"give each worker its own state and merge at the end (SD206, SD309); more CPU would not help"
	}
	return f, true
}

// dur formats seconds for a message: µs below a millisecond, else ms.
func dur(sec float64) string {
	if sec < 10e-6 {
		return fmt.Sprintf("%.1fµs", sec*1e6)
	}
	if sec < 1e-3 {
		return fmt.Sprintf("%.0fµs", sec*1e6)
	}
	return fmt.Sprintf("%.1fms", sec*1e3)
}

func toFloats(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

func (a *analysis) spinning() (finding.Finding, bool) {
	var hit, spin []int
	total := 0
	for i := range a.ticks {
		tk := &a.ticks[i]
		q, ok := tk.Queued()
		if !ok || tk.Spinning == Absent {
			continue
		}
		total++
		if tk.Spinning > 0 && q == 0 {
			hit = append(hit, i)
			spin = append(spin, tk.Spinning)
		}
	}
	if len(hit) < spinMinTicks || float64(len(hit)) < spinShare*float64(total) {
		return finding.Finding{}, false
	}
	what := fmt.Sprintf("%d of %d ticks show threads spinning for work (up to %d) with every run queue empty",
		len(hit), total, slices.Max(spin))
	return a.finding("SD310", a.ticks[hit[0]].Line, what, "woken threads find nothing left to run", []finding.Evidence{
		{Label: "ticks with spinning threads and nothing queued", Value: float64(len(hit)), Unit: "ticks"},
		{Label: "share of ticks", Value: pct(len(hit), total), Unit: "%"},
		{Label: "spinning threads at peak", Value: float64(slices.Max(spin)), Unit: "threads"},
		{Label: "time covered by those ticks", Value: a.durationMs(len(hit)), Unit: "ms"},
	}), true
}

func (a *analysis) idleQueued() (finding.Finding, bool) {
	var hit, idle, queued []int
	for i := range a.ticks {
		tk := &a.ticks[i]
		q, _ := tk.Queued() // a cut per-P list still has the global queue
		if tk.IdleProcs > 0 && q > 0 {
			hit = append(hit, i)
			idle = append(idle, tk.IdleProcs)
			queued = append(queued, q)
		}
	}
	total := len(a.ticks)
	if len(hit) < idleQueuedMinTicks || float64(len(hit)) < idleQueuedShare*float64(total) {
		return finding.Finding{}, false
	}
	what := fmt.Sprintf("%d of %d ticks show idle Ps (median %d) while up to %d goroutines wait in run queues",
		len(hit), total, median(idle), slices.Max(queued))
	why := "goroutines stayed queued although Ps were free: the runtime wakes a thread for queued work within " +
		"microseconds, so the threads that would run them were not on a CPU (a quota, a busy host or GOMAXPROCS " +
		"above the CPUs; schedoctor procs tells which)"
	weak := median(queued) < idleQueuedWarnQueued && float64(len(hit)) < idleQueuedWarnShare*float64(total)
	f := a.finding("SD311", a.ticks[hit[0]].Line, what, why, []finding.Evidence{
		{Label: "ticks with idle Ps and queued goroutines", Value: float64(len(hit)), Unit: "ticks"},
		{Label: "share of ticks", Value: pct(len(hit), total), Unit: "%"},
		{Label: "idle Ps, median over those ticks", Value: float64(median(idle)), Unit: "Ps"},
		{Label: "queued goroutines at peak in those ticks", Value: float64(slices.Max(queued)), Unit: "goroutines"},
		{Label: "queued goroutines, median over those ticks", Value: float64(median(queued)), Unit: "goroutines"},
		{Label: "time covered by those ticks", Value: a.durationMs(len(hit)), Unit: "ms"},
	})
	if weak {
		f.Severity = finding.Info
		f.Note(finding.NoteThin, fmt.Sprintf("only %d goroutine(s) queued at the median, in under %.0f%% of the ticks: as likely a "+
			"goroutine caught between being readied and being run, so confirm with schedoctor procs (SD404, SD406)",
			median(queued), 100*idleQueuedWarnShare))
	}
	return f, true
}

func (a *analysis) threadGrowth() (finding.Finding, bool) {
	n := len(a.ticks)
	if n < threadMinTicks {
		return finding.Finding{}, false
	}
	q := n / 4
	maxOf := func(ts []Tick) int {
		m := 0
		for i := range ts {
			m = max(m, ts[i].Threads)
		}
		return m
	}
	first := maxOf(a.ticks[:q])
	third, fourth := maxOf(a.ticks[2*q:n-q]), maxOf(a.ticks[n-q:])
	last := a.ticks[n-1]
	growth := last.Threads - first
	if growth < max(threadMinGrowth, last.GOMAXPROCS) || float64(last.Threads) < threadGrowthRatio*float64(first) || fourth <= third {
		return finding.Finding{}, false
	}
	// Where the climb starts: the first tick above the first quarter's maximum.
	start := q
	for start < n-1 && a.ticks[start].Threads <= first {
		start++
	}
	secs := float64(last.Ms-a.ticks[start-1].Ms) / 1000
	perSec := float64(growth) / max(secs, 0.001)
	what := fmt.Sprintf("%d OS threads at the end, up from %d (%.1f more per second) and still rising", last.Threads, first, perSec)
	why := fmt.Sprintf("the runtime "+
		"kept making threads beyond the %d Ps' and rarely frees one: it makes one only when a goroutine blocks in a "+
		"syscall or cgo call, or locks its thread, while the others are busy", last.GOMAXPROCS)
	ev := []finding.Evidence{
		{Label: "threads at the first quarter's peak", Value: float64(first), Unit: "threads"},
		{Label: "threads at the last tick", Value: float64(last.Threads), Unit: "threads"},
		{Label: "growth rate", Value: round1(perSec), Unit: "threads/s"},
		{Label: "gomaxprocs", Value: float64(last.GOMAXPROCS), Unit: "Ps"},
	}
	if last.IdleThreads != Absent {
		ev = append(ev, finding.Evidence{Label: "idle threads at the last tick", Value: float64(last.IdleThreads), Unit: "threads"})
	}
	return a.finding("SD312", a.ticks[start].Line, what, why, ev), true
}

// rateHits returns the intervals (by index of their ending tick) that
// match, and how many intervals had a rate at all.
func (a *analysis) rateHits(match func(rate, idleShare float64) bool) (hit []int, total int) {
	for i, r := range a.rate {
		if r < 0 {
			continue
		}
		total++
		tk := &a.ticks[i]
		if match(r, float64(tk.IdleProcs)/float64(tk.GOMAXPROCS)) {
			hit = append(hit, i)
		}
	}
	return hit, total
}

func (a *analysis) rateEvidence(hit []int, total int) (med float64, ev []finding.Evidence) {
	rs := make([]float64, len(hit))
	idle := make([]float64, len(hit))
	for j, i := range hit {
		rs[j] = a.rate[i]
		idle[j] = 100 * float64(a.ticks[i].IdleProcs) / float64(a.ticks[i].GOMAXPROCS)
	}
	med = median(rs)
	return med, []finding.Evidence{
		{Label: "goroutine starts per second per P, median over those intervals", Value: round1(med), Unit: "starts/s"},
		{Label: "goroutine starts per second per P, peak", Value: round1(slices.Max(rs)), Unit: "starts/s"},
		{Label: "idle Ps, mean share over those intervals", Value: round1(meanF(idle)), Unit: "%"},
		{Label: "intervals", Value: float64(len(hit)), Unit: "intervals"},
		{Label: "share of intervals", Value: pct(len(hit), total), Unit: "%"},
		{Label: "time covered by those intervals", Value: a.durationMs(len(hit)), Unit: "ms"},
	}
}

// churn is SD313. A P that is idle in most snapshots yet starts thousands
// of goroutines a second runs each for microseconds and parks its thread
// between them. That is the shape of a sleep-poll loop and equally of a
// healthy server woken once per request (schedtrace/testdata/echo-server-*),
// so it stays info and says it cannot tell them apart.
func (a *analysis) churn() (finding.Finding, bool) {
	hit, total := a.rateHits(func(r, idle float64) bool { return r >= churnRate && idle >= churnIdleShare })
	if len(hit) < rateMinIntervals || float64(len(hit)) < rateShare*float64(total) {
		return finding.Finding{}, false
	}
	med, ev := a.rateEvidence(hit, total)
	idle := evidenceValue(ev, "idle Ps, mean share over those intervals")
	what := fmt.Sprintf("%.0f goroutine starts per second per P with %.0f%% of Ps idle, in %d of %d intervals",
		med, idle, len(hit), total)
	why := fmt.Sprintf("each P "+
		"started a goroutine every %s on average yet was idle in most snapshots: short runs with a thread parked and "+
		"woken around them", dur(1/med))
	f := a.finding("SD313", a.ticks[hit[0]].Line, what, why, ev)
	f.Note(finding.NoteThin, "schedtrace cannot tell a sleep-poll loop from a server woken once per request")
	return f, true
}

func (a *analysis) storm() (finding.Finding, bool) {
	hit, total := a.rateHits(func(r, idle float64) bool { return r >= stormRate && idle < churnIdleShare })
	if len(hit) < rateMinIntervals || float64(len(hit)) < rateShare*float64(total) {
		return finding.Finding{}, false
	}
	med, ev := a.rateEvidence(hit, total)
	idle := evidenceValue(ev, "idle Ps, mean share over those intervals")
	what := fmt.Sprintf("%.0f goroutine starts per second per busy P in %d of %d intervals", med, len(hit), total)
	why := fmt.Sprintf("each start ran about %s "+
		"on Ps that were %.0f%% busy: goroutines give the P back and are run again at once, as a yield or spin loop does",
		dur((1-idle/100)/med), 100-idle)
	return a.finding("SD314", a.ticks[hit[0]].Line, what, why, ev), true
}

func evidenceValue(ev []finding.Evidence, label string) float64 {
	for _, e := range ev {
		if e.Label == label {
			return e.Value
		}
	}
	return 0
}

func pct(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return round1(100 * float64(n) / float64(total))
}

func round1(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }

// median is the upper median of xs, 0 when empty.
func median[T cmp.Ordered](xs []T) T {
	var zero T
	if len(xs) == 0 {
		return zero
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func meanF(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// medianInterval is the median time between consecutive ticks, in ms.
func medianInterval(ticks []Tick) int64 {
	if len(ticks) < 2 {
		return 0
	}
	ds := make([]int, 0, len(ticks)-1)
	for i := 1; i < len(ticks); i++ {
		ds = append(ds, int(ticks[i].Ms-ticks[i-1].Ms))
	}
	return int64(median(ds))
}
