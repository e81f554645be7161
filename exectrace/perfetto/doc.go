// Package perfetto writes a window of a Go execution trace as a Perfetto
// trace (TrackEvent protobuf), to look at a spike in ui.perfetto.dev: a
// track per P with a slice per goroutine run, named after its function;
// state tracks (running, runnable, waiting and why, syscall) for the
// goroutines that waited longest for a P or unblocked the most others;
// counters of runnable goroutines, heap and GOMAXPROCS; the GC's mark
// phase and stop-the-world pauses; and a flow from each unblocker's slice
// to the slice where the goroutine it unblocked next ran.
//
// The encoder is this package's own (a varint, fixed64 and
// length-delimited writer keyed by the field numbers of Perfetto's
// protos, cited in proto.go): no Go library for it carries a licence.
// The analysis stays exectrace's; this package only walks the events of
// the window, with exectrace's limit on a generation's size, and bounds
// the file it writes (Options.MaxBytes): a window over the limit is cut,
// and the file and Stats say where.
//
// Export reads its input twice and is safe for concurrent use on
// different inputs.
package perfetto
