package cli

import (
	"github.com/schedoctor/schedoctor/lint/inspect"
)

// sourceReader is the Resolver of a command that reads the source around
// the hot lines of a profile or trace: -src first, then the module (or
// GOPATH) the user runs in. An input file's recorded paths are read as
// recorded only inside those and the toolchain's source (a profile may be
// anyone's); a remote input's (a URL, a directory saved from a target)
// never (lint/inspect/resolve.go). The loop's kind is read, not the
// analyzers' findings: no package is loaded.
func sourceReader(src srcDirs, remote bool) *inspect.Resolver {
	origin := inspect.LocalFile
	if remote {
		origin = inspect.Remote
	}
	return &inspect.Resolver{
		SrcDirs:    src,
		NoFindings: true,
		Access:     inspect.Access{Roots: inspect.WorkRoots(), Origin: origin},
	}
}
