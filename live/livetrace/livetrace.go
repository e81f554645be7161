// Package livetrace wires schedoctor's execution-trace analysis (exectrace)
// into the live monitor: each flight-recorder snapshot is read as a stream
// and its SD3xx findings join the monitor's.
//
// It is a separate package so that the live core stays on the standard
// library: importing live/livetrace brings golang.org/x/exp/trace, which a
// service may not want.
package livetrace

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/live"
)

// Diagnose analyses the snapshot at path; it fits live.Options.Diagnose.
// The CPUs are given as runtime.NumCPU (the CPUs in the process's affinity
// mask), so SD303 compares the Ps' busy time with them; a cgroup CPU quota
// below that is not seen here (`schedoctor procs` reports it).
func Diagnose(ctx context.Context, path string) ([]finding.Finding, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := exectrace.Read(ctx, path, f, exectrace.ReadOptions{})
	if err != nil {
		return nil, fmt.Errorf("analysing %w", err) // "analysing PATH: ..."
	}
	res, err := exectrace.Analyze(t, exectrace.Options{CPUs: float64(runtime.NumCPU())})
	if err != nil {
		return nil, fmt.Errorf("analysing %s: %w", path, err)
	}
	// A second pass splits the scheduling findings by live.Do labels. It
	// is cheap beside the analysis and a snapshot is bounded in size.
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return res.Findings, nil
	}
	if labels, err := Breakdown(ctx, f); err == nil && len(labels) > 0 {
		annotate(res.Findings, labels)
	}
	return res.Findings, nil
}

// Start is live.Start with Options.Diagnose set to Diagnose when unset.
func Start(ctx context.Context, o live.Options) (*live.Monitor, error) {
	if o.Diagnose == nil {
		o.Diagnose = Diagnose
	}
	return live.Start(ctx, o)
}
