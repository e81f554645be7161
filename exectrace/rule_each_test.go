package exectrace

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// runRule runs one rule function alone on s, with what the rules share
// computed as Findings computes it; shared, when not nil, then sets that
// state (a cause, the host) so that a rule can be tested against each
// cause without building the figures behind it.
func runRule(run func(*ruleCtx), s *Summary, opt Options, judge Judge, shared func(*ruleCtx)) []finding.Finding {
	r := newRuleCtx(s, opt, judge)
	if shared != nil {
		shared(r)
	}
	run(r)
	return r.out
}

// hostWithheld is the shared state of a host that withheld the CPU.
func hostWithheld(r *ruleCtx) { r.host = "the host withheld CPU (test)" }

// spinCause is the shared state of spinning sites that explain the Ps'
// busy time.
func spinCause(r *ruleCtx) {
	r.cause = cause{spin: true, text: "a spin explains it (test)", fix: "stop spinning (test)",
		locs: []finding.Location{{File: "/src/app/spin.go", Line: 7, Function: "main.spin"}}}
}

// convoyCause is the shared state of a lock convoy that explains the queue.
func convoyCause(r *ruleCtx) {
	r.convoy = convoy{lock: &LockSummary{Location: finding.Location{File: "/src/app/lock.go", Line: 60, Function: "main.put"}},
		syncPct: 90, text: "a lock convoy explains it (test)", fix: "shorten the critical section (test)"}
}

