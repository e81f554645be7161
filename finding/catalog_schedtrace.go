package finding

// Schedtrace rules (SD310–SD319), detected only from GODEBUG=schedtrace
// output by `schedoctor schedtrace` (package schedtrace). SD302 is shared
// with the trace source and lives in catalog_trace.go.
var schedtraceRules = []Rule{}
