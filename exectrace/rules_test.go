package exectrace

import (
	"strings"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// base is a quiet one-second trace of a program with one site of 4
// goroutines on 2 Ps: no rule fires on it.
func base() *Summary {
	s := &Summary{Trace: TraceInfo{Duration: time.Second, Generations: 1}}
	s.Procs = ProcSummary{GOMAXPROCS: 2, BusyMean: 1.5}
	s.Latency.Woken = Percentiles{Count: 5000, P50: 5 * time.Microsecond, P99: 2 * time.Millisecond}
	s.Sites = []SiteSummary{{
		Creator:  finding.Location{File: "/src/app/main.go", Line: 10, Function: "main.main"},
		Function: "main.worker", Goroutines: 4, Starts: 5000, MMoves: 500,
		StopAt: finding.Location{File: "/src/app/main.go", Line: 20, Function: "main.worker"},
		Blocks: []BlockCount{{Reason: wakeNames[wakeChan], Location: finding.Location{File: "/src/app/main.go", Line: 22}, Count: 5000}},
	}}
	return s
}

func TestRules(t *testing.T) {
	tests := []struct {
		name string
		opt  Options
		edit func(s *Summary)
		rule string // "" for no finding at warning or info
		sev  finding.Severity
		line int
	}{
		{name: "quiet", edit: func(*Summary) {}},

		{name: "SD301 slow wake-ups", rule: "SD301", sev: finding.Warning, line: 10, edit: func(s *Summary) {
			s.Latency.Woken.P99 = 25 * time.Millisecond
			s.Sites[0].Latency = Percentiles{Count: 5000, P99: 25 * time.Millisecond}
		}},
		{name: "SD301 slow but few: a tail", rule: "SD301", sev: finding.Info, edit: func(s *Summary) {
			s.Latency.Woken = Percentiles{Count: 499, P99: 200 * time.Millisecond}
		}},
		{name: "SD301 slow and too few for a tail", edit: func(s *Summary) {
			s.Latency.Woken = Percentiles{Count: 99, P99: 200 * time.Millisecond}
		}},
		{name: "SD301 just under: a tail", rule: "SD301", sev: finding.Info, edit: func(s *Summary) { s.Latency.Woken.P99 = 19 * time.Millisecond }},
		{name: "SD301 under the tail", edit: func(s *Summary) { s.Latency.Woken.P99 = 4900 * time.Microsecond }},

		{name: "SD302 backlog with slow wake-ups", rule: "SD302", sev: finding.Warning, line: 10, edit: func(s *Summary) {
			s.Runnable = RunnableSummary{Mean: 6, Max: 10, AboveProcsPct: 80}
			s.Latency.Woken.P99 = 4 * time.Millisecond
		}},
		{name: "SD302 CPU-bound backlog only", rule: "SD302", sev: finding.Info, line: 10, edit: func(s *Summary) {
			s.Runnable = RunnableSummary{Mean: 6, Max: 10, AboveProcsPct: 80}
			s.Latency.Woken.P99 = 100 * time.Microsecond
		}},
		{name: "SD302 goroutines created faster than run", rule: "SD302", sev: finding.Warning, line: 10, edit: func(s *Summary) {
			s.Runnable = RunnableSummary{Mean: 400, Max: 1000, AboveProcsPct: 90}
			s.Latency.ByReason = []ReasonLatency{{Reason: wakeNames[wakeCreated], Percentiles: Percentiles{Count: 2000, P50: 200 * time.Millisecond}}}
		}},
		{name: "SD302 a burst of quick goroutines", rule: "SD302", sev: finding.Info, line: 10, edit: func(s *Summary) {
			s.Runnable = RunnableSummary{Mean: 4, Max: 100, AboveProcsPct: 60}
			s.Latency.Woken.P99 = 500 * time.Microsecond
			s.Latency.ByReason = []ReasonLatency{{Reason: wakeNames[wakeCreated], Percentiles: Percentiles{Count: 2000, P50: 100 * time.Microsecond}}}
		}},
		{name: "SD302 short backlog", edit: func(s *Summary) {
			s.Runnable = RunnableSummary{Mean: 2, Max: 10, AboveProcsPct: 49}
		}},

		{name: "SD303 more Ps than CPUs", opt: Options{CPUs: 2}, rule: "SD303", sev: finding.Warning, line: 20, edit: func(s *Summary) {
			s.Procs = ProcSummary{GOMAXPROCS: 8, BusyMean: 7.5}
		}},
		{name: "SD303 without -cpus", edit: func(s *Summary) { s.Procs = ProcSummary{GOMAXPROCS: 8, BusyMean: 7.5} }},
		{name: "SD303 Ps busy within CPUs", opt: Options{CPUs: 8}, edit: func(s *Summary) {
			s.Procs = ProcSummary{GOMAXPROCS: 8, BusyMean: 7.5}
		}},

		{name: "SD304 migrating site", rule: "SD304", sev: finding.Info, line: 22, edit: func(s *Summary) {
			s.Sites[0].MMoves = 3000
		}},
		{name: "SD304 half the starts", edit: func(s *Summary) { s.Sites[0].MMoves = 2400 }},

		{name: "SD305 handoffs", rule: "SD305", sev: finding.Warning, line: 30, edit: func(s *Summary) {
			s.Syscalls.Sites = []SyscallSite{{Location: finding.Location{File: "/src/app/io.go", Line: 30, Function: "main.write"}, Count: 1000, Handoffs: 120,
				Duration: Percentiles{P50: 300 * time.Microsecond, P99: 5 * time.Millisecond}}}
		}},
		{name: "SD305 quick calls at a high rate", rule: "SD305", sev: finding.Warning, line: 30, edit: func(s *Summary) {
			// the lab's syscallheavy: one write per record, 188 of 491809 lost the P
			s.Syscalls.Sites = []SyscallSite{{Location: finding.Location{File: "/src/app/io.go", Line: 30, Function: "main.write"}, Count: 491809, Handoffs: 188,
				Duration: Percentiles{P50: 351 * time.Nanosecond, P99: 575 * time.Nanosecond}}}
		}},
		{name: "SD305 quick calls at a high rate that cost little", rule: "SD305", sev: finding.Info, line: 30, edit: func(s *Summary) {
			// nbio's echo reads (docs/ACCURACY.md): 11,199/s of 1.4µs, 38 a
			// second lost the P: about 0.02 cores, the price of the traffic
			s.Syscalls.Sites = []SyscallSite{{Location: finding.Location{File: "/src/app/io.go", Line: 30, Function: "main.read"}, Count: 11199, Handoffs: 38,
				Duration: Percentiles{P50: 1410 * time.Nanosecond, P99: 30720 * time.Nanosecond}}}
		}},
		{name: "SD305 quick calls at a high rate through a buffer are a tail", rule: "SD305", sev: finding.Info, line: 30, edit: func(s *Summary) {
			// the lab's syscallheavy fixed twin: 64 KiB bufio flushes to
			// /dev/null, 27 of 146830 lost the P; batching is done already
			s.Syscalls.Sites = []SyscallSite{{Location: finding.Location{File: "/src/app/io.go", Line: 30, Function: "main.write"}, Count: 146830, Handoffs: 27,
				Batched: 146830, Duration: Percentiles{P50: 351 * time.Nanosecond, P99: 639 * time.Nanosecond}}}
		}},
		{name: "SD305 a tail of quick calls", rule: "SD305", sev: finding.Info, line: 30, edit: func(s *Summary) {
			// go-httpbin in the corpus: 100 of 3454 writes, p50 11µs
			s.Syscalls.Sites = []SyscallSite{{Location: finding.Location{File: "/src/app/io.go", Line: 30, Function: "main.write"}, Count: 3454, Handoffs: 100,
				Duration: Percentiles{P50: 11 * time.Microsecond, P99: 983 * time.Microsecond}}}
		}},
		{name: "SD305 with no user frame is not located", rule: "SD305", sev: finding.Info, line: -1, edit: func(s *Summary) {
			// net/http's own response writes: name the function, locate nothing
			s.Syscalls.Sites = []SyscallSite{{Location: finding.Location{File: "/usr/local/go/src/syscall/zsyscall_linux_amd64.go", Line: 964, Function: "syscall.write"},
				Count: 3454, Handoffs: 100, Duration: Percentiles{P50: 11 * time.Microsecond, P99: 983 * time.Microsecond}}}
		}},
		{name: "SD305 rare handoffs", edit: func(s *Summary) {
			s.Syscalls.Sites = []SyscallSite{{Location: finding.Location{File: "/src/app/io.go", Line: 30, Function: "main.write"}, Count: 1e5, Handoffs: 19}}
		}},

		{name: "SD306 assists", rule: "SD306", sev: finding.Warning, line: 40, edit: func(s *Summary) {
			s.GC = GCSummary{Cycles: 40, AssistPct: 25, STWPct: 1,
				AssistBy: []LocTime{{finding.Location{File: "/src/app/alloc.go", Line: 40}, time.Millisecond}}}
		}},
		{name: "SD306 stop-the-world", rule: "SD306", sev: finding.Warning, edit: func(s *Summary) {
			s.GC = GCSummary{Cycles: 40, STWPct: 6}
		}},
		{name: "SD306 light GC", edit: func(s *Summary) { s.GC = GCSummary{Cycles: 4, AssistPct: 4.9, STWPct: 4.9} }},

		{name: "SD307 polling sleep", rule: "SD307", sev: finding.Warning, line: 50, edit: func(s *Summary) {
			s.Sleeps = []SleepSummary{{Location: finding.Location{File: "/src/app/poll.go", Line: 50, Function: "main.poll"}, Count: 900, Repeats: 899, PerS: 900, Slept: Percentiles{P50: time.Millisecond}}}
		}},
		{name: "SD307 many goroutines sleeping once", edit: func(s *Summary) {
			s.Sleeps = []SleepSummary{{Location: finding.Location{File: "/src/app/task.go", Line: 5, Function: "main.task"}, Count: 5000, PerS: 5000, Slept: Percentiles{P50: time.Millisecond}}}
		}},
		{name: "SD307 periodic sleep", edit: func(s *Summary) {
			s.Sleeps = []SleepSummary{{Location: finding.Location{File: "/src/app/tick.go", Line: 5, Function: "main.tick"}, Count: 200, Repeats: 199, PerS: 200, Slept: Percentiles{P50: 5 * time.Millisecond}}}
		}},

		{name: "SD308 Gosched spin", rule: "SD308", sev: finding.Warning, line: 20, edit: func(s *Summary) {
			s.Sites[0].Yields, s.Sites[0].Blocked, s.Sites[0].StopRunPct = 50000, 3, 98
		}},
		{name: "SD308 yields before waits in a syscall", edit: func(s *Summary) {
			// an event loop: one yield after an empty poll, then epoll_wait
			s.Sites[0].Yields, s.Sites[0].Blocked, s.Sites[0].SyscallWaits, s.Sites[0].StopRunPct = 50000, 3, 40000, 98
		}},
		{name: "SD308 yields end little of the running time", edit: func(s *Summary) {
			s.Sites[0].Yields, s.Sites[0].Blocked, s.Sites[0].StopRunPct = 50000, 3, 6
		}},
		{name: "SD308 yields between real waits", edit: func(s *Summary) {
			s.Sites[0].Yields, s.Sites[0].Blocked = 50000, 5000
		}},
		{name: "SD308 CPU-bound", rule: "SD308", sev: finding.Info, line: 20, edit: func(s *Summary) {
			s.Sites[0].Preempts, s.Sites[0].Running, s.Sites[0].StopRunPct = 100, 1400*time.Millisecond, 99
		}},
		{name: "SD308 runs until preempted, blocks once per request", rule: "SD308", sev: finding.Info, line: 20, edit: func(s *Summary) {
			s.Sites[0].Preempts, s.Sites[0].Running, s.Sites[0].Blocked, s.Sites[0].StopRunPct = 60, 1400*time.Millisecond, 114, 97
		}},
		{name: "SD308 CPU-bound between waits", edit: func(s *Summary) {
			// stretches end in blocks: the running time between waits is work
			s.Sites[0].Preempts, s.Sites[0].Running, s.Sites[0].Blocked, s.Sites[0].StopRunPct = 100, 1400*time.Millisecond, 5000, 40
		}},
		{name: "SD308 just under the spin share", edit: func(s *Summary) {
			s.Sites[0].Preempts, s.Sites[0].Running, s.Sites[0].StopRunPct = 100, 1400*time.Millisecond, 79
		}},
		{name: "SD308 short-lived", edit: func(s *Summary) {
			s.Sites[0].Preempts, s.Sites[0].Running, s.Sites[0].StopRunPct = 100, 20*time.Millisecond, 99
		}},
		{name: "SD308 system goroutine", edit: func(s *Summary) {
			s.Sites[0].System = true
			s.Sites[0].Yields, s.Sites[0].Blocked = 50000, 3
		}},

		{name: "SD309 lock queue", rule: "SD309", sev: finding.Warning, line: 60, edit: func(s *Summary) {
			s.Locks = []LockSummary{{Location: finding.Location{File: "/src/app/lock.go", Line: 60}, Count: 5000, Goroutines: 8, Waiting: 2.5}}
		}},
		{name: "SD309 lightly contended", edit: func(s *Summary) {
			s.Locks = []LockSummary{{Location: finding.Location{File: "/src/app/lock.go", Line: 60}, Count: 5000, Goroutines: 8, Waiting: 0.2}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base()
			tt.edit(s)
			respin(s)
			fs := findings(s, tt.opt)
			if tt.rule == "" {
				if len(fs) > 0 {
					t.Fatalf("want no findings, got %v: %s", rules(fs), fs[0].Text())
				}
				return
			}
			if len(fs) != 1 || fs[0].Rule != tt.rule || fs[0].Severity != tt.sev {
				t.Fatalf("got %v, want one %s/%v", rules(fs), tt.rule, tt.sev)
			}
			f := fs[0]
			if f.Text() == "" || f.Fix == "" || len(f.Evidence) == 0 {
				t.Errorf("incomplete: %+v", f)
			}
			if tt.line < 0 {
				if len(f.Locations) > 0 || !strings.Contains(f.Text(), "no user frame") {
					t.Errorf("locations = %v, message %q: want none, and the message to say there is no user frame", f.Locations, f.Text())
				}
			} else if tt.line != 0 && (len(f.Locations) == 0 || f.Locations[0].Line != tt.line) {
				t.Errorf("locations = %v, want line %d first", f.Locations, tt.line)
			}
		})
	}
}

// respin recomputes the spinning sites after a test edited the sites.
func respin(s *Summary) {
	busy := time.Duration(s.Procs.BusyMean * float64(s.Trace.Duration))
	s.Spinning, s.SpinPct = spinning(s, busy, s.Trace.Duration)
}

// TestMergeSites: one spin seen from two creation sites is one finding;
// a different line or another rule is not merged.
func TestMergeSites(t *testing.T) {
	loc := []finding.Location{{File: "/src/q.go", Line: 174, Function: "q.(*Q).Get"}}
	other := []finding.Location{{File: "/src/q.go", Line: 90, Function: "q.(*Q).Put"}}
	fs := mergeSites([]finding.Finding{
		{Rule: "SD308", Severity: finding.Info, Message: "big", Locations: loc},
		{Rule: "SD308", Severity: finding.Warning, Message: "small", Locations: loc},
		{Rule: "SD308", Severity: finding.Warning, Message: "elsewhere", Locations: other},
		{Rule: "SD309", Message: "lock", Locations: loc},
		{Rule: "SD309", Message: "lock again", Locations: loc},
	})
	if len(fs) != 4 {
		t.Fatalf("got %d findings, want 4: %v", len(fs), rules(fs))
	}
	if fs[0].Text() != "big" || fs[0].Severity != finding.Warning || len(fs[0].Evidence) != 1 || fs[0].Evidence[0].Value != 1 {
		t.Errorf("merged finding = %+v, want the first one's message at the higher severity with one merged site", fs[0])
	}
}

// TestQueueReasonFix: SD302's fix follows the measured reason; only
// goroutines that run until preempted are told to get more CPU.
func TestQueueReasonFix(t *testing.T) {
	reason := func(w wake, n uint64, total time.Duration) ReasonLatency {
		return ReasonLatency{Reason: wakeNames[w], Percentiles: Percentiles{Count: n, Total: total}}
	}
	for _, tc := range []struct {
		name    string
		reasons []ReasonLatency
		want    string
	}{
		{"preempted", []ReasonLatency{reason(wakePreempted, 500, time.Second), reason(wakeChan, 10, time.Millisecond)}, "Add CPU"},
		{"yields", []ReasonLatency{reason(wakeYield, 90000, time.Second), reason(wakeChan, 10, time.Millisecond)}, "instead of calling runtime.Gosched"},
		{"created", []ReasonLatency{reason(wakeCreated, 5000, time.Second)}, "feed a pool"},
		// the prime sieve: 238,449 channel wake-ups, 0 preemptions
		{"channel hand-offs", []ReasonLatency{reason(wakeChan, 238449, time.Second)}, "pass items in batches"},
		{"channel wake-ups among preemptions", []ReasonLatency{reason(wakeChan, 1000, time.Second), reason(wakePreempted, 500, 100*time.Millisecond)}, "Add CPU"},
	} {
		s := &Summary{}
		s.Procs.GOMAXPROCS = 2
		s.Latency.ByReason = tc.reasons
		_, fix := queueReason(s, 1)
		if !strings.Contains(fix, tc.want) {
			t.Errorf("%s: fix %q, want it to contain %q", tc.name, fix, tc.want)
		}
	}
}

// TestHotLineWithoutSamples: without CPU samples, preemptions place a
// site's time (one every 10ms of running, wherever it is); yields do not,
// unless the stretches are so short that they end where they ran. The
// lab's ringbuffer consumer hashes until its queue is empty, then yields:
// 212 yields at its wait loop, 5 preemptions, 4.6ms stretches.
func TestHotLineWithoutSamples(t *testing.T) {
	wait := finding.Location{File: "/src/ring.go", Line: 119, Function: "main.(*ring).get"}
	work := finding.Location{File: "/src/ring.go", Line: 128, Function: "main.hash"}
	site := func(preempts, yields int, mean time.Duration) *Summary {
		s := &Summary{}
		s.Trace.Duration = time.Second
		s.Sites = []SiteSummary{{Function: "main.pipeline.func2", Running: time.Second, StopRunPct: 100,
			Preempts: preempts, Yields: yields, MeanRun: mean, StopAt: wait, PreemptAt: work}}
		return s
	}
	for _, tc := range []struct {
		name    string
		s       *Summary
		line    int
		hotFrom string
	}{
		{"consumer: few preemptions, long stretches", site(5, 212, 4600*time.Microsecond), 119, "stops"},
		{"enough preemptions place the time", site(31, 212, 3800*time.Microsecond), 128, "preemptions"},
		{"a yield every microsecond is at its loop", site(0, 986194, time.Microsecond), 119, "preemptions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp, _ := spinning(tc.s, time.Second, time.Second)
			if len(sp) != 1 || sp[0].HotLine.Line != tc.line || sp[0].HotFrom != tc.hotFrom {
				t.Fatalf("spinning = %+v, want the hot line %d from %q", sp, tc.line, tc.hotFrom)
			}
		})
	}
}

// TestLockConvoyExplainsTheBacklog: a run-queue backlog whose goroutines
// were woken by a lock SD309 reports is that lock's convoy: SD302 and
// SD301 name the lock and do not advise adding CPU (issue 20: on a lock
// convoy the SD302 fix began "Add CPU"). The close negative: the same
// lock while the backlog follows channel wake-ups keeps the CPU advice.
// Fails on the code whose SD302 fix was the catalog's "Add CPU, ...".
func TestLockConvoyExplainsTheBacklog(t *testing.T) {
	lock := LockSummary{Location: finding.Location{File: "/src/app/lock.go", Line: 60, Function: "main.(*store).put"},
		Count: 5000, Goroutines: 8, Waiting: 2.5}
	for _, c := range []struct {
		name   string
		by     wake
		convoy bool
	}{
		{"woken by the lock", wakeSync, true},
		{"woken by channels", wakeChan, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := base()
			s.Locks = []LockSummary{lock}
			s.Runnable = RunnableSummary{Mean: 6, Max: 10, AboveProcsPct: 80}
			s.Latency.Woken = Percentiles{Count: 5000, P50: time.Millisecond, P99: 25 * time.Millisecond}
			s.Latency.ByReason = []ReasonLatency{
				{Reason: wakeNames[c.by], Percentiles: Percentiles{Count: 4000, P99: 25 * time.Millisecond, Total: 4 * time.Second}},
				{Reason: wakeNames[wakePreempted], Percentiles: Percentiles{Count: 100, Total: 100 * time.Millisecond}},
			}
			respin(s)
			fs := findings(s, Options{})
			var n int
			for _, f := range fs {
				if f.Rule != "SD301" && f.Rule != "SD302" {
					continue
				}
				n++
				cpu := strings.Contains(strings.ToLower(f.Fix), "add cpu") || strings.Contains(f.Fix, "more CPUs")
				named := strings.Contains(f.Text(), "lock convoy at app/lock.go:60") && len(f.Locations) > 0 && f.Locations[0].Line == 60
				if c.convoy && (cpu || !named) {
					t.Errorf("%s on a convoy: message %q, fix %q, at %v: want the lock named first and no CPU advice", f.Rule, f.Text(), f.Fix, f.Locations)
				}
				if c.convoy && f.Severity != finding.Info {
					// the consequence of SD309's convoy: SD309 carries the cost
					t.Errorf("%s on a convoy is %s, want info (a consequence)", f.Rule, f.Severity)
				}
				if !c.convoy && named {
					t.Errorf("%s blames a lock the wake-ups do not follow: %q", f.Rule, f.Text())
				}
			}
			if n != 2 {
				t.Errorf("got %v, want SD301 and SD302", rules(fs))
			}
		})
	}
}

