// Command schedoctor-vet runs schedoctor's code analyzers (rules SD1xx)
// under go vet:
//
//	go install github.com/schedoctor/schedoctor/cmd/schedoctor-vet@latest
//	go vet -vettool=$(which schedoctor-vet) ./...
//
// go vet then analyzes each package separately, in parallel and with its
// build cache, and prints diagnostics as file:line:col: message. For the
// numbers behind each finding, JSON and SARIF, use `schedoctor lint`.
package main

import (
	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/schedoctor/schedoctor/lint"
)

func main() { unitchecker.Main(lint.Analyzers...) }
