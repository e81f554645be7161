package procs

import (
	"fmt"
	"math"
	"strconv"

	"github.com/schedoctor/schedoctor/procs/gobin"
)

// compute fills CPUs.Available and GOMAXPROCS from the figures read.
func compute(s *Summary, opt Options, live bool) {
	c := &s.CPUs
	s.available.leafQuota = math.Inf(1)
	if len(s.Cgroup.Levels) > 0 && s.Cgroup.Levels[0].LimitCPUs > 0 {
		s.available.leafQuota = s.Cgroup.Levels[0].LimitCPUs
	}
	s.available.tightest, s.available.tightestIdx = tightest(s.Cgroup.Levels)

	c.Available, c.AvailableFrom, c.AvailableFile = math.Inf(1), "", ""
	if c.Affinity > 0 {
		c.Available, c.AvailableFrom, c.AvailableFile = float64(c.Affinity), "affinity", s.statusFile
	}
	if c.Cpuset > 0 && float64(c.Cpuset) < c.Available {
		c.Available, c.AvailableFrom, c.AvailableFile = float64(c.Cpuset), "cpuset", c.CpusetFile
	}
	if i := s.available.tightestIdx; i >= 0 && s.available.tightest < c.Available {
		l := s.Cgroup.Levels[i]
		from := "leaf cgroup quota"
		if i > 0 {
			from = "parent cgroup quota"
		}
		c.Available, c.AvailableFrom, c.AvailableFile = l.LimitCPUs, from, l.QuotaFile
	}
	if math.IsInf(c.Available, 1) {
		// Neither affinity nor a limit: fall back to the online CPUs.
		c.Available, c.AvailableFrom = float64(c.Online), "online"
	}

	g := &s.GOMAXPROCS
	g.Recommended = max(1, ceilCPUs(c.Available))
	affinity := c.Affinity
	if affinity == 0 {
		affinity = max(c.Online, 1)
	}
	g.DefaultWouldBe = containerDefault(affinity, s.available.leafQuota)

	if s.Binary != nil && s.Binary.NotGo {
		g.Rule, g.Reason = "none", "the target is not a Go program"
		return
	}
	g.Computed, g.Rule, g.Reason = rules(s, affinity)
	g.Value, g.Origin = g.Computed, "computed"

	if live && opt.PID != 0 && s.Binary != nil && s.Binary.IsGo {
		exe := fmt.Sprintf("/proc/%d/exe", opt.PID)
		v, err := gobin.ReadLiveGOMAXPROCS(opt.PID, exe)
		if err != nil {
			g.LiveError = err.Error()
			return
		}
		g.Live, g.Value, g.Origin = v, v, "live"
		if v != g.Computed && g.Rule != "env" {
			g.Rule = "call"
			g.Reason = fmt.Sprintf("the live value %d differs from the %d its Go version's rules give (%s): "+
				"the program calls runtime.GOMAXPROCS, or its cgroup limit changed", v, g.Computed, g.Reason)
		}
	}
}

// containerDefault is Go 1.25+'s default (runtime.defaultGOMAXPROCS): the
// affinity count, lowered to the leaf quota rounded up but not below 2.
func containerDefault(affinity int, leafQuota float64) int {
	if math.IsInf(leafQuota, 1) {
		return affinity
	}
	return min(affinity, max(2, ceilCPUs(leafQuota)))
}

// rules applies the target's Go version's rules: the variable, then
// automaxprocs (it honours the variable too), then the runtime's default.
func rules(s *Summary, affinity int) (int, string, string) {
	if v := s.Env.GOMAXPROCS; v != nil {
		if n, err := strconv.ParseInt(*v, 10, 32); err == nil && n > 0 {
			return int(n), "env", fmt.Sprintf("GOMAXPROCS=%s in the environment", *v)
		}
	}
	b := s.Binary
	if b == nil || !b.IsGo {
		// No binary (or an unreadable one): what a program built with Go
		// 1.25+ and go ≥ 1.25 gets here.
		what := "no binary given"
		if b != nil {
			what = "binary unreadable"
		}
		return s.GOMAXPROCS.DefaultWouldBe, "default-container",
			what + ": the Go 1.25+ default, " + defaultWords(affinity, s.available.leafQuota)
	}
	if b.Automaxprocs != "" && !math.IsInf(s.available.leafQuota, 1) {
		n := max(1, int(math.Floor(s.available.leafQuota+1e-9)))
		return n, "automaxprocs", fmt.Sprintf("go.uber.org/automaxprocs %s: the leaf quota of %s rounded down (cpusets ignored)",
			b.Automaxprocs, cpuCount(s.available.leafQuota))
	}
	if b.Minor >= 25 && b.ContainerMaxProcs != "0" {
		return s.GOMAXPROCS.DefaultWouldBe, "default-container", fmt.Sprintf("%s default: %s", b.GoVersion, defaultWords(affinity, s.available.leafQuota))
	}
	why := fmt.Sprintf("%s predates container-aware GOMAXPROCS (1.25)", b.GoVersion)
	if b.Minor >= 25 {
		why = "containermaxprocs=0 (" + containerOffWhere(s) + ")"
	}
	return affinity, "default-cpus", fmt.Sprintf("the %d CPUs of the affinity mask, cgroup limits ignored: %s", affinity, why)
}

func defaultWords(affinity int, leafQuota float64) string {
	if math.IsInf(leafQuota, 1) {
		return fmt.Sprintf("the %d CPUs of the affinity mask (no leaf quota)", affinity)
	}
	return fmt.Sprintf("the %d CPUs of the affinity mask lowered to the leaf quota %s CPUs rounded up, at least 2",
		affinity, cpus(leafQuota))
}

// containerOffWhere says where containermaxprocs=0 comes from.
func containerOffWhere(s *Summary) string {
	if v, ok := gobin.Setting(deref(s.Env.GODEBUG), "containermaxprocs"); ok && v == "0" {
		return "GODEBUG in the environment"
	}
	b := s.Binary
	if b.GoLine.Known && b.GoLine.Max < 25 {
		return fmt.Sprintf("DefaultGODEBUG: the main module's go line is %s", b.GoLine)
	}
	return "DefaultGODEBUG, from a //go:debug directive or a godebug line in go.mod"
}

// cpuCount is cpus with the noun: "1 CPU", "1.5 CPUs".
func cpuCount(v float64) string {
	if cpus(v) == "1" {
		return "1 CPU"
	}
	return cpus(v) + " CPUs"
}

// cpus prints a CPU count compactly: "2", "1.5", "0.25".
func cpus(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}
