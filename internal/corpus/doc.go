// Package corpus holds recordings of real open-source Go programs and checks
// that schedoctor's runtime layers say of each what an expert says.
//
// The package has no code of its own besides its test: corpus_test.go reads
// every directory under testdata/, runs the real analyses on the recordings
// found there (Read or ReadFile, then Analyze, of profile on cpu.pb.gz,
// exectrace on trace.out and schedtrace on schedtrace.txt) and compares each layer's findings with the directory's
// expect.json. docs/ACCURACY.md is the human-readable table of the same
// programs.
//
// # A program's directory
//
// testdata/<program>/ holds recordings only: never the program's source, its
// driver, or a recipe that builds it (the programs are third-party code).
//
//	cpu.pb.gz       CPU profile (runtime/pprof, 5–10 s), optional
//	trace.out       execution trace (runtime/trace, 2–5 s, recorded apart
//	                from the profile; keep it under ~3 MB), optional
//	schedtrace.txt  the program's stderr under GODEBUG=schedtrace=1000, optional
//	expect.json     what an expert sees and what each layer must say, required
//
// # expect.json
//
//	{
//	  "program":  "ring-buffer-gosched",
//	  "upstream": "Workiva/go-datastructures@<40-hex commit>",
//	  "kind":     "spin",        // spin | poll | contention | healthy | other
//	  "workload": "what the driver did: load, duration, GOMAXPROCS",
//	  "machine":  "2 CPUs shared; load average 1.20 0.90 0.70 at recording",
//	  "cpus":     2,             // CPUs the process could use; passed to the trace layer (SD303); 0: unknown
//	  "trace_process_cpu": "700ms", // optional: CPU time the process got during the trace (user+system)
//	  "expert":   "what an expert sees, one paragraph",
//	  "layers": {
//	    "profile": {
//	      "want": [{"rule": "SD204", "min_severity": "warning", "at_function_contains": "RingBuffer"}],
//	      "forbid_at_or_above": "warning",
//	      "forbid_rules": ["SD302"],
//	      "known_wrong": ""
//	    },
//	    "trace":      {...},
//	    "schedtrace": {...}
//	  }
//	}
//
// Every recording present must have its layer in "layers", and every layer
// named must have its recording. For each layer the test checks:
//
//   - want: a finding of that rule at or above min_severity (default info),
//     with at_function_contains (optional) a substring of one of its
//     locations' functions;
//   - forbid_at_or_above ("info", "warning", "critical" or "" for no
//     limit): no other finding at or above that severity. A finding of a
//     wanted rule is exempt (the want reports it when it is too weak or
//     elsewhere);
//   - forbid_rules: no finding of these rules at any severity (e.g. "add
//     CPU" findings on a spin);
//   - a "healthy" program must set forbid_at_or_above to "warning" (or
//     "info") on every layer: it is the false-alarm test of every rule;
//   - every location that names a function names a user frame
//     (finding.UserFunction): the drivers are package main, so a user frame
//     always exists.
//
// known_wrong, when not empty, is the reason today's output is wrong and a
// fix is pending: the layer's mismatches are logged, not failed. Keep these
// few. A known_wrong layer that now passes is logged too, so the note can be
// removed.
package corpus
