package diagnose

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/textlayout"
	"github.com/schedoctor/schedoctor/internal/textsafe"
	"github.com/schedoctor/schedoctor/lint/inspect"
	"github.com/schedoctor/schedoctor/profile"
)

// ProfileResult is a CPU profile's diagnosis joined with the source.
type ProfileResult struct {
	Findings []finding.Finding
	Summary  *ProfileSummary
}

// ProfileSummary is the profile's cause table with what the source said
// about its hot lines. It marshals as the profile's summary plus "source"
// and "loops", and prints itself as text.
type ProfileSummary struct {
	*profile.Summary
	Source *SourceReport `json:"source"`
	// Loops are the source's verdicts on the candidate lines, one per
	// loop (or line outside loops), heaviest first.
	Loops []LoopVerdict `json:"loops,omitempty"`
}

// LoopVerdict is what the source showed around candidate lines and the
// CPU the profile measured inside that loop.
type LoopVerdict struct {
	File     string       `json:"file"` // as the profile recorded it
	Function string       `json:"function"`
	Lines    []int        `json:"lines"` // candidate lines in it
	Kind     inspect.Kind `json:"kind"`
	// Rule is the lint rule whose finding made the loop a spin or a poll
	// (SD101, SD102, SD104, SD106): the code's judgement is lint's.
	Rule     string `json:"rule,omitempty"`
	Start    int    `json:"start,omitempty"`
	End      int    `json:"end,omitempty"`
	SpinLine int    `json:"spin_line,omitempty"`
	Detail   string `json:"detail"`
	// Share is the % of the profile's CPU in the loop: the user frames at
	// its lines (with the select and Gosched frames under them) plus, for
	// a yield spin, its part of the Gosched CPU whose stacks mcall cut.
	Share    float64 `json:"share"`
	Cores    float64 `json:"cores"`
	OwnShare float64 `json:"own_share"` // of Share: at the loop's lines
	CutShare float64 `json:"cut_share"` // of Share: cut Gosched CPU attributed to it
	Spin     bool    `json:"spin"`
	// maybe marks a loop whose sleep has a length the source does not
	// fix: it claims its callees' samples like a spin, and the profile's
	// figures decide (settleSleep).
	maybe bool
}

// Hints is what the source asks for.
func (s *ProfileSummary) Hints() []finding.Note { return s.Source.Hints() }

// WriteText prints the cause table, then the source account and verdicts,
// in 80 columns.
func (s *ProfileSummary) WriteText(w io.Writer) error { return s.WriteTextWidth(w, 80) }

