package exectrace

import (
	"fmt"
	"slices"

	"github.com/schedoctor/schedoctor/finding"
)

// neverBlocks is SD308: goroutines that leave the CPU by yielding or by
// preemption, not by blocking. Counted per site over the whole trace as
// running time by how its stretches end, so the block a goroutine makes
// once per request does not hide the spin between them.
func neverBlocks(r *ruleCtx) {
	s, secs, users, verdicts, judge := r.s, r.secs, r.users, r.verdicts, r.judge
	spinAt := map[string]int{}
	for i, sp := range s.Spinning {
		spinAt[sp.Function+"\x00"+sp.Creator.File+":"+itoa(sp.Creator.Line)] = i
	}
	for _, st := range users {
		yps := float64(st.Yields) / secs
		ev := []finding.Evidence{
			evid("yields (runtime.Gosched)", round2(yps), "/s"),
			evid("preemptions", float64(st.Preempts), "preemptions"),
			evid("blocks", float64(st.Blocked), "blocks"),
			evid("running time", ms(st.Running), "ms"),
			evid("running time in stretches ended by preemption or a yield", st.StopRunPct, "%"),
			evid("mean running stretch", us(st.MeanRun), "µs"),
			evid("goroutines that never blocked", float64(st.NeverBlocked), "goroutines"),
		}
		loc := []finding.Location{st.StopAt}
		if st.StopAt.File == "" {
			loc = siteLocations(st)
		} else if st.Creator.File != "" {
			loc = append(loc, st.Creator)
		}
		i, isSpin := spinAt[st.Function+"\x00"+st.Creator.File+":"+itoa(st.Creator.Line)]
		var v *Verdict
		var sp SpinSite
		if isSpin {
			sp, v = s.Spinning[i], verdicts[i]
			ev = append(ev, evid("share of the Ps' busy time", sp.BusyPct, "%"), evid("busy Ps in these goroutines (mean)", sp.Cores, "Ps"),
				evid("CPU samples in select or yield code", sp.SpinCodePct, "%"))
			if sp.HotLine.File != "" {
				loc = append([]finding.Location{sp.HotLine}, loc...)
			}
		}
		shape := func() string {
			return fmt.Sprintf("%.0f%% of their running time ended in preemption or a yield (%d preemptions, %d yields, %d blocks, mean stretch %v)",
				st.StopRunPct, st.Preempts, st.Yields, st.Blocked, dur(st.MeanRun))
		}
		switch {
		case yps >= yieldsPerS && st.Yields >= stopsPerBlock*(st.Blocked+st.SyscallWaits+1) && st.StopRunPct >= spinRunningPct &&
			(v == nil || !v.Compute):
			// A wait in a syscall is a block (an event loop yields once,
			// then waits in epoll_wait), and a spin's yields end most of
			// its running time.
			if v == nil && judge != nil && !isSpin {
				// a yield storm too small for the spin shape (under 0.1 P):
				// still read its line, so the finding carries the source
				v = judge(SpinSite{Function: st.Function, Creator: st.Creator, HotLine: st.HotLine, StopAt: st.StopAt, Callers: st.callersOf(st.HotLine, st.StopAt),
					Running: st.Running, StopRunPct: st.StopRunPct, MeanRun: st.MeanRun, Preempts: st.Preempts, Yields: st.Yields, Blocked: st.Blocked})
			}
			f := r.add("SD308", finding.MustLookup("SD308").Severity,
				fmt.Sprintf("%.0f yields/s (%d yields for %d blocks) from goroutines running %s", yps, st.Yields, st.Blocked, st.Function),
				"they spin on runtime.Gosched instead of waiting",
				loc, ev, "Block on what the loop waits for (a channel, a sync.Cond, a WaitGroup) instead of yielding (see SD106).")
			if v != nil && v.Spin {
				confirm(f, v)
			}
		case isSpin && v != nil && v.Spin && sp.Samples >= samplesMinimum && sp.WorkCodePct >= workCodePct:
			// The loop has a spin's shape in the source, but its CPU
			// samples are in the calls it makes: it works (a default
			// that hashes a buffer), and removing the default would stop
			// the work.
			r.add("SD308", finding.Info,
				fmt.Sprintf("%.0f%% of the Ps' busy time (%.2f Ps on average) is goroutines running %s", sp.BusyPct, sp.Cores, st.Function),
				fmt.Sprintf("their loop %s at %s:%d, "+
					"but %.0f%% of their CPU samples are in the calls the loop makes (%.0f%% in select or yield code): its CPU is "+
					"its work, not a wait: %s",
					v.Detail, shortFile(v.Line.File), v.Line.Line, sp.WorkCodePct, sp.SpinCodePct, shape()),
				loc, append(ev, evid("CPU samples in the calls the loop makes", sp.WorkCodePct, "%")),
				"Nothing waits: if the latency matters, split the work into shorter pieces or give the process more CPU.")
		case isSpin && v != nil && v.Spin && sp.HotFrom == "stops":
			// The goroutines stop at the loop, but nothing places their
			// time there: a consumer that computes until its queue is
			// empty, then yields, stops at its wait loop every time. The
			// loop is a spin; how much of the busy time it takes needs
			// CPU samples, so the finding does not claim it.
			f := r.add("SD308", finding.MustLookup("SD308").Severity,
				fmt.Sprintf("goroutines running %s never block (%.0f%% of the Ps' busy time, %.2f Ps on average)", st.Function, sp.BusyPct, sp.Cores),
				fmt.Sprintf("they wait in a loop that %s at %s:%d, where their running stretches end (%d yields, %d preemptions, mean stretch %v)",
					v.Detail, shortFile(v.Line.File), v.Line.Line, st.Yields, st.Preempts, dur(st.MeanRun)),
				loc, ev, v.Fix)
			f.Note(finding.NoteThin, "the trace has no CPU samples to say how much of that time the loop takes (profile the program, or record the trace while a CPU profile runs)")
			confirm(f, v)
		case isSpin && v != nil && v.Spin:
			// Severity by cost, as a profile's SD204: the Ps' busy time
			// stands for the program's CPU.
			sev := finding.SpinSeverity(sp.BusyPct, sp.Cores)
			f := r.add("SD308", sev,
				fmt.Sprintf("%.0f%% of the Ps' busy time (%.2f Ps on average) is goroutines running %s", sp.BusyPct, sp.Cores, st.Function),
				fmt.Sprintf("their loop %s at %s:%d: %s", v.Detail, shortFile(v.Line.File), v.Line.Line, shape()),
				loc, ev, v.Fix)
			confirm(f, v)
		case isSpin && (v == nil || !v.Spin) && sampledSpin(sp):
			// Warn by cost, explain by code: the CPU samples put the time
			// in the runtime's select or yield code, which is waiting
			// whatever shape the source reads (issue 20: a busy handler
			// whose loop the source read as blocking was info).
			f := r.add("SD308", finding.SpinSeverity(sp.BusyPct*sp.SpinCodePct/100, sp.Cores*sp.SpinCodePct/100),
				fmt.Sprintf("%.0f%% of the Ps' busy time (%.2f Ps on average) is goroutines running %s", sp.BusyPct, sp.Cores, st.Function),
				fmt.Sprintf("their CPU samples are %.0f%% in "+
					"select or yield code (selectgo, sellock, Gosched) at %s:%d: they wait, whatever the loop's shape; %s",
					sp.SpinCodePct, shortFile(sp.HotLine.File), sp.HotLine.Line, shape()),
				loc, ev, finding.MustLookup("SD308").Fix)
			if v != nil {
				f.Sources = []string{string(finding.SourceTrace), string(finding.SourceLint)}
				f.Note(finding.NoteCorroboration, fmt.Sprintf("the source there reads %s (%s), but the samples show the select or yield is the path taken", v.Kind, v.Detail))
			} else {
				f.AddHint(finding.HintSourceDir, "the source decides the loop's shape: give the module's source directory when the recorded paths are not readable")
			}
		case isSpin && v != nil && v.Compute:
			f := r.add("SD308", finding.Info,
				fmt.Sprintf("%.0f%% of the Ps' busy time (%.2f Ps on average) is goroutines running %s that compute at %s:%d",
					sp.BusyPct, sp.Cores, st.Function, shortFile(sp.HotLine.File), sp.HotLine.Line),
				fmt.Sprintf("the source shows %s: %s", v.Detail, shape()),
				loc, ev, "Nothing spins: if the latency matters, split the work into shorter pieces or give the process more CPU.")
			f.Sources = []string{string(finding.SourceTrace), string(finding.SourceLint)}
		case isSpin:
			f := r.add("SD308", finding.Info,
				fmt.Sprintf("%.0f%% of the Ps' busy time (%.2f Ps on average) is goroutines running %s that compute or spin", sp.BusyPct, sp.Cores, st.Function),
				shape(), loc, ev, finding.MustLookup("SD308").Fix)
			if v != nil {
				f.Note(finding.NoteQualifier, fmt.Sprintf("the source there shows %s (%s)", v.Kind, v.Detail))
			} else {
				f.AddHint(finding.HintSourceDir, "the source at the hot line decides: give the module's source directory when the recorded paths are not readable")
			}
		}
	}
}

// confirm marks a finding the source confirmed: both sources, the spin's
// line first.
func confirm(f *finding.Finding, v *Verdict) {
	f.Sources = []string{string(finding.SourceTrace), string(finding.SourceLint)}
	var first []finding.Location
	for _, l := range []finding.Location{v.Line, v.Loop} {
		if l.File != "" && l.Line > 0 && (l.Function == "" || isUserFunc(l.Function)) && !slices.Contains(first, l) {
			first = append(first, l)
		}
	}
	f.Locations = append(first, slices.DeleteFunc(f.Locations, func(l finding.Location) bool { return slices.Contains(first, l) })...)
}
