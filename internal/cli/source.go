package cli

import (
	"strings"

	"github.com/schedoctor/schedoctor/lint/inspect"
)

// sourceReader is the Resolver of a command that reads the source around
// the hot lines of a profile or trace: -src first, then the module (or
// GOPATH) the user runs in; remote when the recorded paths came from
// another machine (a URL, a directory saved from a target), whose paths
// are then never opened as recorded (lint/inspect/resolve.go). The loop's
// kind is read, not the analyzers' findings: no package is loaded.
func sourceReader(src srcDirs, remote bool) *inspect.Resolver {
	return &inspect.Resolver{
		SrcDirs:    src,
		NoFindings: true,
		Access:     inspect.Access{Roots: inspect.WorkRoots(), Remote: remote},
	}
}

// isURL reports whether a command's input argument is fetched rather than
// read from this machine.
func isURL(arg string) bool {
	return strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://")
}
