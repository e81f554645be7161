package sweep

import (
	"encoding/json"
	"os"
	"testing"
)

// TestVisuals: the curves carry every swept value with its interval, the
// CPU between its runs' extremes, and the knee marked.
func TestVisuals(t *testing.T) {
	for _, name := range []string{"cpubound", "load", "lockcontend"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile("testdata/" + name + ".json")
			if err != nil {
				t.Fatal(err)
			}
			var j struct {
				Summary *Summary `json:"summary"`
			}
			if err := json.Unmarshal(data, &j); err != nil {
				t.Fatal(err)
			}
			s := j.Summary
			v := s.Visuals()
			if v == nil || len(v.Curves) != 2 {
				t.Fatalf("visuals %+v, want two curves", v)
			}
			metric, cpu := v.Curves[0], v.Curves[1]
			if len(metric.Points) != len(s.Points) || len(cpu.Points) != len(s.Points) {
				t.Errorf("%d and %d points, %d values swept", len(metric.Points), len(cpu.Points), len(s.Points))
			}
			if int(metric.Mark) != s.Knee {
				t.Errorf("mark at %v, knee %d", metric.Mark, s.Knee)
			}
			for i, p := range metric.Points {
				if p.Lo > p.Y || p.Y > p.Hi {
					t.Errorf("metric point %d: %v outside [%v, %v]", i, p.Y, p.Lo, p.Hi)
				}
				if c := cpu.Points[i]; c.Lo > c.Y+1e-9 || c.Y > c.Hi+1e-9 {
					t.Errorf("CPU point %d: median %v outside its runs' range [%v, %v]", i, c.Y, c.Lo, c.Hi)
				}
			}
		})
	}
	if (&Summary{}).Visuals() != nil {
		t.Error("a sweep with no points has pictures")
	}
}
