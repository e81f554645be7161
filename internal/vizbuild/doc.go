// Package vizbuild builds the pictures of package viz from streams of
// samples and events, within fixed bounds: Flame accumulates a profile's
// stacks into a flame graph pruned to a node budget (MaxBuildNodes while
// it accumulates, MaxDepth frames, MaxName bytes a name), and Timeline
// accumulates a trace's P states into a fixed number of buckets, doubling
// their width as the trace goes on. profile builds its flame graph here,
// exectrace its timeline.
//
// The builders are internal so that the public viz package stays plain
// data: a user reads a *viz.Flame or a *viz.Timeline and never needs the
// machinery that bounded it. The package imports only the standard library
// and viz.
package vizbuild
