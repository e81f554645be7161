package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

func init() {
	register(&command{name: "version", short: "print schedoctor's version and the Go it was built with", order: 100, run: runVersion})
}

// Version is the module version schedoctor was built at: a release tag when
// installed with go install, "(devel)" in a checkout.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

func runVersion(ctx context.Context, e *Env, args []string) int {
	fs := e.newFlagSet("schedoctor version", "Print schedoctor's version and the Go toolchain that built it.", "")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return e.usageError("unexpected arguments: %v", fs.Args())
	}
	fmt.Fprintf(e.Stdout, "schedoctor %s (%s, %s/%s)\n", Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return ExitClean
}
