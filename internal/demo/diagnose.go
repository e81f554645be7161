package demo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/profile"
)

// diagnoseProfile runs `schedoctor profile` on one recorded CPU profile.
func diagnoseProfile(ctx context.Context, path string) ([]finding.Finding, error) {
	p, err := profile.ReadFile(path)
	if errors.Is(err, profile.ErrEmpty) {
		return nil, nil // the program was idle: nothing costs CPU, nothing to report
	}
	if err != nil {
		return nil, err
	}
	res, err := profile.Analyze([]*pprof.Profile{p}, profile.Options{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res.Findings, nil
}

// diagnoseTrace runs `schedoctor trace` on one recorded execution trace.
// The lab ran on this machine, so the CPUs it could use are this process's:
// that lets the trace analysis check Ps against CPUs (SD303).
func diagnoseTrace(ctx context.Context, path string) ([]finding.Finding, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	res, err := exectrace.Analyze(ctx, f, exectrace.Options{CPUs: float64(runtime.NumCPU())})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res.Findings, nil
}
