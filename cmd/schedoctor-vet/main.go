// Command schedoctor-vet runs schedoctor's code analyzers (rules SD1xx)
// under go vet. From a checkout:
//
//	go build -o "$HOME/bin/schedoctor-vet" ./cmd/schedoctor-vet
//	go vet -vettool="$HOME/bin/schedoctor-vet" ./...
//
// Give go vet the tool's path, not $(which schedoctor-vet): when the tool
// is not on PATH that expands to nothing, and go vet then runs its own
// analyzers alone and exits 0 (docs/lint-integration.md has a form for
// scripts that fails instead).
//
// go vet then analyzes each package separately, in parallel and with its
// build cache, and prints diagnostics as file:line:col: message, each
// message starting with its rule ID ("SD101 loop spins a core ..."), as
// golangci-lint prints them: go vet shows neither the analyzer's name nor
// the diagnostic's category. For the numbers behind each finding, JSON and
// SARIF, use `schedoctor lint`.
package main

import (
	"fmt"
	"os"

	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/schedoctor/schedoctor/golangci"
)

func main() {
	// The golangci-lint plugin's analyzers are lint.Analyzers labelled
	// with their rule IDs: one place says how a plain-text driver shows
	// the rule of a diagnostic.
	p, err := golangci.New(nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "schedoctor-vet: %v\n", err)
		os.Exit(2)
	}
	analyzers, err := p.BuildAnalyzers()
	if err != nil {
		fmt.Fprintf(os.Stderr, "schedoctor-vet: %v\n", err)
		os.Exit(2)
	}
	unitchecker.Main(analyzers...)
}
