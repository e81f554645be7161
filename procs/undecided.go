package procs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
)

// gapKind is an input of the rules that could not be read: a file that
// exists but is malformed, unreadable, refused (a FIFO, a device, too
// large), or a hierarchy that skipped lines hid. An input that is simply
// absent (no cpu.max: no limit) is not a gap.
type gapKind int

const (
	gapLeafQuota  gapKind = iota // the leaf cgroup's CPU quota
	gapQuota                     // some level's CPU quota
	gapThrottling                // cpu.stat counters
	gapPressure                  // the process's own cgroup cpu.pressure
	gapCpuset                    // the effective cpuset
	gapAffinity                  // the affinity mask
	gapMemory                    // the memory limit
	gapEnv                       // GOMAXPROCS, GODEBUG, GOMEMLIMIT
	gapBinary                    // the binary's Go version and build settings
	gapCPUWait                   // the threads' schedstat
	gapCgroups                   // the cgroup files themselves: all of the cgroup inputs
)

var gapNames = map[gapKind]string{
	gapLeafQuota:  "the leaf cgroup's CPU quota",
	gapQuota:      "a cgroup level's CPU quota",
	gapThrottling: "the CFS throttling counters",
	gapPressure:   "the cgroup's CPU pressure",
	gapCpuset:     "the cpuset",
	gapAffinity:   "the affinity mask",
	gapMemory:     "the memory limit",
	gapEnv:        "the environment",
	gapBinary:     "the binary's Go version",
	gapCPUWait:    "the threads' run-queue wait",
}

// gaps maps each unknown input to why it is unknown.
type gaps map[gapKind][]string

func (g *gaps) add(k gapKind, why string) {
	if *g == nil {
		*g = gaps{}
	}
	kinds := []gapKind{k}
	if k == gapCgroups {
		// Without the cgroup files every cgroup figure is unknown.
		kinds = []gapKind{gapLeafQuota, gapQuota, gapThrottling, gapPressure, gapCpuset, gapMemory}
	} else if k == gapLeafQuota {
		kinds = append(kinds, gapQuota)
	}
	for _, k := range kinds {
		if !slices.Contains((*g)[k], why) {
			(*g)[k] = append((*g)[k], why)
		}
	}
}

func (g gaps) has(kinds ...gapKind) bool {
	for _, k := range kinds {
		if len(g[k]) > 0 {
			return true
		}
	}
	return false
}

// Undecided is a rule procs could not decide because an input it depends on
// was unreadable or malformed: it did not fire, and with the missing figure
// it might have (or it fired on a figure the missing one could overturn,
// and was withdrawn).
type Undecided struct {
	Rule   string   `json:"rule"`
	Inputs []string `json:"inputs"` // what was unknown: "the leaf cgroup's CPU quota"
	Why    []string `json:"why"`    // the files and lines that made it unknown
}

// ruleDeps says, for each rule, which unknown inputs leave it undecided when
// it does not fire.
func ruleDeps(s *Summary) map[string][]gapKind {
	var valueDeps []gapKind // inputs of the computed GOMAXPROCS
	if s.GOMAXPROCS.Origin != "live" {
		valueDeps = []gapKind{gapEnv, gapBinary}
		if r := s.GOMAXPROCS.Rule; r == "default-container" || r == "automaxprocs" {
			valueDeps = append(valueDeps, gapLeafQuota)
		}
	}
	availDeps := []gapKind{gapQuota, gapCpuset, gapAffinity}
	deps := map[string][]gapKind{
		"SD404": {gapThrottling},
		"SD405": {gapQuota},
		"SD406": {gapPressure, gapCPUWait},
	}
	if isGo(s) {
		deps["SD401"] = slices.Clone(valueDeps)
		if s.GOMAXPROCS.Value > 1 {
			// A missing limit only lowers the CPUs available, and never
			// below one: GOMAXPROCS 1 cannot be above them.
			deps["SD401"] = append(deps["SD401"], availDeps...)
		}
		deps["SD402"] = append(slices.Clone(valueDeps), availDeps...)
		deps["SD403"] = []gapKind{gapLeafQuota, gapBinary, gapEnv}
		deps["SD407"] = []gapKind{gapMemory, gapEnv}
		deps["SD408"] = []gapKind{gapBinary}
	}
	return deps
}