// spinJudge is a source that reads every spinning site's line as a loop
// around a select with a default.
func spinJudge(sp SpinSite) *Verdict {
	l := finding.Location{File: "/src/app/main.go", Line: 20, Function: sp.Function}
	return &Verdict{Spin: true, Kind: "select-default", Detail: "busy-waits in a select with a default", Line: l, Loop: l,
		Fix: "remove the default"}
}

// TestSpinThatLeavesPsIdle: a loop that spins for less than a time slice
// per request while the other Ps sit idle is never preempted: its
// stretches end in blocks, but its CPU samples are in selectgo. It has the
// spin shape, and the source's verdict makes it a warning (issue 20: 8
// spinning handlers on 16 Ps gave no trace finding). The close negatives:
// the same site whose samples are in its own code (compute), and one whose
// samples are in the calls its loop makes (a default that hashes: SD308
// at info, its CPU is its work). Fails on the old spin shape.
func TestSpinThatLeavesPsIdle(t *testing.T) {
	for _, c := range []struct {
		name           string
		stopPct        float64
		spinCode, work int
		meanRun        time.Duration
		want           finding.Severity // of SD308; -1 none
		wantMsg        string
	}{
		{"samples in selectgo", 5, 90, 0, time.Millisecond, finding.Warning, "busy-waits in a select"},
		{"samples in its own code", 5, 10, 0, time.Millisecond, -1, ""},
		{"samples in the calls it makes", 95, 2, 90, time.Millisecond, finding.Info, "its CPU is its work"},
		// the lab timerloop's fixed twin: blocks in its select per event
		// (146,484 blocks, 0% of its time ended by preemption, 4.9µs
		// stretches), its CPU in selectgo between them
		{"samples in selectgo between blocks", 0, 92, 0, 4900 * time.Nanosecond, finding.Info, "the source there shows blocking"},
	} {
		judge := spinJudge
		if c.meanRun < spinStretch {
			// the twin's source reads a blocking select
			judge = func(SpinSite) *Verdict { return &Verdict{Kind: "blocking", Detail: "blocks in a select"} }
		}
		t.Run(c.name, func(t *testing.T) {
			s := base()
			s.Procs = ProcSummary{GOMAXPROCS: 16, BusyMean: 1}
			st := &s.Sites[0]
			st.Running = 800 * time.Millisecond
			st.StopRunPct, st.Samples, st.SpinCode, st.WorkCode = c.stopPct, 100, c.spinCode, c.work
			st.MeanRun = c.meanRun
			st.Preempts = 12
			st.HotLine = finding.Location{File: "/src/app/main.go", Line: 20, Function: "main.worker"}
			respin(s)
			var sd []finding.Finding
			for _, f := range Findings(s, Options{}, judge) {
				if f.Rule == "SD308" {
					sd = append(sd, f)
				}
			}
			if c.want < 0 {
				if len(sd) > 0 {
					t.Errorf("SD308 on a site whose samples are its own code: %s", sd[0].Text())
				}
				return
			}
			if len(sd) != 1 || sd[0].Severity != c.want || !strings.Contains(sd[0].Text(), c.wantMsg) {
				t.Fatalf("SD308 %+v, want one %s saying %q", sd, c.want, c.wantMsg)
			}
		})
	}
}

