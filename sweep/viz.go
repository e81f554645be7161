package sweep

import (
	"fmt"

	"github.com/schedoctor/schedoctor/viz"
)

// Visuals returns the sweep's curves for the HTML report: the knee metric's
// median against GOMAXPROCS with its confidence interval, the knee marked,
// and the CPU (user + system) each value used, with the range of its runs.
func (s *Summary) Visuals() *viz.Set {
	if s == nil || len(s.Points) == 0 {
		return nil
	}
	unit := ""
	if s.Unit != "" {
		unit = " (" + s.Unit + ")"
	}
	metric := viz.Curve{Title: s.Metric + " against GOMAXPROCS", XLabel: "GOMAXPROCS", YLabel: s.Metric + unit}
	if s.Knee > 0 {
		metric.Mark, metric.MarkLabel = float64(s.Knee), fmt.Sprintf("knee: GOMAXPROCS=%d", s.Knee)
	}
	cpu := viz.Curve{Title: "CPU against GOMAXPROCS", XLabel: "GOMAXPROCS", YLabel: "CPU seconds (user + system)",
		Mark: metric.Mark, MarkLabel: metric.MarkLabel}
	for _, p := range s.Points {
		if p.N == 0 {
			continue
		}
		metric.Points = append(metric.Points, viz.Point{X: float64(p.Procs), Y: p.Median, Lo: p.Lo, Hi: p.Hi})
		lo, hi, seen := 0.0, 0.0, false
		for _, r := range s.Runs {
			if r.Procs != p.Procs || r.Error != "" {
				continue
			}
			c := r.UserSeconds + r.SystemSeconds
			if !seen {
				lo, hi, seen = c, c, true
			}
			lo, hi = min(lo, c), max(hi, c)
		}
		if !seen {
			lo, hi = p.CPUSeconds, p.CPUSeconds
		}
		cpu.Points = append(cpu.Points, viz.Point{X: float64(p.Procs), Y: p.CPUSeconds, Lo: lo, Hi: hi})
	}
	return &viz.Set{Title: "sweep", Curves: []viz.Curve{metric, cpu}}
}
