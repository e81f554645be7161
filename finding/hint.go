package finding

import (
	"errors"
	"fmt"
)

// Hint names an input a front end can give (or a limit it can raise) to
// sharpen a finding, a summary or get past an error. A library says it in
// words (Note.Text, an error's message); only the front end names its flag
// (the CLI's table in internal/cli), because a library user has no flags.
type Hint int

const (
	HintNone Hint = iota
	// HintSourceDir: the module's source directory, to judge the code at a
	// hot line (the CLI's -src DIR).
	HintSourceDir
	// HintPID: the live process, to measure its own threads (-pid).
	HintPID
	// HintCostProbe: measure the server's per-connection cost (-probe or
	// -model).
	HintCostProbe
	// HintProcessCPU: the process's CPU time over a trace's window, to
	// tell a host that withheld CPU from Go's own queueing (-process-cpu).
	HintProcessCPU
	// HintCPUs: the CPUs the process may use (quota, cpuset), which a
	// trace does not record (-cpus).
	HintCPUs
	// HintInputLimit: the size limit on an input; the input was larger
	// (-max-mb, -max-bytes).
	HintInputLimit
	// HintTimeout: the deadline of a fetch, which passed (-timeout; or a
	// shorter recording, -seconds).
	HintTimeout
	// HintGenerationLimit: the size limit on one trace generation.
	HintGenerationLimit
	// HintTickLimit: how many schedtrace snapshots are kept.
	HintTickLimit
	// HintRuns: more runs per measured setting, so that noise averages out.
	HintRuns
	// HintWindow: a longer sampling window over the live system.
	HintWindow
	// HintDuration: how long a cumulative profile had been collecting.
	HintDuration
	// HintLiveMount: where the target mounts the live monitor.
	HintLiveMount
	// HintSysroot: a copy of another system's /proc and /sys to read.
	HintSysroot
	// HintHeapEndpoint: the server's pprof endpoint, for its Go heap.
	HintHeapEndpoint
	// HintTargetLimit: fewer targets (a label selector) or a higher limit
	// on how many a fleet check takes.
	HintTargetLimit
)

var hintNames = [...]string{
	HintNone:            "",
	HintSourceDir:       "source-dir",
	HintPID:             "pid",
	HintCostProbe:       "cost-probe",
	HintProcessCPU:      "process-cpu",
	HintCPUs:            "cpus",
	HintInputLimit:      "input-limit",
	HintTimeout:         "timeout",
	HintGenerationLimit: "generation-limit",
	HintTickLimit:       "tick-limit",
	HintRuns:            "runs",
	HintWindow:          "window",
	HintDuration:        "duration",
	HintLiveMount:       "live-mount",
	HintSysroot:         "sysroot",
	HintHeapEndpoint:    "heap-endpoint",
	HintTargetLimit:     "target-limit",
}

func (h Hint) String() string {
	if h < 0 || int(h) >= len(hintNames) {
		return fmt.Sprintf("Hint(%d)", int(h))
	}
	return hintNames[h]
}

func (h Hint) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText reads a hint's name; one this version does not know reads
// as HintNone (the note keeps its words, no flag is added).
func (h *Hint) UnmarshalText(b []byte) error {
	*h = HintNone
	for i, n := range hintNames {
		if string(b) == n {
			*h = Hint(i)
		}
	}
	return nil
}

// HintNote is a NoteHint asking for h in a library's words: for a
// summary's Hints, where no finding carries it.
func HintNote(h Hint, text string) Note { return Note{Kind: NoteHint, Text: text, Hint: h} }

// HintError is an error the user can get past by giving or raising the
// input that Hint names. Its message is the library's (what went wrong, in
// words); a front end adds its flag.
type HintError struct {
	Err  error
	Hint Hint
}

func (e *HintError) Error() string { return e.Err.Error() }
func (e *HintError) Unwrap() error { return e.Err }

// WithHint wraps err so that HintOf finds h; nil stays nil, and HintNone
// leaves err as it is.
func WithHint(err error, h Hint) error {
	if err == nil || h == HintNone {
		return err
	}
	return &HintError{Err: err, Hint: h}
}

// HintOf is the hint of the outermost HintError in err's chain, HintNone
// when there is none.
func HintOf(err error) Hint {
	var he *HintError
	if errors.As(err, &he) {
		return he.Hint
	}
	return HintNone
}
