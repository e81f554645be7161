package sweep

import (
	"github.com/schedoctor/schedoctor/internal/textsafe"

	"fmt"
	"math"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/sweep/stats"
)

// Findings turns the summary into SD501 (the knee, always one when any
// value succeeded) and SD502 (negative scaling, the worst drop, when any).
func (s *Summary) Findings() []finding.Finding {
	knee, ok := s.point(s.Knee)
	if !ok {
		return nil
	}
	best, _ := s.point(s.Best)
	loc := []finding.Location{{File: s.Command[0], Function: "GOMAXPROCS"}}
	var out []finding.Finding

	f := finding.Finding{Rule: "SD501", Severity: finding.Info, Locations: loc}
	if s.Knee == s.Best {
		f.What = fmt.Sprintf("GOMAXPROCS=%d is the knee", s.Knee)
		f.Because = fmt.Sprintf("it has the best median %s (%s), and no smaller value comes within %g%% of it",
			s.metricLabel(), s.fmtVal(knee.Median), 100*s.Tolerance)
	} else {
		f.What = fmt.Sprintf("GOMAXPROCS=%d is the knee", s.Knee)
		f.Because = fmt.Sprintf("its median %s (%s) is within %g%% of the best (%s at GOMAXPROCS=%d)",
			s.metricLabel(), s.fmtVal(knee.Median), 100*s.Tolerance, s.fmtVal(best.Median), s.Best)
	}
	for _, p := range s.Points {
		f.Evidence = append(f.Evidence, finding.Evidence{
			Label: fmt.Sprintf("median %s at GOMAXPROCS=%d (%d runs)", s.metricLabel(), p.Procs, p.N),
			Value: round(p.Median), Unit: s.Unit,
		})
	}
	f.Evidence = append(f.Evidence,
		finding.Evidence{Label: fmt.Sprintf("interval of the median at GOMAXPROCS=%d, low", s.Knee), Value: round(knee.Lo), Unit: s.Unit},
		finding.Evidence{Label: fmt.Sprintf("interval of the median at GOMAXPROCS=%d, high", s.Knee), Value: round(knee.Hi), Unit: s.Unit},
		finding.Evidence{Label: "interval coverage", Value: round(100 * s.Confidence), Unit: "%"},
		finding.Evidence{Label: "tolerance", Value: round(100 * s.Tolerance), Unit: "%"},
		finding.Evidence{Label: "CPUs", Value: float64(s.CPUs), Unit: "CPUs"},
	)
	// The disturbance of every value, not only the smallest: a busy machine
	// at any value can move the knee.
	for _, p := range s.Points {
		f.Evidence = append(f.Evidence, finding.Evidence{
			Label: fmt.Sprintf("CPU wait at GOMAXPROCS=%d beyond its own (run-queue wait / wall / P; above %.0f%% the machine was busy)", p.Procs, 100*noisyCPUWait),
			Value: round(100 * p.ExcessWait), Unit: "%"})
		if p.OtherCPUs >= 0 {
			f.Evidence = append(f.Evidence, finding.Evidence{
				Label: fmt.Sprintf("CPU used by other processes during the runs at GOMAXPROCS=%d (above %.0f%% of the CPUs the machine was busy)", p.Procs, 100*busyOtherShare),
				Value: round(p.OtherCPUs), Unit: "CPUs"})
		}
	}
	f.Fix = fmt.Sprintf("run it with GOMAXPROCS=%d (env GOMAXPROCS=%d %s)", s.Knee, s.Knee, textsafe.ShellQuote(s.Command[0]))
	if s.Knee < s.CPUs {
		f.Fix += fmt.Sprintf(", or set its container's CPU limit to %d (since Go 1.25 the default GOMAXPROCS follows the limit)", s.Knee)
	}
	// Reasons to withhold the recommendation, each from a measured figure.
	var withhold []string
	if lower, ok := s.below(s.Knee); ok && overlap(lower, knee) {
		withhold = append(withhold, fmt.Sprintf("no clear knee: the intervals of GOMAXPROCS=%d (%s–%s) and GOMAXPROCS=%d (%s–%s) overlap",
			lower.Procs, s.fmtVal(lower.Lo), s.fmtVal(lower.Hi), knee.Procs, s.fmtVal(knee.Lo), s.fmtVal(knee.Hi)))
	}
	if s.CPUs > 0 && s.Knee > s.CPUs {
		withhold = append(withhold, fmt.Sprintf("GOMAXPROCS=%d is more Ps than the %d CPUs available: the extra Ps can only gain by "+
			"taking CPU from other processes (the kernel shares CPUs per thread) or by hiding goroutines that spin", s.Knee, s.CPUs))
	}
	if len(s.Disturbed) > 0 {
		var at []string
		for _, d := range s.Disturbed {
			at = append(at, fmt.Sprintf("GOMAXPROCS=%d: %s", d.Procs, d.Why))
		}
		withhold = append(withhold, "the machine was busy during the runs at "+strings.Join(at, "; at "))
	}
	if len(withhold) > 0 {
		f.Note(finding.NoteQualifier, "not recommended: "+strings.Join(withhold, "; "))
		var do string
		switch {
		case len(s.Disturbed) > 0:
			do = "sweep again when the machine is quiet, or with more runs per value so that noise averages out"
			f.AddHint(finding.HintRuns, "more runs per value")
		case s.CPUs > 0 && s.Knee > s.CPUs:
			do = fmt.Sprintf("keep GOMAXPROCS at or below the %d CPUs, and profile the command (schedoctor profile) at GOMAXPROCS=%d to see what the extra Ps run", s.CPUs, s.Knee)
		default:
			do = "sweep again with more runs per value to narrow the intervals"
			f.AddHint(finding.HintRuns, "more runs per value")
		}
		if s.CPUs > 0 && s.Knee > s.CPUs {
			do += fmt.Sprintf("; never more than the %d CPUs", s.CPUs)
		}
		f.Fix = "no GOMAXPROCS is recommended from these runs: " + do
	} else if def, ok := s.point(s.CPUs); ok && s.CPUs != s.Knee && worseBeyond(def, knee, s.Better, s.Tolerance) {
		// When the default (GOMAXPROCS = CPUs) was swept and is clearly worse
		// than the knee, the advice matters: say so and warn.
		f.Severity = finding.Warning
		f.Note(finding.NoteQualifier, fmt.Sprintf("the default, GOMAXPROCS=%d (the CPU count), is %.0f%% worse", s.CPUs, 100*math.Abs(relDiff(def.Median, knee.Median))))
		f.Evidence = append(f.Evidence, finding.Evidence{Label: fmt.Sprintf("median %s at the default GOMAXPROCS=%d", s.metricLabel(), s.CPUs), Value: round(def.Median), Unit: s.Unit})
	}
	out = append(out, f)

	if len(s.Drops) > 0 {
		d := s.Drops[0]
		from, _ := s.point(d.From)
		to, _ := s.point(d.To)
		verb := "falls"
		if s.Better == stats.Lower {
			verb = "rises"
		}
		g := finding.Finding{
			Rule: "SD502", Severity: finding.Warning, Locations: loc,
			What: fmt.Sprintf("%s %s %.0f%% from GOMAXPROCS=%d to GOMAXPROCS=%d (median %s → %s)",
				s.metricLabel(), verb, 100*d.Change, d.From, d.To, s.fmtVal(from.Median), s.fmtVal(to.Median)),
			Because: "more Ps make it slower, beyond both intervals",
			Evidence: []finding.Evidence{
				{Label: fmt.Sprintf("median at GOMAXPROCS=%d", d.From), Value: round(from.Median), Unit: s.Unit},
				{Label: fmt.Sprintf("interval at GOMAXPROCS=%d, low", d.From), Value: round(from.Lo), Unit: s.Unit},
				{Label: fmt.Sprintf("interval at GOMAXPROCS=%d, high", d.From), Value: round(from.Hi), Unit: s.Unit},
				{Label: fmt.Sprintf("median at GOMAXPROCS=%d", d.To), Value: round(to.Median), Unit: s.Unit},
				{Label: fmt.Sprintf("interval at GOMAXPROCS=%d, low", d.To), Value: round(to.Lo), Unit: s.Unit},
				{Label: fmt.Sprintf("interval at GOMAXPROCS=%d, high", d.To), Value: round(to.Hi), Unit: s.Unit},
				{Label: "change", Value: round(100 * d.Change), Unit: "%"},
				{Label: "pairs of GOMAXPROCS values that scale negatively", Value: float64(len(s.Drops)), Unit: "pairs"},
				{Label: fmt.Sprintf("involuntary context switches at GOMAXPROCS=%d, median", d.From), Value: from.InvoluntarySwitches, Unit: "switches"},
				{Label: fmt.Sprintf("involuntary context switches at GOMAXPROCS=%d, median", d.To), Value: to.InvoluntarySwitches, Unit: "switches"},
			},
			Fix: fmt.Sprintf("find the contended resource (schedoctor profile, or a mutex profile at GOMAXPROCS=%d) and shard it; until then cap GOMAXPROCS at %d",
				d.To, min(s.Knee, max(s.CPUs, 1))),
		}
		// A drop measured on a busy machine may be the other load's doing.
		for _, p := range []Point{from, to} {
			if p.Disturbed {
				g.Severity = finding.Info
				g.Note(finding.NoteThin, fmt.Sprintf("but the machine was busy during the runs at GOMAXPROCS=%d (%s), so the drop may be the other load's", p.Procs, s.disturbedWhy(p)))
				break
			}
		}
		out = append(out, g)
	}
	return out
}

// below returns the swept value just below GOMAXPROCS p, if any.
func (s *Summary) below(p int) (Point, bool) {
	var out Point
	ok := false
	for _, pt := range s.Points {
		if pt.Procs < p {
			out, ok = pt, true
		}
	}
	return out, ok
}

// overlap reports whether two values' intervals of the median share any
// value: then neither is shown better than the other.
func overlap(a, b Point) bool {
	return a.Lo <= b.Hi && b.Lo <= a.Hi
}

// worseBeyond reports whether a is worse than b beyond both intervals and
// the tolerance, each with enough runs to tell.
func worseBeyond(a, b Point, better stats.Better, tol float64) bool {
	if a.N < minRunsToCompare || b.N < minRunsToCompare {
		return false
	}
	if better == stats.Higher {
		return a.Hi < b.Lo && a.Median < b.Median*(1-tol)
	}
	return a.Lo > b.Hi && a.Median > b.Median*(1+tol)
}

// round keeps evidence readable: 4 significant digits.
func round(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	p := math.Pow(10, float64(3-int(math.Floor(math.Log10(math.Abs(v))))))
	return math.Round(v*p) / p
}
