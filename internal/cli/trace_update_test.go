package cli

import "flag"

// -update rewrites the golden files; registered here too so that the trace
// tests do not depend on another subcommand's test file declaring it.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files")
	}
}

func traceUpdating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}