// TestEachRule runs every rule function alone, on base() edited to make
// it fire (positive) and on a close variant that must not (negative), and
// against the causes the rules share. Each case checks that the rule emits
// only its own ID: a rule that reported for another, or that needed
// another rule to run first, fails here.
func TestEachRule(t *testing.T) {
	syscallSite := func(handoffs int) []SyscallSite {
		return []SyscallSite{{Location: finding.Location{File: "/src/app/io.go", Line: 30, Function: "main.write"}, Count: 1000, Handoffs: handoffs,
			Duration: Percentiles{P50: 300 * time.Microsecond, P99: 5 * time.Millisecond}}}
	}
	pause := func(d time.Duration) []Stall {
		return []Stall{{Duration: d, At: 300 * time.Millisecond, What: "GC mark termination",
			Location: finding.Location{File: "/src/app/alloc.go", Line: 41, Function: "main.alloc"}}}
	}
	tests := []struct {
		name   string
		run    func(*ruleCtx)
		id     string
		opt    Options
		judge  Judge
		edit   func(*Summary)
		shared func(*ruleCtx)
		n      int              // findings wanted
		sev    finding.Severity // of the first
		line   int              // first location's line, when not 0
		why    string           // in the first's Because, when not ""
	}{
		// SD301
		{name: "slow wake-ups", run: schedLatency, id: "SD301", n: 1, sev: finding.Warning, line: 10, edit: func(s *Summary) {
			s.Latency.Woken.P99 = 25 * time.Millisecond
			s.Sites[0].Latency = Percentiles{Count: 5000, P99: 25 * time.Millisecond}
		}, why: "find no free P"},
		{name: "a thin tail", run: schedLatency, id: "SD301", n: 1, sev: finding.Info, edit: func(s *Summary) {
			s.Latency.Woken = Percentiles{Count: 499, P99: 200 * time.Millisecond}
		}},
		{name: "quick wake-ups", run: schedLatency, id: "SD301", edit: func(s *Summary) { s.Latency.Woken.P99 = 4900 * time.Microsecond }},
		{name: "slow wake-ups of a spin", run: schedLatency, id: "SD301", n: 1, sev: finding.Info, line: 7, shared: spinCause, edit: func(s *Summary) {
			s.Latency.Woken.P99 = 25 * time.Millisecond
		}, why: "a spin explains it"},
		{name: "slow wake-ups of a convoy", run: schedLatency, id: "SD301", n: 1, sev: finding.Info, line: 60, shared: convoyCause, edit: func(s *Summary) {
			s.Latency.Woken.P99 = 25 * time.Millisecond
		}, why: "a lock convoy explains it"},
		{name: "slow wake-ups on a withholding host", run: schedLatency, id: "SD301", n: 1, sev: finding.Warning, shared: hostWithheld, edit: func(s *Summary) {
			s.Latency.Woken.P99 = 25 * time.Millisecond
		}, why: "the host withheld CPU"},
		// A heavy waker whose wakees are the tail is the cause, reported
		// by SD316 at warning; SD301 follows at info, at the waker's line.
		{name: "slow wake-ups of a heavy waker", run: schedLatency, id: "SD301", n: 1, sev: finding.Info, line: 54, edit: func(s *Summary) {
			s.Latency.Woken.P99 = 25 * time.Millisecond
			s.Wakers = []WakerSummary{heavyWaker(4000, 24*time.Millisecond)}
		}, why: "main.go:54 (a close of a channel) wakes 300 goroutines at once, 20 times a second, and they queue for the 2 Ps: 80% of the starts"},
		// Close negatives: its wakees too few of the starts, or not the
		// tail, or no heavy burst: the Ps' saturation stays the cause.
		{name: "slow wake-ups, a heavy waker of few", run: schedLatency, id: "SD301", n: 1, sev: finding.Warning, edit: func(s *Summary) {
			s.Latency.Woken.P99 = 25 * time.Millisecond
			s.Wakers = []WakerSummary{heavyWaker(2400, 25*time.Millisecond)}
		}, why: "find no free P"},
		{name: "slow wake-ups, a heavy waker's wakees quick", run: schedLatency, id: "SD301", n: 1, sev: finding.Warning, edit: func(s *Summary) {
			s.Latency.Woken.P99 = 25 * time.Millisecond
			s.Wakers = []WakerSummary{heavyWaker(4000, 22*time.Millisecond)}
		}, why: "find no free P"},
		{name: "slow wake-ups, a waker of no heavy burst", run: schedLatency, id: "SD301", n: 1, sev: finding.Warning, edit: func(s *Summary) {
			s.Latency.Woken.P99 = 25 * time.Millisecond
			w := heavyWaker(4000, 25*time.Millisecond)
			w.Heavy = heavyBurstRepeats - 1
			s.Wakers = []WakerSummary{w}
		}, why: "find no free P"},
		{name: "slow wake-ups, a runtime waker", run: schedLatency, id: "SD301", n: 1, sev: finding.Warning, edit: func(s *Summary) {
			s.Latency.Woken.P99 = 25 * time.Millisecond
			w := heavyWaker(4000, 25*time.Millisecond)
			w.Location = finding.Location{File: "/usr/local/go/src/runtime/netpoll.go", Line: 1, Function: "runtime.netpoll"}
			s.Wakers = []WakerSummary{w}
		}, why: "find no free P"},

		// SD302
		{name: "backlog with slow wake-ups", run: runnableBacklog, id: "SD302", n: 1, sev: finding.Warning, line: 10, edit: func(s *Summary) {
			s.Runnable = RunnableSummary{Mean: 6, Max: 10, AboveProcsPct: 80}
			s.Latency.Woken.P99 = 4 * time.Millisecond
		}},
		{name: "CPU-bound backlog", run: runnableBacklog, id: "SD302", n: 1, sev: finding.Info, edit: func(s *Summary) {
			s.Runnable = RunnableSummary{Mean: 6, Max: 10, AboveProcsPct: 80}
			s.Latency.Woken.P99 = 100 * time.Microsecond
		}},
		{name: "short backlog", run: runnableBacklog, id: "SD302", edit: func(s *Summary) {
			s.Runnable = RunnableSummary{Mean: 2, Max: 10, AboveProcsPct: 49}
		}},
		{name: "backlog of a spin", run: runnableBacklog, id: "SD302", n: 1, sev: finding.Info, line: 7, shared: spinCause, edit: func(s *Summary) {
			s.Runnable = RunnableSummary{Mean: 6, Max: 10, AboveProcsPct: 80}
			s.Latency.Woken.P99 = 4 * time.Millisecond
		}, why: "a spin explains it"},
		{name: "backlog of a convoy", run: runnableBacklog, id: "SD302", n: 1, sev: finding.Info, line: 60, shared: convoyCause, edit: func(s *Summary) {
			s.Runnable = RunnableSummary{Mean: 6, Max: 10, AboveProcsPct: 80}
			s.Latency.Woken.P99 = 4 * time.Millisecond
		}, why: "a lock convoy explains it"},

		// SD303
		{name: "more Ps than CPUs", run: psAboveCPUs, id: "SD303", opt: Options{CPUs: 2}, n: 1, sev: finding.Warning, line: 20, edit: func(s *Summary) {
			s.Procs = ProcSummary{GOMAXPROCS: 8, BusyMean: 7.5}
		}, why: "GOMAXPROCS is 8"},
		{name: "busy Ps within the CPUs", run: psAboveCPUs, id: "SD303", opt: Options{CPUs: 8}, edit: func(s *Summary) {
			s.Procs = ProcSummary{GOMAXPROCS: 8, BusyMean: 7.5}
		}},
		{name: "CPUs unknown", run: psAboveCPUs, id: "SD303", edit: func(s *Summary) { s.Procs = ProcSummary{GOMAXPROCS: 8, BusyMean: 7.5} }},
		{name: "host withheld the CPU", run: psAboveCPUs, id: "SD303", n: 1, sev: finding.Warning, shared: hostWithheld, edit: func(*Summary) {},
			why: "the host withheld CPU"},

		// SD304
		{name: "migrating site", run: migration, id: "SD304", n: 1, sev: finding.Info, line: 22, edit: func(s *Summary) { s.Sites[0].MMoves = 3000 }},
		{name: "under half the starts migrate", run: migration, id: "SD304", edit: func(s *Summary) { s.Sites[0].MMoves = 2400 }},
		{name: "a system site migrates", run: migration, id: "SD304", edit: func(s *Summary) { s.Sites[0].MMoves, s.Sites[0].System = 3000, true }},

		// SD305
		{name: "handoffs", run: syscallHandoff, id: "SD305", n: 1, sev: finding.Warning, line: 30, edit: func(s *Summary) {
			s.Syscalls.Sites = syscallSite(120)
		}, why: "long enough for sysmon"},
		{name: "rare handoffs", run: syscallHandoff, id: "SD305", edit: func(s *Summary) { s.Syscalls.Sites = syscallSite(19) }},
		{name: "handoffs on a withholding host", run: syscallHandoff, id: "SD305", n: 1, sev: finding.Warning, line: 30, shared: hostWithheld,
			edit: func(s *Summary) { s.Syscalls.Sites = syscallSite(120) }, why: "the host withheld CPU (test): threads stalled"},

		// SD306, the GC's share
		{name: "assists", run: gcPauses, id: "SD306", n: 1, sev: finding.Warning, line: 40, edit: func(s *Summary) {
			s.GC = GCSummary{Cycles: 40, AssistPct: 25, STWPct: 1, AssistBy: []LocTime{{finding.Location{File: "/src/app/alloc.go", Line: 40}, time.Millisecond}}}
		}, why: "allocates fast enough"},
		{name: "forced collections", run: gcPauses, id: "SD306", n: 1, sev: finding.Warning, line: 70, edit: func(s *Summary) {
			s.GC = GCSummary{Cycles: 40, STWPct: 6, STWForced: 60 * time.Millisecond, ForcedCycles: 40, STW: Percentiles{Total: 60 * time.Millisecond},
				ForcedBy: []LocTime{{finding.Location{File: "/src/app/gc.go", Line: 70, Function: "main.flush"}, time.Millisecond}}}
		}, why: "runtime.GC was called 40 times"},
		{name: "light GC", run: gcPauses, id: "SD306", edit: func(s *Summary) { s.GC = GCSummary{Cycles: 4, AssistPct: 4.9, STWPct: 4.9} }},
		{name: "one long pause is not the GC's share", run: gcPauses, id: "SD306", edit: func(s *Summary) {
			s.GC = GCSummary{Cycles: 4, STWPct: 6, STW: Percentiles{Count: 4, Total: 60 * time.Millisecond}, STWLongest: pause(59 * time.Millisecond)}
		}},

		// SD306, the long pauses
		{name: "a long pause", run: longPauses, id: "SD306", n: 1, sev: finding.Info, line: 41, edit: func(s *Summary) {
			s.GC = GCSummary{Cycles: 4, STWLongest: pause(12 * time.Millisecond)}
		}, why: "stayed stopped"},
		{name: "short pauses", run: longPauses, id: "SD306", edit: func(s *Summary) { s.GC = GCSummary{Cycles: 4, STWLongest: pause(9 * time.Millisecond)} }},
		{name: "a long pause on a withholding host", run: longPauses, id: "SD306", n: 1, sev: finding.Info, shared: hostWithheld, edit: func(s *Summary) {
			s.GC = GCSummary{Cycles: 4, STWLongest: pause(12 * time.Millisecond)}
		}, why: "the host withheld CPU"},

		// SD307
		{name: "polling sleep", run: shortSleepChurn, id: "SD307", n: 1, sev: finding.Warning, line: 50, edit: func(s *Summary) {
			s.Sleeps = []SleepSummary{{Location: finding.Location{File: "/src/app/poll.go", Line: 50, Function: "main.poll"}, Count: 900, Repeats: 899, PerS: 900, Slept: Percentiles{P50: time.Millisecond}}}
		}},
		{name: "periodic sleep", run: shortSleepChurn, id: "SD307", edit: func(s *Summary) {
			s.Sleeps = []SleepSummary{{Location: finding.Location{File: "/src/app/tick.go", Line: 5, Function: "main.tick"}, Count: 200, Repeats: 199, PerS: 200, Slept: Percentiles{P50: 5 * time.Millisecond}}}
		}},
		{name: "a runtime poll", run: shortSleepChurn, id: "SD307", edit: func(s *Summary) {
			s.Sleeps = []SleepSummary{{Location: finding.Location{File: "/go/src/runtime/proc.go", Line: 5, Function: "runtime.sysmon"}, Count: 900, Repeats: 899, PerS: 900, Slept: Percentiles{P50: time.Millisecond}}}
		}},

		// SD308
		{name: "Gosched spin", run: neverBlocks, id: "SD308", n: 1, sev: finding.Warning, line: 20, edit: func(s *Summary) {
			s.Sites[0].Yields, s.Sites[0].Blocked, s.Sites[0].StopRunPct = 50000, 3, 98
		}, why: "spin on runtime.Gosched"},
		{name: "yields between real waits", run: neverBlocks, id: "SD308", edit: func(s *Summary) { s.Sites[0].Yields, s.Sites[0].Blocked = 50000, 5000 }},
		{name: "CPU-bound", run: neverBlocks, id: "SD308", n: 1, sev: finding.Info, line: 20, edit: func(s *Summary) {
			s.Sites[0].Preempts, s.Sites[0].Running, s.Sites[0].StopRunPct = 100, 1400*time.Millisecond, 99
		}, why: "ended in preemption or a yield"},
		{name: "a spin the source confirms", run: neverBlocks, id: "SD308", judge: spinJudge, n: 1, sev: finding.Critical, line: 20, edit: func(s *Summary) {
			s.Sites[0].Preempts, s.Sites[0].Running, s.Sites[0].StopRunPct = 100, 1400*time.Millisecond, 99
		}, why: "busy-waits in a select with a default"},
		{name: "CPU-bound between waits", run: neverBlocks, id: "SD308", edit: func(s *Summary) {
			s.Sites[0].Preempts, s.Sites[0].Running, s.Sites[0].Blocked, s.Sites[0].StopRunPct = 100, 1400*time.Millisecond, 5000, 40
		}},

		// SD309
		{name: "lock queue", run: lockQueue, id: "SD309", n: 1, sev: finding.Warning, line: 60, edit: func(s *Summary) {
			s.Locks = []LockSummary{{Location: finding.Location{File: "/src/app/lock.go", Line: 60}, Count: 5000, Goroutines: 8, Waiting: 2.5}}
		}, why: "8 goroutines queue on one lock"},
		{name: "lightly contended", run: lockQueue, id: "SD309", edit: func(s *Summary) {
			s.Locks = []LockSummary{{Location: finding.Location{File: "/src/app/lock.go", Line: 60}, Count: 5000, Goroutines: 8, Waiting: 0.2}}
		}},
		{name: "few waits", run: lockQueue, id: "SD309", edit: func(s *Summary) {
			s.Locks = []LockSummary{{Location: finding.Location{File: "/src/app/lock.go", Line: 60}, Count: 19, Goroutines: 8, Waiting: 2.5}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.id+" "+tt.name, func(t *testing.T) {
			s := base()
			tt.edit(s)
			respin(s)
			fs := runRule(tt.run, s, tt.opt, tt.judge, tt.shared)
			for _, f := range fs {
				if f.Rule != tt.id {
					t.Errorf("the %s rule reported %s: %s", tt.id, f.Rule, f.Text())
				}
			}
			if len(fs) != tt.n {
				t.Fatalf("got %d findings %v, want %d", len(fs), rules(fs), tt.n)
			}
			if tt.n == 0 {
				return
			}
			f := fs[0]
			if f.Severity != tt.sev {
				t.Errorf("severity %s, want %s: %s", f.Severity, tt.sev, f.Text())
			}
			if f.What == "" || f.Because == "" || f.Fix == "" || len(f.Evidence) == 0 {
				t.Errorf("incomplete: %+v", f)
			}
			if tt.line != 0 && (len(f.Locations) == 0 || f.Locations[0].Line != tt.line) {
				t.Errorf("locations %v, want line %d first", f.Locations, tt.line)
			}
			if tt.why != "" && !strings.Contains(f.Because, tt.why) {
				t.Errorf("because %q, want it to say %q", f.Because, tt.why)
			}
		})
	}
}

// TestRuleTable: every rule of the table is in the catalog, from the
// trace, with its thresholds in the rule docs; and Findings is the table
// run in order (then merged and sorted), on a summary where every rule
// fires, so no rule depends on another having run.
func TestRuleTable(t *testing.T) {
	th := RuleThresholds()
	for _, rule := range traceRules {
		r, ok := finding.Lookup(rule.id)
		if !ok {
			t.Errorf("%s is not in the catalog", rule.id)
			continue
		}
		if r.Status != finding.Implemented || !slices.Contains(r.Sources, finding.SourceTrace) {
			t.Errorf("%s: catalog status %v, sources %v: want implemented, from the trace", rule.id, r.Status, r.Sources)
		}
		if len(th[rule.id]) == 0 {
			t.Errorf("%s has no thresholds in RuleThresholds", rule.id)
		}
	}

	s := base()
	s.Latency.Woken.P99 = 25 * time.Millisecond
	s.Runnable = RunnableSummary{Mean: 6, Max: 10, AboveProcsPct: 80}
	s.Procs = ProcSummary{GOMAXPROCS: 8, BusyMean: 7.5}
	s.Sites[0].MMoves = 3000
	s.Sites[0].Yields, s.Sites[0].Blocked, s.Sites[0].StopRunPct = 50000, 3, 98
	s.Syscalls.Sites = []SyscallSite{{Location: finding.Location{File: "/src/app/io.go", Line: 30, Function: "main.write"}, Count: 1000, Handoffs: 120,
		Duration: Percentiles{P50: 300 * time.Microsecond, P99: 5 * time.Millisecond}}}
	s.GC = GCSummary{Cycles: 40, AssistPct: 25, STWPct: 1, STWLongest: []Stall{{Duration: 12 * time.Millisecond, What: "GC mark termination"}}}
	s.Sleeps = []SleepSummary{{Location: finding.Location{File: "/src/app/poll.go", Line: 50, Function: "main.poll"}, Count: 900, Repeats: 899, PerS: 900, Slept: Percentiles{P50: time.Millisecond}}}
	s.Locks = []LockSummary{{Location: finding.Location{File: "/src/app/lock.go", Line: 60}, Count: 5000, Goroutines: 8, Waiting: 2.5}}
	respin(s)
	// The spike causes and the wakers are whole structures of the stream:
	// taken from the lab's spikes trace, where SD315 and SD316 fire.
	sp := analyzeFile(t, "spikes", Options{}).Summary
	s.SpikeCauses, s.Wakers = sp.SpikeCauses, sp.Wakers
	opt := Options{CPUs: 2}

	var alone []finding.Finding
	for _, rule := range traceRules {
		fs := runRule(rule.run, s, opt, nil, nil)
		if len(fs) == 0 {
			t.Errorf("a rule of %s did not fire on the summary where all fire", rule.id)
		}
		alone = append(alone, fs...)
	}
	alone = mergeSites(alone)
	finding.Sort(alone)
	all := Findings(s, opt, nil)
	if !reflect.DeepEqual(alone, all) {
		t.Errorf("the rules run one by one give %v, Findings %v", rules(alone), rules(all))
	}
}

// heavyWaker is a waker SD316 reports: main.go:54 closing a channel that
// 300 goroutines wait on, 20 times a second; starts of its wakees and
// their p99 as given.
func heavyWaker(starts int, p99 time.Duration) WakerSummary {
	return WakerSummary{Location: finding.Location{File: "/src/app/main.go", Line: 54, Function: "main.publish"},
		How: "a close of a channel", Wakes: starts, Bursts: 20, MaxBurst: 300, Heavy: 20, HeavyMean: 300, HeavyPerS: 20,
		Latency: Percentiles{Count: uint64(starts), P50: time.Millisecond, P99: p99}}
}
