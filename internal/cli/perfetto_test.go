package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/exectrace/perfetto"
)

// TestTracePerfetto: -perfetto writes the export beside the report, which
// it leaves as it was, 0600; -at and -span narrow it; -perfetto-max-mb
// bounds it and a cut is a warning.
func TestTracePerfetto(t *testing.T) {
	dir := t.TempDir()
	in := traceFixtures + "pingpong.trace"
	plain, _, code := runTraceCmd(t, nil, "-nosrc", in)
	if code != ExitClean {
		t.Fatalf("exit %d", code)
	}

	whole := filepath.Join(dir, "whole.pftrace")
	stdout, stderr, code := runTraceCmd(t, nil, "-nosrc", "-perfetto", whole, in)
	if code != ExitClean || stderr != "" || stdout != plain {
		t.Fatalf("exit %d, stderr %q, report changed: %v", code, stderr, stdout != plain)
	}
	st, err := os.Lstat(whole)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 || !st.Mode().IsRegular() {
		t.Errorf("mode %v, want a regular file 0600", st.Mode())
	}
	data, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 || data[0] != 0x0a { // Trace.packet: field 1, length-delimited
		t.Fatalf("not a Perfetto trace: % x", data[:min(len(data), 8)])
	}

	win := filepath.Join(dir, "win.pftrace")
	if _, stderr, code := runTraceCmd(t, nil, "-nosrc", "-perfetto", win, "-at", "5ms", "-span", "2ms", in); code != ExitClean || stderr != "" {
		t.Fatalf("window: exit %d, stderr %q", code, stderr)
	}
	if st, err := os.Stat(win); err != nil || st.Size() == 0 || st.Size() >= int64(len(data))/2 {
		t.Errorf("a 2ms window of an 18ms trace: %v bytes of the whole's %d (%v)", st.Size(), len(data), err)
	}

	cut := filepath.Join(dir, "cut.pftrace")
	_, stderr, code = runTraceCmd(t, nil, "-nosrc", "-perfetto", cut, "-perfetto-max-mb", "0.05", in)
	if code != ExitClean || !strings.Contains(stderr, "warning: "+cut+": the Perfetto window (0s to the end) was cut at") {
		t.Errorf("cut: exit %d, stderr %q", code, stderr)
	}
	if st, err := os.Stat(cut); err != nil || float64(st.Size()) > 0.05*(1<<20) {
		t.Errorf("cut: %v bytes over the limit (%v)", st.Size(), err)
	}
}

// TestTracePerfettoLink: a symbolic link at -perfetto's file is replaced,
// never followed, as -html's is.
func TestTracePerfettoLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.pftrace")
	if err := os.Symlink(victim, out); err != nil {
		t.Skip(err)
	}
	if _, stderr, code := runTraceCmd(t, nil, "-nosrc", "-perfetto", out, traceFixtures+"mutex.trace"); code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(victim); !bytes.Equal(b, []byte("keep")) {
		t.Errorf("the link's target was written: %q", b)
	}
	if st, err := os.Lstat(out); err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o600 {
		t.Errorf("out is not a regular 0600 file: %v %v", st.Mode(), err)
	}
}

func TestTracePerfettoUsage(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.pftrace")
	in := traceFixtures + "mutex.trace"
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		stdin []byte
		args  []string
		want  string
	}{
		{"at without perfetto", nil, []string{"-at", "1s", in}, "-at is for -perfetto FILE"},
		{"max without perfetto", nil, []string{"-perfetto-max-mb", "2", in}, "-perfetto-max-mb is for -perfetto FILE"},
		{"span without at", nil, []string{"-perfetto", out, "-span", "1s", in}, "-span 1s: give -at T"},
		{"negative at", nil, []string{"-perfetto", out, "-at", "-1s", in}, "-at -1s: want a time"},
		{"zero span", nil, []string{"-perfetto", out, "-at", "1s", "-span", "0s", in}, "-span 0s: want a duration above 0"},
		{"tiny limit", nil, []string{"-perfetto", out, "-perfetto-max-mb", "0.001", in}, "-perfetto-max-mb 0.001: want a size"},
		{"stdin", data, []string{"-perfetto", out, "-"}, "needs a trace file, not standard input"},
		{"url", nil, []string{"-perfetto", out, "http://127.0.0.1:1/debug/pprof/trace"}, "needs a trace file, not a URL"},
		{"window after the end", nil, []string{"-perfetto", out, "-at", "1h", in}, "the window holds no event of the trace"},
		{"the trace itself", nil, []string{"-perfetto", in, in}, "is the trace itself"},
		{"several traces", nil, []string{"-perfetto", out, in, in}, "exports one trace"},
		{"a directory", nil, []string{"-perfetto", out, filepath.Dir(in)}, "exports one trace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runTraceCmd(t, tc.stdin, tc.args...)
			if code != ExitError || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q, want %q", code, stderr, tc.want)
			}
			if _, err := os.Lstat(out); err == nil {
				t.Errorf("%s written on an error", out)
			}
		})
	}
}

// TestPerfettoWindowDefault: without -at the export is the worst spike
// (the highest p99), -span around its middle, or the whole spike when it
// is longer; -at wins; no spike, the whole trace.
func TestPerfettoWindowDefault(t *testing.T) {
	ms := time.Millisecond
	sum := &exectrace.Summary{Spikes: []exectrace.Spike{
		{Start: 100 * ms, End: 200 * ms, Latency: exectrace.Percentiles{P99: 20 * ms}},
		{Start: 1000 * ms, End: 1100 * ms, Latency: exectrace.Percentiles{P99: 90 * ms}},
		{Start: 2000 * ms, End: 2800 * ms, Latency: exectrace.Percentiles{P99: 30 * ms}},
	}}
	p := &perfettoFlags{span: 300 * ms}
	if w := perfettoWindow(p, sum); w.Start != 900*ms || w.End != 1200*ms {
		t.Errorf("worst spike: window %v, want 900ms to 1.2s", w)
	}
	sum.Spikes[1].Latency.P99 = 10 * ms // now the 800ms spike is the worst
	if w := perfettoWindow(p, sum); w.Start != 2000*ms || w.End != 2800*ms {
		t.Errorf("long spike: window %v, want the whole spike", w)
	}
	if w := perfettoWindow(&perfettoFlags{span: 300 * ms, at: 5 * time.Second, atSet: true}, sum); w.Start != 4850*ms {
		t.Errorf("-at: window %v, want around 5s", w)
	}
	if w := perfettoWindow(p, &exectrace.Summary{}); w != (perfetto.Window{}) {
		t.Errorf("no spike: window %v, want the whole trace", w)
	}
}