// WriteTextWidth is WriteText within width columns (0: unwrapped); paths
// and names from the profile are escaped (textsafe).
func (s *ProfileSummary) WriteTextWidth(w io.Writer, width int) error {
	if err := s.Summary.WriteTextWidth(w, width); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("\n" + textlayout.Wrap("", "  ", textsafe.String(s.Source.Text()), width))
	for _, v := range s.Loops {
		where := fmt.Sprintf("%s:%d", filepath.Base(v.File), v.Lines[0])
		if v.Start > 0 {
			where = fmt.Sprintf("%s:%d-%d", filepath.Base(v.File), v.Start, v.End)
		}
		verdict := "not a spin"
		if v.Spin {
			verdict = "SPIN"
		}
		b.WriteString(textlayout.Wrap(fmt.Sprintf("  %-24s %5.1f%% %6.3f  ", textsafe.String(where), v.Share, v.Cores), strings.Repeat(" ", 42),
			textsafe.String(fmt.Sprintf("%s (%s): %s", v.Kind, verdict, v.Detail)), width))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Profile joins a profile's diagnosis with the source. For each candidate
// hot line (Summary.Candidates) it reads the loop there. A loop the source
// shows as a spin (a select with a default, a Gosched or atomic spin) or a
// sleep poll becomes SD204 at the spinning line with the CPU measured in
// the whole loop (its own lines, the select and Gosched frames under them,
// and for a yield spin the Gosched CPU whose stacks mcall cut) and the
// source's evidence; it replaces the profile's own SD204 of that kind and
// any runtime-lock finding (SD205) located inside the loop. A select or
// Gosched line whose loop the source shows blocking or computing is not a
// spin: the profile's SD204 for it is dropped, and findings that remain at
// that line say what the source showed.
//
// A loop's CPU is that of the samples it claims: walking each sample's
// user frames leaf to root (Summary.UserStacks), the first frame whose
// line the source shows inside a spinning loop claims it, so a helper's
// time (a ring buffer's minGate, inlined into put's wait loop) counts
// toward the caller's spin; samples no spin claims count toward the loop
// of their first user frame. A loop that sleeps for a length the source
// does not fix (inspect.SleepUnknown) is settled by the figures: hot with
// little parking, it polls (SD204); otherwise it is neither spin nor
// block.
//
// Without a SourceReader, or when no file is found, the profile's findings
// stand as the profile made them and the summary's Source says so.
func Profile(res *profile.Result, opt Options) (*ProfileResult, error) {
	if res == nil || res.Summary == nil {
		return nil, errors.New("no profile result to join")
	}
	lk := newLookups(opt.Source)
	sum := res.Summary
	out := &ProfileResult{Summary: &ProfileSummary{Summary: sum}}
	if opt.Source == nil {
		out.Findings = slices.Clone(res.Findings)
		out.Summary.Source = lk.report()
		return out, nil
	}

	verdicts := map[loopKey]*LoopVerdict{}
	byLine := map[string]*LoopVerdict{} // file:line of a candidate → its verdict
	kinds := map[loopKey]map[string]bool{}
	add := func(key loopKey, v LoopVerdict, line int) *LoopVerdict {
		have := verdicts[key]
		if have == nil {
			have = &v
			verdicts[key] = have
			kinds[key] = map[string]bool{}
		}
		if !slices.Contains(have.Lines, line) && len(have.Lines) < maxVerdictLines {
			have.Lines = append(have.Lines, line)
		}
		return have
	}
	for _, c := range sum.Candidates {
		if !goFile(c.File) {
			continue // assembly (a lock-free queue's .s): no loop to read
		}
		loop := lk.at(c.File, c.Line)
		if loop == nil {
			continue
		}
		key, v := profileVerdict(c.File, c.Function, c.Line, loop)
		have := add(key, v, c.Line)
		kinds[key][c.Kind] = true
		byLine[fmt.Sprintf("%s:%d", c.File, c.Line)] = have
	}

	// The CPU of each loop. A sample belongs to the spin loop of its first
	// user frame, leaf first, whose line the source shows inside one: a
	// helper's time (a ring buffer's minGate, compute where it is) counts
	// toward the wait loop of put that calls it. A sample no spin claims
	// counts toward the loop around its first user frame's line.
	type claim struct {
		v     *LoopVerdict
		share float64
	}
	claimedBy := map[string]*claim{} // a leaf's file:line → the spin that claimed most of its samples
	if len(sum.UserStacks) > 0 {
		budget := maxStackLookups
		for _, st := range sum.UserStacks {
			claimed := false
			for _, fr := range st.Frames {
				if !goFile(fr.File) {
					continue // assembly: its caller's loop decides
				}
				if !lk.asked(fr.File, fr.Line) {
					if budget == 0 || lk.missing(fr.File) {
						continue
					}
					budget--
				}
				// Read quietly: a frame whose source is missing (a
				// dependency's) is no hot line the report must list; the
				// frame that claims the sample is.
				loop := lk.quiet(fr.File, fr.Line)
				if loop == nil {
					continue
				}
				key, v := profileVerdict(fr.File, fr.Function, fr.Line, loop)
				if !v.Spin && !v.maybe {
					continue
				}
				lk.at(fr.File, fr.Line) // counted in the report
				sv := add(key, v, fr.Line)
				sv.OwnShare += st.Share
				leaf := fmt.Sprintf("%s:%d", st.Frames[0].File, st.Frames[0].Line)
				if w := claimedBy[leaf]; w == nil || w.share < st.Share {
					claimedBy[leaf] = &claim{sv, st.Share}
				}
				claimed = true
				break
			}
			if claimed {
				continue
			}
			leaf := st.Frames[0]
			for key, v := range verdicts {
				if !v.Spin && inLoop(key, leaf.File, leaf.Line) {
					v.OwnShare += st.Share
				}
			}
		}
	} else {
		// A summary without stacks (made by hand): the user lines alone.
		for key, v := range verdicts {
			for _, l := range sum.UserLines {
				if inLoop(key, l.File, l.Line) {
					v.OwnShare += l.Share
				}
			}
		}
	}
	// A candidate line whose samples a caller's spin claimed (minGate's
	// compute loop under put's wait) is part of that spin: the findings at
	// it say so, and its own loop, left with no CPU, is no verdict.
	for line, v := range byLine {
		if c := claimedBy[line]; c != nil && !v.Spin {
			byLine[line] = c.v
		}
	}
	for key, v := range verdicts {
		if !v.Spin && v.OwnShare == 0 && len(sum.UserStacks) > 0 && !slices.ContainsFunc(slices.Collect(maps.Values(byLine)),
			func(b *LoopVerdict) bool { return b == v }) {
			delete(verdicts, key)
		}
	}
	// A spin loop no candidate named, found only up the stacks, is worth a
	// verdict when it holds as much CPU as a candidate line must: a loop
	// that rarely runs is not the program's problem.
	// A Gosched loop is the exception when Gosched's cut CPU is that large:
	// its yields carry no user frame, so a sample or two of the loop's own
	// lines are all that can name it (the gosched lab: 94% cut yields,
	// 0.5% at the loop's line).
	cutYields := spinOf(sum, profile.CandYield).CutShare
	for key, v := range verdicts {
		if len(kinds[key]) == 0 && v.OwnShare < profile.CandidateShare &&
			!(v.Kind == inspect.YieldSpin && cutYields >= profile.CandidateShare) {
			delete(verdicts, key)
		}
	}
	// Gosched's cut CPU goes to the yield spins the source confirmed, in
	// proportion to their own CPU: it has no user frame to say which.
	var yieldOwn float64
	var yieldLoops []*LoopVerdict
	for _, v := range verdicts {
		if v.Spin && v.Kind == inspect.YieldSpin {
			yieldLoops = append(yieldLoops, v)
			yieldOwn += v.OwnShare
		}
	}
	cutYield := cutYields
	for _, v := range yieldLoops {
		part := 1 / float64(len(yieldLoops))
		if yieldOwn > 0 {
			part = v.OwnShare / yieldOwn
		}
		v.CutShare = cutYield * part
	}
	for _, v := range verdicts {
		v.Share = v.OwnShare + v.CutShare
		v.Cores = v.Share / 100 * sum.Cores
		if v.maybe {
			settleSleep(v, sum)
		}
		if v.Spin {
			settleWork(v, sum)
		}
		out.Summary.Loops = append(out.Summary.Loops, *v)
	}
	slices.SortFunc(out.Summary.Loops, func(x, y LoopVerdict) int {
		return cmp.Or(cmp.Compare(y.Share, x.Share), strings.Compare(x.File, y.File), cmp.Compare(x.Start, y.Start),
			cmp.Compare(x.Lines[0], y.Lines[0]))
	})

	// Which profile-only SD204 kinds the source settled: confirmed (a spin
	// finding replaces it) or refuted (every candidate line of that kind
	// the source read blocks or computes).
	confirmed := map[string]bool{}
	read := map[string]int{}
	refuted := map[string]int{}
	for key, v := range verdicts {
		for kind := range kinds[key] {
			read[kind]++
			if v.Spin {
				confirmed[kind] = true
			} else {
				refuted[kind]++
			}
		}
	}
	// A yield spin found from the work between yields (a compute
	// candidate inside a Gosched loop) settles the cut yields too.
	if len(yieldLoops) > 0 {
		confirmed[profile.CandYield] = true
	}
	settled := func(kind string) bool {
		return confirmed[kind] || read[kind] > 0 && refuted[kind] == read[kind]
	}

	var spins []finding.Finding
	for _, v := range out.Summary.Loops {
		if v.Spin {
			spins = append(spins, spinFinding(v, sum))
		}
	}
	for _, f := range res.Findings {
		// The source settles what a profile-only SD204 is, not whether it
		// costs: one the profile warned of by its cost alone (selectgo at
		// no parking and no communication completed) stays, with what the
		// source showed, when the source sees no spin there.
		if k := profile.SpinKind(f); k != "" && settled(k) && (confirmed[k] || f.Severity < finding.Warning) {
			continue
		}
		if inSpin(f, out.Summary.Loops) && (f.Rule == "SD204" || f.Rule == "SD205" || f.Rule == "SD208") {
			// The spin's own cost, reported with it: its select's locks,
			// and its async preemptions (a loop that never yields is
			// preempted every 10ms whatever GOMAXPROCS is, which is no
			// oversubscription to fix with GOMAXPROCS).
			continue
		}
		f = slices.Clone([]finding.Finding{f})[0]
		if len(f.Locations) > 0 {
			if v := byLine[fmt.Sprintf("%s:%d", f.Locations[0].File, f.Locations[0].Line)]; v != nil && !v.Spin {
				label := fmt.Sprintf("source: %s loop, not a spin (%s)", v.Kind, v.Detail)
				if f.Rule == "SD204" && v.Kind == inspect.Blocking {
					// The profile measured a busy-wait with little parking
					// here: a block the source sees (a conditional sleep, a
					// call that may block) is not the path taken.
					label = fmt.Sprintf("source: the loop may block (%s), but parking measured only %.0f%% of CPU: "+
						"the blocking path is not the one taken", v.Detail, sum.ParkShare)
				}
				f.Evidence = append(slices.Clone(f.Evidence), finding.Evidence{
					Label: label, Value: float64(cmp.Or(v.Start, v.Lines[0])), Unit: "line"})
				f.Sources = []string{string(finding.SourceProfile), string(finding.SourceLint)}
			}
		}
		out.Findings = append(out.Findings, f)
	}
	out.Findings = append(out.Findings, spins...)
	finding.Sort(out.Findings)
	out.Summary.Source = lk.report()
	return out, nil
}

// goFile reports whether a frame's file is Go source: a frame in an
// assembly file (a lock-free queue's atomics in a .s) is not read, and the
// walk goes on to its callers' loops.
func goFile(file string) bool { return strings.HasSuffix(file, ".go") }

// Bounds of the join: the lines a loop's verdict lists, and the stack
// frames beyond the candidates that are read to find the spin loop a
// callee's time belongs to (each distinct file:line once).
const (
	maxVerdictLines = 12
	maxStackLookups = 256
)

// loopKey names a loop of a file, or a line outside loops (start 0).
type loopKey struct {
	file       string
	start, end int
	line       int // for lines outside loops
}

// inLoop reports whether file:line lies in the key's loop (is its line).
func inLoop(k loopKey, file string, line int) bool {
	if k.file != file {
		return false
	}
	if k.start == 0 {
		return k.line == line
	}
	return line >= k.start && line <= k.end
}

// profileVerdict is the verdict of the loop the source showed at file:line,
// keyed by the loop that decides it: the spinning loop (the line's own or
// an enclosing one) when there is one, else the innermost loop, else the
// line.
func profileVerdict(file, function string, line int, loop *inspect.Loop) (loopKey, LoopVerdict) {
	v := LoopVerdict{File: file, Function: function, Kind: loop.Kind, Rule: loop.Rule, Detail: loop.Detail, SpinLine: loop.SpinLine}
	key := loopKey{file: file}
	if k, start, end, ok := loop.SpinLoop(); ok {
		v.Kind, v.Start, v.End, v.Spin = k, start, end, true
		if start != loop.Start {
			v.Rule = "" // an enclosing loop spins; the rule was the inner one's
		}
	} else if loop.Kind == inspect.SleepPoll {
		v.Start, v.End, v.Spin = loop.Start, loop.End, true
	} else if loop.Kind == inspect.SleepUnknown {
		v.Start, v.End, v.maybe = loop.Start, loop.End, true
	} else if loop.Kind != inspect.NotInLoop {
		v.Start, v.End = loop.Start, loop.End
	}
	key.start, key.end = v.Start, v.End
	if v.Start == 0 {
		key.line = line
	}
	if v.SpinLine == 0 || v.Spin && (v.SpinLine < v.Start || v.SpinLine > v.End) {
		v.SpinLine = cmp.Or(v.Start, line)
	}
	return key, v
}

// settleWork takes the busy-wait verdict back from a loop whose CPU is
// its work: when profile.SpinWorkShare % of the loop's CPU or more is spent
// in the calls its lines make (a default that hashes a buffer: SHA-256, not
// select), the loop is not waiting, whatever its shape, and removing its
// default would stop the work.
func settleWork(v *LoopVerdict, sum *profile.Summary) {
	if v.Share <= 0 {
		return
	}
	var work float64
	for _, l := range sum.UserLines {
		if l.File == v.File && l.Line >= v.Start && l.Line <= v.End {
			work += l.WorkShare
		}
	}
	if part := 100 * work / v.Share; part >= profile.SpinWorkShare {
		v.Spin = false
		v.Detail += fmt.Sprintf("; but the profile measured %.0f%% of the loop's CPU in the calls it makes and %.0f%% in "+
			"select or Gosched frames: its CPU is its work, not a wait", part, 100*spinFrames(v, sum)/v.Share)
	}
}

// spinFrames is the CPU in select and Gosched frames at a loop's lines.
func spinFrames(v *LoopVerdict, sum *profile.Summary) float64 {
	var s float64
	for _, l := range sum.UserLines {
		if l.File == v.File && l.Line >= v.Start && l.Line <= v.End {
			s += l.SpinShare
		}
	}
	return s + v.CutShare
}

// settleSleep decides a loop whose sleep the source could not measure
// (time.Sleep(*retry)): a sleep that parks shows as parking, one of zero
// returns at once and leaves the loop's own work hot. So the loop polls
// when it holds a candidate's share of the CPU while the program parks
// less than SD204 allows for that share; otherwise nothing is claimed,
// blocking no more than spinning.
func settleSleep(v *LoopVerdict, sum *profile.Summary) {
	th := profile.DefaultThresholds
	if v.Share >= profile.CandidateShare && sum.ParkShare <= th.MaxParkRatio*v.Share {
		v.Spin, v.Kind = true, inspect.SleepPoll
		v.Detail += fmt.Sprintf("; the profile measured the loop at %.0f%% of CPU (%.2f cores) with parking at %.0f%%: "+
			"the sleep is zero or too short to park", v.Share, v.Cores, sum.ParkShare)
		return
	}
	v.Detail += fmt.Sprintf("; the profile measured the loop at %.0f%% of CPU with parking at %.0f%%: not enough to call it a spin",
		v.Share, sum.ParkShare)
}

func spinOf(s *profile.Summary, kind string) profile.Spin {
	for _, sp := range s.Spins {
		if sp.Kind == kind {
			return sp
		}
	}
	return profile.Spin{Kind: kind}
}

// inSpin reports whether a finding's first location lies in a loop the
// source showed spinning.
func inSpin(f finding.Finding, loops []LoopVerdict) bool {
	if len(f.Locations) == 0 {
		return false
	}
	l := f.Locations[0]
	for _, v := range loops {
		if v.Spin && v.File == l.File && l.Line >= v.Start && l.Line <= v.End {
			return true
		}
	}
	return false
}

// spinFinding is SD204 for a loop the source confirmed, at its spinning
// line, with the measured cost and the source's evidence.
func spinFinding(v LoopVerdict, sum *profile.Summary) finding.Finding {
	r, _ := finding.Lookup("SD204")
	what, fix := spinWords(v.Kind)
	f := finding.Finding{
		Rule:     "SD204",
		Severity: r.Severity,
		What: fmt.Sprintf("%.0f%% of CPU (%.2f cores) %s in the loop at %s:%d-%d",
			v.Share, v.Cores, what, filepath.Base(v.File), v.Start, v.End),
		Because:   fmt.Sprintf("the source shows: %s; parking takes %.0f%% of CPU", v.Detail, sum.ParkShare),
		Locations: spinLocs(v),
		Evidence: []finding.Evidence{
			{Label: "share of the profile's CPU time in the loop", Value: round(v.Share), Unit: "%"},
			{Label: "cores (CPU time / profile duration)", Value: round(v.Cores), Unit: "cores"},
			{Label: "at the loop's own lines (user frames and the select/Gosched frames under them)", Value: round(v.OwnShare), Unit: "%"},
			{Label: "Gosched CPU with no user frame, attributed to this loop", Value: round(v.CutShare), Unit: "%"},
			{Label: "parking (scheduler, idle spinning, thread churn)", Value: round(sum.ParkShare), Unit: "%"},
			{Label: "source: loop start (" + string(v.Kind) + ": " + v.Detail + ")", Value: float64(v.Start), Unit: "line"},
			{Label: "source: loop end", Value: float64(v.End), Unit: "line"},
		},
		Fix:     fix,
		Sources: []string{string(finding.SourceProfile), string(finding.SourceLint)},
	}
	if v.CutShare > 0 {
		f.Note(finding.NoteLink, fmt.Sprintf("%.0f%% of it is Gosched's own cost, cut from the stacks by mcall", v.CutShare))
	}
	park := profile.DefaultThresholds.MaxParkRatio
	f.Severity = finding.SpinSeverity(v.Share, v.Cores)
	switch {
	case v.Cores < finding.SpinWarningCores:
		f.Note(finding.NoteQualifier, fmt.Sprintf("only %.3f cores, cheap at this load", v.Cores))
	case sum.ParkShare > park*v.Share:
		// The program parks as much as this loop spins: the spin is
		// bounded by contention (a spin lock under load) rather than a
		// wait that never blocks. The corpus's ants pool: its Gosched
		// spin lock at 23% of the CPU, parking 22%.
		f.Severity = finding.Info
		f.Note(finding.NoteQualifier, fmt.Sprintf("the program parks as much (%.0f%% of CPU), so this spin is bounded by contention "+
			"rather than a wait that never blocks", sum.ParkShare))
	}
	return f
}

func spinWords(k inspect.Kind) (what, fix string) {
	switch k {
	case inspect.SelectDefault:
		return "busy-waits in a select with a default",
			"remove the default so the select blocks until a case is ready, or wait on the event (a channel close, " +
				"ctx.Done()) in a blocking select (see SD101)"
	case inspect.YieldSpin:
		return "busy-waits yielding with runtime.Gosched",
			"block on the event (a channel close, sync.WaitGroup, sync.Cond) instead of yielding in a loop (see SD106)"
	case inspect.AtomicSpin:
		return "busy-waits re-reading a flag or an atomic",
			"wait on a channel, sync.Cond or sync.WaitGroup that the writer signals instead of re-reading the value (see SD106)"
	case inspect.SleepPoll:
		return "polls with a short time.Sleep",
			"block on the event (a channel, sync.Cond) instead of sleeping and checking again (see SD102)"
	}
	return "spins", "block on the event instead of looping"
}

func round(v float64) float64 {
	if v >= 10 {
		return float64(int64(v*10+0.5)) / 10
	}
	return float64(int64(v*1000+0.5)) / 1000
}

// spinLocs are a spin's locations: the spinning operation, the loop's
// first line, then the hot lines the profile measured in it.
func spinLocs(v LoopVerdict) []finding.Location {
	lines := []int{v.SpinLine}
	if v.Start > 0 && v.Start != v.SpinLine {
		lines = append(lines, v.Start)
	}
	for _, l := range v.Lines {
		if !slices.Contains(lines, l) && len(lines) < 5 {
			lines = append(lines, l)
		}
	}
	locs := make([]finding.Location, len(lines))
	for i, l := range lines {
		locs[i] = finding.Location{File: v.File, Line: l, Function: v.Function}
	}
	return locs
}
