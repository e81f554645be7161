package exectrace

import (
	"context"
	"os"
	"strings"
	"testing"
)

func TestZZDev(t *testing.T) {
	for _, f := range strings.Fields(os.Getenv("DEVTRACES")) {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Analyze(context.Background(), r, Options{CPUs: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("== %s thin=%q spin=%.1f procCPU=%v cores=%.2f busy/core=%.0f%%", f, res.Summary.Thin, res.Summary.SpinPct, res.Summary.Procs.ProcessCPU, res.Summary.Procs.ProcessCores, res.Summary.Procs.BusyPerCorePct)
		for _, sp := range res.Summary.Spinning {
			t.Logf("  spin %+v", sp)
		}
		for _, x := range res.Findings {
			t.Logf("  %s %v %s @ %v src=%v", x.Rule, x.Severity, x.Message, x.Locations, x.Sources)
		}
	}
}

func TestZZGC(t *testing.T) {
	r, _ := os.Open("/tmp/r3/gc.trace")
	res, err := Analyze(context.Background(), r, Options{CPUs: 2})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Summary.GC
	t.Logf("cycles %d forced %d stw %v forcedSTW %v by %+v longest %+v pct %v", g.Cycles, g.ForcedCycles, g.STW.Total, g.STWForced, g.ForcedBy, g.STWLongest, g.STWPct)
}
