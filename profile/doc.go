// Package profile names the causes in Go CPU profiles: it reads pprof
// profiles (files, stdin, /debug/pprof/profile URLs), merges them, assigns
// every sample a cause with the caller-chain classifier of
// profile/classify, reports each cause as a share of CPU and in cores with
// the user lines that lead to it, and derives findings SD201–SD209. Its
// entry points are those of every source (docs/HACKING.md, "Sources"):
// Read(ctx, name, r, ReadOptions) or ReadFile(ctx, name, ReadOptions),
// bounded by ReadOptions, then Analyze(profiles, Options) (*Result, error).
//
// The entry points:
//
//	p, err := profile.ReadFile(ctx, "cpu.pb.gz", profile.ReadOptions{}) // or Read(ctx, name, r, opt), Fetch(ctx, url, opt)
//	res, err := profile.Analyze([]*pprof.Profile{p}, profile.Options{})
//	res.Findings                                       // []finding.Finding, sorted
//	res.Summary.WriteText(os.Stdout)                   // the cause table (a report.TextSummary)
//	res.WriteClassified(w)                             // the profile with a "cause" label per sample
//
// Cores are CPU time divided by the profile's duration; when several
// profiles are merged their durations add up, so cores are the average over
// the profiles (pprof's Merge sums DurationNanos the same way).
//
// Thresholds (DefaultThresholds) come from measurements of the lab programs
// in internal/lab; docs/profile.md gives the table. A cause needs a share
// of CPU and a number of samples to be reported at all; cores decide
// whether the finding is a warning or only info, because a profile of an
// idle process can show "futex 50%" of almost nothing.
//
// Errors name the input and say what is wrong; errors.Is tells ErrNotCPU
// (a heap, goroutine, mutex or block profile), ErrEmpty (no samples),
// ErrNoRuntime (no Go runtime frame: not a Go program, or not symbolized),
// ErrLimit (over one of the Limits: bytes, samples, frames, locations, gzip
// ratio; a *LimitError names it), ErrBadNumbers (negative or overflowing
// values, an impossible duration) and ErrNotRegular (a FIFO or device).
// Reading stops at the first limit passed, so memory and time are bounded
// by the limits, not by the input. Nothing in the package panics on its
// input (FuzzClassify, FuzzReadLimits).
//
// Functions are safe for concurrent use; a Result is read-only once
// returned.
package profile