// TestSampledSpinWarnsWhateverTheSource: a spinning site whose CPU samples
// are 90% in selectgo waits, whatever the source reads there (issue 20: a
// busy handler whose loop the old reader called blocking got SD308 at
// info): SD308 warns by its cost and the backlog names it, not the CPU.
// The close negative: samples in the site's own code keep SD308 at info.
// Fails on the code that downgraded SD308 when the source saw no spin.
func TestSampledSpinWarnsWhateverTheSource(t *testing.T) {
	blocking := func(sp SpinSite) *Verdict {
		return &Verdict{Kind: "blocking", Detail: "blocks in r.Context at line 34"}
	}
	for _, c := range []struct {
		name     string
		spinCode int
		want     finding.Severity
	}{
		{"samples in selectgo", 90, finding.Warning},
		{"samples in its own code", 10, finding.Info},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := base()
			s.Runnable = RunnableSummary{Mean: 6, Max: 10, AboveProcsPct: 80}
			s.Latency.Woken.P99 = 4 * time.Millisecond
			st := &s.Sites[0]
			st.Running = 800 * time.Millisecond
			st.StopRunPct, st.Samples, st.SpinCode, st.Preempts = 95, 100, c.spinCode, 80
			st.HotLine = finding.Location{File: "/src/app/main.go", Line: 31, Function: "main.worker"}
			respin(s)
			var sd308, sd302 *finding.Finding
			fs := Findings(s, Options{}, blocking)
			for i := range fs {
				switch fs[i].Rule {
				case "SD308":
					sd308 = &fs[i]
				case "SD302":
					sd302 = &fs[i]
				}
			}
			if sd308 == nil || sd308.Severity != c.want {
				t.Fatalf("SD308 %+v, want %s", sd308, c.want)
			}
			if c.want >= finding.Warning && (sd302 == nil || strings.Contains(strings.ToLower(sd302.Fix), "add cpu") ||
				!strings.Contains(sd302.Text(), "select or yield code")) {
				t.Errorf("SD302 %+v: want the sampled wait as its cause, no CPU advice", sd302)
			}
		})
	}
}

