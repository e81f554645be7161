package profile

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/viz"
)

// TestFlame: the flame graph of a lab profile holds all its CPU, coloured
// by the causes of the summary, within its node bound.
func TestFlame(t *testing.T) {
	for _, name := range []string{"busyselect", "gcpressure", "mutex", "syscallheavy"} {
		t.Run(name, func(t *testing.T) {
			p, err := ReadFile(context.Background(), filepath.Join("testdata", "lab", name+".pb.gz"), ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Analyze([]*pprof.Profile{p}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			v := res.Summary.Visuals()
			f := v.Flame
			if f == nil {
				t.Fatal("no flame graph")
			}
			if got, want := float64(f.Total)/1e9, res.Summary.CPUSeconds; math.Abs(got-want) > 1e-9 {
				t.Errorf("flame graph total %.3fs, profile CPU %.3fs", got, want)
			}
			if f.Nodes > flameMaxNodes+1 {
				t.Errorf("%d nodes, over the bound %d", f.Nodes, flameMaxNodes)
			}
			// The root's CPU by cause is the summary's cause table.
			byCause := map[string]int64{}
			for _, cv := range f.Root.CauseValues {
				byCause[f.Causes[cv[0]]] = cv[1]
			}
			if len(f.Root.CauseValues) == 0 {
				byCause[f.Causes[f.Root.Cause]] = f.Root.Value
			}
			for _, c := range res.Summary.Causes {
				if got := float64(byCause[string(c.Cause)]) / 1e9; math.Abs(got-c.CPUSeconds) > 1e-9 {
					t.Errorf("cause %s: %.3fs in the flame graph, %.3fs in the summary", c.Cause, got, c.CPUSeconds)
				}
			}
			if len(v.Causes) != len(res.Summary.Causes) {
				t.Errorf("%d causes drawn, %d in the summary", len(v.Causes), len(res.Summary.Causes))
			}
			// Children never hold more than their parent.
			checkSums(t, f.Root)
		})
	}
}

func checkSums(t *testing.T, n *viz.FlameNode) {
	t.Helper()
	var sum int64
	for _, c := range n.Children {
		sum += c.Value
		checkSums(t, c)
	}
	if sum > n.Value {
		t.Errorf("children hold %d, their parent %d", sum, n.Value)
	}
}

// TestNoFlame: Options.NoFlame leaves the flame graph out, and nothing
// else: the findings and the summary are those of the analysis with it.
func TestNoFlame(t *testing.T) {
	p, err := ReadFile(context.Background(), filepath.Join("testdata", "lab", "busyselect.pb.gz"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	with, err := Analyze([]*pprof.Profile{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	without, err := Analyze([]*pprof.Profile{p}, Options{NoFlame: true})
	if err != nil {
		t.Fatal(err)
	}
	if without.Summary.Flame != nil || with.Summary.Flame == nil {
		t.Fatalf("flame graphs: %v with NoFlame, %v without", without.Summary.Flame != nil, with.Summary.Flame != nil)
	}
	with.Summary.Flame = nil
	if len(with.Findings) == 0 || !reflect.DeepEqual(with.Findings, without.Findings) || !reflect.DeepEqual(with.Summary, without.Summary) {
		a, _ := json.Marshal(with)
		b, _ := json.Marshal(without)
		t.Errorf("the analysis differs without the flame graph:\n%s\n%s", a, b)
	}
}
