package sweep

import (
	"fmt"
	"math"

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
		f.Message = fmt.Sprintf("GOMAXPROCS=%d is the knee because it has the best median %s (%s), and no smaller value comes within %g%% of it",
			s.Knee, s.metricLabel(), s.fmtVal(knee.Median), 100*s.Tolerance)
	} else {
		f.Message = fmt.Sprintf("GOMAXPROCS=%d is the knee because its median %s (%s) is within %g%% of the best (%s at GOMAXPROCS=%d)",
			s.Knee, s.metricLabel(), s.fmtVal(knee.Median), 100*s.Tolerance, s.fmtVal(best.Median), s.Best)
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
		finding.Evidence{Label: fmt.Sprintf("CPU wait at GOMAXPROCS=%d (run-queue wait / wall / P; above 10%% the machine was busy)", s.Points[0].Procs),
			Value: round(100 * s.CPUWait), Unit: "%"},
	)
	f.Fix = fmt.Sprintf("run it with GOMAXPROCS=%d (env GOMAXPROCS=%d %s)", s.Knee, s.Knee, s.Command[0])
	if s.Knee < s.CPUs {
		f.Fix += fmt.Sprintf(", or set its container's CPU limit to %d (since Go 1.25 the default GOMAXPROCS follows the limit)", s.Knee)
	}
	// When the default (GOMAXPROCS = CPUs) was swept and is clearly worse
	// than the knee, the advice matters: say so and warn.
	if def, ok := s.point(s.CPUs); ok && s.CPUs != s.Knee && worseBeyond(def, knee, s.Better, s.Tolerance) {
		f.Severity = finding.Warning
		f.Message += fmt.Sprintf("; the default, GOMAXPROCS=%d (the CPU count), is %.0f%% worse", s.CPUs, 100*math.Abs(relDiff(def.Median, knee.Median)))
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
			Message: fmt.Sprintf("%s %s %.0f%% from GOMAXPROCS=%d to GOMAXPROCS=%d (median %s → %s) because more Ps make it slower, beyond both intervals",
				s.metricLabel(), verb, 100*d.Change, d.From, d.To, s.fmtVal(from.Median), s.fmtVal(to.Median)),
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
				d.To, s.Knee),
		}
		out = append(out, g)
	}
	return out
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
