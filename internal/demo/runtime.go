package demo

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/lab"
	"github.com/schedoctor/schedoctor/viz"
)

// runtime runs every program's anti-pattern (its healthy controls as they
// are) with a CPU profile or an execution trace, and diagnoses the file.
// Programs run one at a time: on a small machine two would distort each
// other's profile.
func (r *runner) runtime(ctx context.Context, st Stage) error {
	if err := r.build(ctx); err != nil {
		return err
	}
	for _, p := range r.programs {
		if err := ctx.Err(); err != nil {
			return err
		}
		out := filepath.Join(r.dir, "out", p.Name+"."+string(st))
		flagName := "-cpuprofile"
		if st == StageTrace {
			flagName = "-trace"
		}
		d := r.opt.Duration
		r.progress("%s: running %s for %v (%s)", st, p.Name, d, p.Summary)
		before := r.take()
		cpu, err := r.runProgram(ctx, p, d, flagName, out)
		m := measure(before, r.take(), cpu.Seconds())
		if err != nil {
			r.record(p.Name, st, nil, m, err)
			continue
		}
		var fs []finding.Finding
		var set *viz.Set
		if st == StageProfile {
			fs, set, err = diagnoseProfile(ctx, out)
		} else {
			fs, set, err = diagnoseTrace(ctx, out, cpu)
		}
		r.record(p.Name, st, fs, m, err)
		r.picture(p.Name, st, set)
	}
	return nil
}

// picture files a stage's pictures for a program in its cell, titled
// "<program>: <stage>" so that the HTML report's many flame graphs and
// timelines say whose they are. The set is copied: the title is the
// demo's, not the source's.
func (r *runner) picture(name string, st Stage, set *viz.Set) {
	if set == nil {
		return
	}
	c := *set
	c.Title = name + ": " + string(st)
	r.rows[name].Cells[st].Visual = &c
}

// build compiles the lab once, from the embedded copy.
func (r *runner) build(ctx context.Context) error {
	if r.bins != nil {
		return nil
	}
	dir := filepath.Join(r.dir, "run")
	if err := lab.WriteModule(dir, ""); err != nil {
		return err
	}
	names := make([]string, len(r.programs))
	for i, p := range r.programs {
		names[i] = p.Name
	}
	r.progress("building %d lab programs", len(names))
	bins, err := lab.Build(ctx, dir, filepath.Join(r.dir, "bin"), names...)
	if err != nil {
		return err
	}
	r.bins = bins
	return os.MkdirAll(filepath.Join(r.dir, "out"), 0o755)
}

// runProgram runs one program with the recording flag, bounded in time,
// and returns the CPU time it used (user and system, all threads): the
// trace covers the whole run, so this is the CPU the process got while it
// was traced, which tells a host that withheld CPU from Go queueing work
// (exectrace.Options.ProcessCPU).
func (r *runner) runProgram(ctx context.Context, p lab.Program, d time.Duration, flagName, out string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, d+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.bins[p.Name], "-duration", d.String(), flagName, out)
	cmd.Env = append(os.Environ(), p.Env...)
	cmd.Dir = r.dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Stdout = nil
	setProcessGroup(cmd)
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("running lab program %s: %v: %s", p.Name, err, strings.TrimSpace(lastLines(stderr.String(), 5)))
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