// withdrawn reports whether a finding of rule rests on a figure that an
// unknown input could overturn, so that reporting it would risk a false
// positive: a missing limit can only lower the CPUs available (SD402 says
// GOMAXPROCS is below them), a missing leaf quota changes the GOMAXPROCS
// the default computes (SD401) and whether a parent is the tighter (SD405).
func withdrawn(s *Summary, rule string) bool {
	g := s.gaps
	computedFromLeaf := s.GOMAXPROCS.Origin != "live" &&
		(s.GOMAXPROCS.Rule == "default-container" || s.GOMAXPROCS.Rule == "automaxprocs")
	switch rule {
	case "SD401":
		return computedFromLeaf && g.has(gapLeafQuota)
	case "SD402":
		return g.has(gapQuota, gapCpuset, gapAffinity) || computedFromLeaf && g.has(gapLeafQuota)
	case "SD405":
		return g.has(gapLeafQuota)
	}
	return false
}

// undecided lists the rules that did not fire and depended on an unknown
// input, in rule order.
func undecided(s *Summary) []Undecided {
	if len(s.gaps) == 0 {
		return nil
	}
	fired := map[string]bool{}
	for _, f := range Findings(s) {
		fired[f.Rule] = true
	}
	deps := ruleDeps(s)
	rules := make([]string, 0, len(deps))
	for r := range deps {
		rules = append(rules, r)
	}
	slices.Sort(rules)
	var out []Undecided
	for _, rule := range rules {
		if fired[rule] {
			continue
		}
		u := Undecided{Rule: rule}
		for _, k := range deps[rule] {
			if !s.gaps.has(k) {
				continue
			}
			if k == gapQuota && slices.Contains(deps[rule], gapLeafQuota) && subset(s.gaps[gapQuota], s.gaps[gapLeafQuota]) {
				continue // the leaf's quota is named, for the same reasons
			}
			u.Inputs = append(u.Inputs, gapNames[k])
			for _, why := range s.gaps[k] {
				if !slices.Contains(u.Why, why) {
					u.Why = append(u.Why, why)
				}
			}
		}
		if len(u.Inputs) > 0 {
			out = append(out, u)
		}
	}
	return out
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// groupUndecided words the undecided rules as notes, one per reason (a
// file unreadable, a hierarchy not found), with the rules it left
// undecided and the inputs it made unknown: "could not decide SD401,
// SD408: the binary's Go version unknown (/proc/4242/exe unreadable)".
func groupUndecided(s *Summary) []string {
	var whys []string
	for _, u := range s.Undecided {
		for _, w := range u.Why {
			if !slices.Contains(whys, w) {
				whys = append(whys, w)
			}
		}
	}
	var out []string
	for _, w := range whys {
		var rules, inputs []string
		for _, u := range s.Undecided {
			if !slices.Contains(u.Why, w) {
				continue
			}
			rules = append(rules, u.Rule)
			for _, in := range u.Inputs {
				if !slices.Contains(inputs, in) && slices.Contains(s.gaps[gapByName(in)], w) {
					inputs = append(inputs, in)
				}
			}
		}
		if slices.Contains(inputs, gapNames[gapLeafQuota]) {
			inputs = slices.DeleteFunc(inputs, func(in string) bool { return in == gapNames[gapQuota] })
		}
		out = append(out, fmt.Sprintf("could not decide %s: %s unknown (%s)", strings.Join(rules, ", "), strings.Join(inputs, ", "), w))
	}
	return out
}

func gapByName(name string) gapKind {
	for k, n := range gapNames {
		if n == name {
			return k
		}
	}
	return -1
}

// keepDecided drops the findings withdrawn for an unknown input.
func keepDecided(s *Summary, fs []finding.Finding) []finding.Finding {
	if len(s.gaps) == 0 {
		return fs
	}
	return slices.DeleteFunc(fs, func(f finding.Finding) bool { return withdrawn(s, f.Rule) })
}
