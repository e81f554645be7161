// Package diagnose is the one place where evidence from several sources is
// joined (DESIGN.md): a runtime source's hot line is read in the source code
// (lint/inspect) so that "selectgo at 0.95 cores under main.go:37" becomes
// "a select with a default spins at main.go:37", and findings that share a
// cause are reported once with every source's evidence.
//
// Sources never import this package; it imports them.
package diagnose

import "github.com/schedoctor/schedoctor/lint/inspect"

// Options say where the source code is.
type Options struct {
	// Source reads the files that profiles and traces name. Nil means no
	// source look-ups: the runtime findings are returned as their source
	// made them, and SourceReport says so.
	Source *inspect.Resolver
}

// SourceReport tells the reader how much of the source was found, so that
// a finding's missing source evidence is never silent.
type SourceReport struct {
	Looked  int      `json:"looked"`            // distinct files asked for
	Found   int      `json:"found"`             // of them, read
	Missing []string `json:"missing,omitempty"` // recorded paths not found (at most a few)
}
