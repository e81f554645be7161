package exectrace

import (
	"fmt"

	"github.com/schedoctor/schedoctor/finding"
)

// psAboveCPUs is SD303: more Ps running than CPUs, or than the CPU the
// process got.
func psAboveCPUs(r *ruleCtx) {
	s, opt, host, users := r.s, r.opt, r.host, r.users
	withheld := host != ""
	if (opt.CPUs > 0 && s.Procs.BusyMean >= oversubscribed*opt.CPUs) || withheld {
		var locs []finding.Location
		if len(users) > 0 {
			// where the CPU time goes: the line preemptions hit, then the go statement
			if users[0].StopAt.File != "" {
				locs = append(locs, users[0].StopAt)
			}
			if users[0].Creator.File != "" {
				locs = append(locs, users[0].Creator)
			}
		}
		ev := []finding.Evidence{
			evid("busy Ps (mean)", s.Procs.BusyMean, "Ps"),
			evid("GOMAXPROCS", float64(s.Procs.GOMAXPROCS), "Ps"),
		}
		var what, why, fix string
		if opt.CPUs > 0 {
			ev = append(ev, evid("CPUs available", opt.CPUs, "CPUs"), evid("busy Ps per CPU", s.Procs.PerCPUPct, "%"))
		}
		if withheld {
			ev = append(ev, evid("CPU the process got", s.Procs.ProcessCores, "cores"), evid("busy Ps per core the process got", s.Procs.BusyPerCorePct, "%"))
			what, why = fmt.Sprintf("%.2f Ps running on average while the process got %.2f cores", s.Procs.BusyMean, s.Procs.ProcessCores), host
			fix = hostFix
			if opt.CPUs > 0 && float64(s.Procs.GOMAXPROCS) > opt.CPUs {
				fix += fmt.Sprintf(" GOMAXPROCS (%d) is also above the %g CPUs available: set it to %d.", s.Procs.GOMAXPROCS, opt.CPUs, int(opt.CPUs+0.999))
			}
		} else {
			what = fmt.Sprintf("%.2f Ps running on average on %g CPUs", s.Procs.BusyMean, opt.CPUs)
			why = fmt.Sprintf("GOMAXPROCS is %d: goroutines stall while their threads are descheduled", s.Procs.GOMAXPROCS)
			fix = fmt.Sprintf("Set GOMAXPROCS=%d (the CPUs available; schedoctor procs computes it from the cgroup), or remove the override so the Go 1.25+ runtime follows the CPU limit.", int(opt.CPUs+0.999))
		}
		r.add("SD303", finding.MustLookup("SD303").Severity, what, why, locs, ev, fix)
	}
}
