package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/sysread"
	"github.com/schedoctor/schedoctor/procs"
	"github.com/schedoctor/schedoctor/report"
)

func init() {
	register(&command{name: "procs", short: "GOMAXPROCS against the CPUs really available: cgroups, cpusets, Go version rules (SD4xx)", order: 40, run: runProcs})
}

func runProcs(ctx context.Context, e *Env, args []string) int {
	fs := e.newFlagSet("schedoctor procs [-pid PID] [-window D] [-binary PATH] [-sysroot DIR] [-json] [-fail LEVEL]",
		`Compare the GOMAXPROCS a Go process runs with against the CPUs it may really use: its
affinity mask, its cpuset, and the CPU quota of its cgroup and of every ancestor (cgroup v1, v2
or hybrid). Also reads CFS throttling (cpu.stat), CPU pressure (cpu.pressure) and the memory
limit, and the binary's Go version, DefaultGODEBUG and automaxprocs, to apply its version's
GOMAXPROCS rules. Reports findings SD401-SD408.

With -pid, the running process is inspected, and its live GOMAXPROCS is read from its memory
when the binary has a symbol table and ptrace is allowed; otherwise the value is computed, and
the report says which. Without -pid, the current context is inspected (cgroups and environment
of this shell) for the program named by -binary, or for a Go 1.25+ program if none.

CPU pressure (SD406) is judged on the process's own figures: its threads' run-queue wait
(/proc/PID/task/*/schedstat, sampled over -window) and its own cgroup's cpu.pressure. The
host's /proc/pressure/cpu is shown as context and never makes a finding by itself.

-sysroot reads /proc and /sys under DIR instead of the live system.`,
		"  schedoctor procs -pid $(pidof server)\n"+
			"  kubectl exec POD -- /schedoctor procs -pid 1\n"+
			"  schedoctor procs -binary ./server\n"+
			"  schedoctor procs -json -sysroot ./snapshot -pid 4242")
	var out outputFlags
	out.register(fs, false)
	pid := fs.Int("pid", 0, "inspect the running process `PID` (0: the current context)")
	binary := fs.String("binary", "", "the Go binary to apply the version rules to (default: /proc/PID/exe)")
	sysroot := fs.String("sysroot", "/", "read /proc and /sys under `DIR`")
	window := fs.Duration("window", time.Second, "with -pid on the live system, sample the process's CPU wait over `D` (0: lifetime counters)")
	maxFile := fs.Int64("max-file", sysread.DefaultMax, "refuse any file under -sysroot or /proc larger than `BYTES`")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if code, ok := out.check(e); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return e.usageError("unexpected arguments: %v", fs.Args())
	}
	if *pid < 0 {
		return e.usageError("-pid %d: want a process ID", *pid)
	}
	if *window < 0 || *window > time.Minute {
		return e.usageError("-window %v: want 0 to 1m", *window)
	}
	if *maxFile < 1<<10 || *maxFile > 1<<30 {
		return e.usageError("-max-file %d: want 1024 to 1073741824 bytes", *maxFile)
	}
	if *binary != "" {
		// Named on the command line: a typo is a usage problem, not a
		// warning buried in the report.
		if st, err := os.Stat(*binary); err != nil {
			return e.fail(fmt.Errorf("-binary: %w", err))
		} else if !st.Mode().IsRegular() {
			return e.fail(fmt.Errorf("-binary %s: not a regular file", *binary))
		}
	}
	// What a signal interrupts: with -pid on the live system most of the
	// time is the sampling window, which InspectContext ends at once.
	if live := *sysroot == "" || filepath.Clean(*sysroot) == "/"; live && *pid != 0 && *window > 0 {
		e.doing(fmt.Sprintf("sampling process %d's CPU wait over %v", *pid, *window))
	} else {
		e.doing("reading /proc and /sys under " + *sysroot)
	}
	s, err := procs.InspectContext(ctx, procs.Options{Sysroot: *sysroot, PID: *pid, Binary: *binary, Window: *window, MaxFileBytes: *maxFile})
	if err != nil {
		return e.fail(err)
	}
	code := e.emit(&out, report.Report{Source: finding.SourceProcs, Findings: procs.Findings(s), Summary: s})
	if code == ExitClean && len(s.Undecided) > 0 && !out.fail.none {
		// Partial input is not a clean bill: rules that needed an unreadable
		// or malformed file could not decide (the notes say which and why).
		var rules []string
		for _, u := range s.Undecided {
			rules = append(rules, u.Rule)
		}
		fmt.Fprintf(e.Stderr, "schedoctor procs: input incomplete: could not decide %s (see the notes)\n", strings.Join(rules, ", "))
		return ExitError
	}
	return code
}