// TestSleepPollExplainsTheBacklog: a backlog of goroutines woken from
// short back-to-back sleeps at one site (SD307) is that poll's: SD302
// names it and gives its fix, not "Add CPU" (the lab sleeppoll recording
// said "Add CPU"). The close negative: the same wake-ups from sleeps of
// 10ms (no SD307) keep the wake-up reading.
func TestSleepPollExplainsTheBacklog(t *testing.T) {
	for _, c := range []struct {
		name string
		p50  time.Duration
		poll bool
	}{
		{"short sleeps", 6 * time.Microsecond, true},
		{"10ms sleeps", 10 * time.Millisecond, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := base()
			s.Runnable = RunnableSummary{Mean: 11, Max: 40, AboveProcsPct: 92}
			s.Latency.Woken = Percentiles{Count: 5000, P50: time.Millisecond, P99: 4 * time.Millisecond}
			s.Sleeps = []SleepSummary{{Location: finding.Location{File: "/src/app/poll.go", Line: 35, Function: "main.spawn"},
				Count: 30000, Repeats: 29000, PerS: 30000, Slept: Percentiles{Count: 30000, P50: c.p50}}}
			s.Latency.ByReason = []ReasonLatency{
				{Reason: wakeNames[wakeSleep], Percentiles: Percentiles{Count: 26000, Total: 3 * time.Second}},
				{Reason: wakeNames[wakeCreated], Percentiles: Percentiles{Count: 2000, Total: 2 * time.Second}},
			}
			respin(s)
			var sd302 *finding.Finding
			fs := findings(s, Options{})
			for i := range fs {
				if fs[i].Rule == "SD302" {
					sd302 = &fs[i]
				}
			}
			if sd302 == nil {
				t.Fatalf("no SD302 in %v", rules(fs))
			}
			named := strings.Contains(sd302.Text(), "sleep poll at app/poll.go:35")
			cpu := strings.Contains(strings.ToLower(sd302.Fix), "add cpu")
			if c.poll && (!named || cpu) {
				t.Errorf("SD302 on a poll: %q / %q", sd302.Text(), sd302.Fix)
			}
			if !c.poll && named {
				t.Errorf("SD302 blames a poll that SD307 does not report: %q", sd302.Text())
			}
		})
	}
}
