package procs

import (
	"fmt"
	"io"
	"strings"

	"github.com/schedoctor/schedoctor/internal/textlayout"
	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// WriteText prints the summary as the table the text report starts with:
// what was inspected, the CPU sets, the cgroup chain leaf first, memory, the
// binary, the environment, then GOMAXPROCS (live or computed, said which)
// against the CPUs available.
//
// It fits 80 columns: each value is wrapped under its key.
func (s *Summary) WriteText(w io.Writer) error { return s.WriteTextWidth(w, 80) }

// WriteTextWidth prints the table within width columns (0: one line per
// row however wide). Values are word-wrapped under their key, and a path
// too long for a line is shortened in its middle (-wide and -json have it
// whole); every string
// read from the process or the sysroot (its name, paths, environment,
// errors quoting file contents) is escaped (textsafe): a process chooses
// its own name and environment.
func (s *Summary) WriteTextWidth(w io.Writer, width int) error {
	type kv struct{ key, value string }
	var rows []kv
	row := func(key, format string, args ...any) {
		rows = append(rows, kv{key, textsafe.String(fmt.Sprintf(format, args...))})
	}

	target := "the current process's context"
	if s.Target.PID != 0 {
		target = fmt.Sprintf("pid %d", s.Target.PID)
		if s.Target.Name != "" {
			target += " (" + s.Target.Name + ")"
		}
	}
	if s.Target.Sysroot != "/" {
		target += ", sysroot " + s.Target.Sysroot
	}
	row("target", "%s", target)

	c := s.CPUs
	var sets []string
	if c.Affinity > 0 {
		sets = append(sets, fmt.Sprintf("affinity %d (%s, %s)", c.Affinity, c.AffinityList, c.AffinitySource))
	}
	if c.Cpuset > 0 {
		sets = append(sets, fmt.Sprintf("cpuset %d (%s)", c.Cpuset, c.CpusetList))
	}
	if c.Online > 0 {
		sets = append(sets, fmt.Sprintf("online %d (%s)", c.Online, c.OnlineList))
	}
	row("CPUs", "%s", orNone(strings.Join(sets, "; ")))

	cg := s.Cgroup
	if cg.Leaf != "" {
		row("cgroup", "%s, leaf %s", cg.Version, cg.Leaf)
	} else {
		row("cgroup", "%s", cg.Version)
	}
	for i, l := range cg.Levels {
		key := ""
		if i == 0 {
			key = "  cpu limit"
		}
		row(key, "%s", levelWords(l))
	}
	if p := cg.Pressure; p != nil {
		row("  pressure", "some avg10 %.2f%% avg60 %.2f%% avg300 %.2f%% (%s)", p.Avg10, p.Avg60, p.Avg300, p.File)
	}
	if p := cg.HostPressure; p != nil {
		row("host pressure", "some avg10 %.2f%% avg60 %.2f%% avg300 %.2f%% (%s; the whole machine, context only)", p.Avg10, p.Avg60, p.Avg300, p.File)
	}
	if w := s.CPUWait; w != nil {
		if w.WindowSeconds > 0 {
			row("CPU wait", "%.1f%% of runnable time: %s waiting, %s running over %s, %.2f threads waiting on average (%s, %d threads)",
				100*w.Share, secs(w.WaitSeconds), secs(w.RunSeconds), secs(w.WindowSeconds), w.WaitingThreads, w.Files, w.Threads)
		} else {
			row("CPU wait", "%.1f%% of runnable time: %s waiting, %s running over the threads' lifetimes (%s, %d threads)",
				100*w.Share, secs(w.WaitSeconds), secs(w.RunSeconds), w.Files, w.Threads)
		}
	}
	if m := s.Memory; m != nil {
		row("memory", "limit %s (%s)", bytesWords(m.LimitBytes), m.File)
	} else {
		row("memory", "no limit")
	}
	row("binary", "%s", binaryWords(s.Binary))
	row("environment", "%s", envWords(s.Env))

	g := s.GOMAXPROCS
	switch {
	case g.Value == 0:
		row("GOMAXPROCS", "does not apply: %s", g.Reason)
	case g.Origin == "live":
		row("GOMAXPROCS", "%d, read from the live process (%s)", g.Value, g.Reason)
		if g.Computed != g.Value {
			row("", "computed from the rules: %d", g.Computed)
		}
	default:
		row("GOMAXPROCS", "%d, computed: %s", g.Value, g.Reason)
		if g.LiveError != "" {
			row("", "(live value not readable: %s)", g.LiveError)
		}
	}
	row("available", "%s (%s) -> recommended GOMAXPROCS %d; the Go 1.25+ default here is %d",
		cpuCount(c.Available), c.AvailableFrom, g.Recommended, g.DefaultWouldBe)
	for i, wmsg := range s.Warnings {
		key := ""
		if i == 0 {
			key = "warnings"
		}
		row(key, "%s", wmsg)
	}
	for i, n := range s.Notes {
		key := ""
		if i == 0 {
			key = "notes"
		}
		row(key, "%s", n)
	}
	kw := 0
	for _, r := range rows {
		kw = max(kw, textlayout.Width(r.key))
	}
	kw += 2
	var b strings.Builder
	for _, r := range rows {
		key := r.key + strings.Repeat(" ", kw-textlayout.Width(r.key))
		b.WriteString(textlayout.WrapFit(key, strings.Repeat(" ", kw+2), r.value, width))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func levelWords(l Level) string {
	var b strings.Builder
	switch {
	case l.Quota == nil && l.QuotaFile != "":
		fmt.Fprintf(&b, "unreadable  %s (see warnings)", l.QuotaFile)
	case l.Quota == nil:
		fmt.Fprintf(&b, "no quota file  %s", l.Dir)
	case l.Quota.Limited:
		fmt.Fprintf(&b, "%s (%d/%d us)  %s", cpuCount(l.LimitCPUs), l.Quota.QuotaUS, l.Quota.PeriodUS, l.QuotaFile)
	default:
		fmt.Fprintf(&b, "no limit  %s", l.QuotaFile)
	}
	if t := l.Throttling; t != nil && t.Periods > 0 {
		fmt.Fprintf(&b, "; throttled %d of %d periods (%.1f%%), %.1f s",
			t.Throttled, t.Periods, float64(t.Throttled)/float64(t.Periods)*100, t.ThrottledSeconds)
	}
	return b.String()
}

func binaryWords(b *Binary) string {
	switch {
	case b == nil:
		return "none given (figures for a Go program started in this context)"
	case !b.IsGo:
		return b.Path + ": " + b.Error
	}
	parts := []string{b.GoVersion, "go line " + b.GoLine.String() + " (inferred from DefaultGODEBUG)"}
	if b.ContainerMaxProcs != "" {
		parts = append(parts, "containermaxprocs="+b.ContainerMaxProcs, "updatemaxprocs="+b.UpdateMaxProcs)
	}
	if b.Automaxprocs != "" {
		parts = append(parts, "links go.uber.org/automaxprocs "+b.Automaxprocs)
	}
	return b.Path + ": " + strings.Join(parts, ", ")
}

func envWords(e Env) string {
	if !e.Read {
		return "unknown (" + e.File + " unreadable)"
	}
	var parts []string
	for _, kv := range []struct {
		k string
		v *string
	}{{"GOMAXPROCS", e.GOMAXPROCS}, {"GODEBUG", e.GODEBUG}, {"GOMEMLIMIT", e.GOMEMLIMIT}} {
		if kv.v == nil {
			parts = append(parts, kv.k+" unset")
		} else {
			parts = append(parts, kv.k+"="+*kv.v)
		}
	}
	return strings.Join(parts, ", ") + " (" + e.File + ")"
}
