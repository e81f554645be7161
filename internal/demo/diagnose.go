package demo

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/diagnose"
	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/inspect"
	"github.com/schedoctor/schedoctor/profile"
	"github.com/schedoctor/schedoctor/viz"
)

// diagnoseProfile runs `schedoctor profile` on one recorded CPU profile and
// returns its findings and its pictures (CPU by cause, the flame graph; nil
// when the profile is empty).
func diagnoseProfile(ctx context.Context, path string) ([]finding.Finding, *viz.Set, error) {
	p, err := profile.ReadFile(ctx, path, profile.ReadOptions{})
	if errors.Is(err, profile.ErrEmpty) {
		return nil, nil, nil // the program was idle: nothing costs CPU, nothing to report or draw
	}
	if err != nil {
		return nil, nil, err // ReadFile names the file
	}
	res, err := profile.Analyze([]*pprof.Profile{p}, profile.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	// The demo wrote the lab into a module of its own and built it there,
	// so the paths the profile recorded are readable: join the hot lines
	// with the source, as `schedoctor profile` does.
	joined, err := diagnose.Profile(res, diagnose.Options{Source: &inspect.Resolver{NoFindings: true}})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return joined.Findings, res.Summary.Visuals(), nil
}

// diagnoseTrace runs `schedoctor trace` on one recorded execution trace.
// The lab ran on this machine, so the CPUs it could use are this process's:
// that lets the trace analysis check Ps against CPUs (SD303); cpu is the CPU
// time the program used while traced (0: unknown). It returns the findings
// and the trace's pictures (the P timeline, the latency histogram).
func diagnoseTrace(ctx context.Context, path string, cpu time.Duration) ([]finding.Finding, *viz.Set, error) {
	t, err := exectrace.ReadFile(ctx, path, exectrace.ReadOptions{})
	if err != nil {
		return nil, nil, err // ReadFile names the file
	}
	topt := exectrace.Options{CPUs: float64(runtime.NumCPU()), ProcessCPU: cpu}
	res, err := exectrace.Analyze(t, topt)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	// As for profiles: the lab's source is where the trace says, so the
	// spinning sites' lines are read (SD308 compute or spin → a verdict).
	joined, err := diagnose.Trace(res, topt, diagnose.Options{Source: &inspect.Resolver{NoFindings: true}})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return joined.Findings, res.Summary.Visuals(), nil
}
