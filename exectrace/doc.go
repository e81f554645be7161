// Package exectrace analyses Go execution traces (runtime/trace) as a
// stream and says what wastes the scheduler: figures (scheduling latency by
// cause and creation site, P utilisation, runnable backlog, migrations,
// syscalls and P handoffs, GC stop-the-world and mark assists, short-sleep
// churn, lock queues, latency spikes in windows and who woke whom) and the
// findings SD301–SD309, SD315 and SD316 they support. Its entry
// points are those of every source (docs/HACKING.md, "Sources"): Read(ctx,
// name, r, ReadOptions) or ReadFile(ctx, name, ReadOptions) stream the trace
// once and return what it measured (a *Trace, not the events); Analyze(t,
// Options) (*Result, error) judges it.
//
// It reads with golang.org/x/exp/trace and never holds the trace: memory is
// the reader's current generation, a few chunks of events, about a hundred
// bytes per live goroutine and a few kilobytes per creation site and source
// location, so a multi-gigabyte trace fits on a laptop. Decoding and analysis run on two goroutines.
// A generation larger than ReadOptions.MaxGeneration (DefaultMaxGeneration) is
// cut from the input, never held: the generations before it are analysed
// and Summary.Truncated says where (ErrGenerationTooLarge).
//
// Read may be called concurrently on different inputs; each call has its
// own state. It starts one goroutine, which has stopped reading the input
// when Read returns, unless the caller's context was cancelled (then it
// stops after the read in progress).
//
// The rules are one function each, in rule_sdNNN.go (schedLatency is
// SD301, ..., lockQueue SD309), listed in order in the traceRules table
// that Findings walks. What several rules need is computed once before
// them and shared through a ruleCtx: the program's own sites, the source's
// verdicts on the spinning sites (Judge), and the causes the latency and
// backlog findings name (a spin, a lock convoy or sleep poll, a host that
// withheld the CPU; cause.go). docs/HACKING.md, "Adding a trace rule", says
// where a new rule goes.
//
// Semantics that are easy to get wrong are spelled out in docs/trace.md:
// "running" is time on a P (not CPU time), a trace does not record the CPUs
// available (Options.CPUs), and locations are the user frames of the
// trace's stacks, as absolute paths.
package exectrace
