#!/usr/bin/env bash
# golangci-plugin-test.sh builds a real golangci-lint binary that includes
# schedoctor's module plugin (package golangci) and runs it on the lint
# fixture internal/cli/testdata/lint/mod, which must get SD101 (busy-select)
# at worker/worker.go:18 among its findings.
#
# `golangci-lint custom` clones golangci-lint from git, which this project's
# machines cannot reach; it then only adds an import file, a replace
# directive, runs go mod tidy and builds. This script does the same from the
# module proxy's copy of the source (pkg/commands/internal/builder.go and
# imports.go of the pinned version):
#   1. go mod download github.com/golangci/golangci-lint/v2@$VERSION
#   2. copy it, write cmd/golangci-lint/plugins.go importing our plugin
#   3. go mod edit -replace our module=this checkout; go mod tidy
#   4. go build ./cmd/golangci-lint
#
# Without the module proxy it skips with a message and exits 0.
#
# Usage: scripts/golangci-plugin-test.sh        (from anywhere)
set -euo pipefail

VERSION=${GOLANGCI_VERSION:-v2.15.0}
MODULE=github.com/golangci/golangci-lint/v2
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

echo "== golangci-lint $VERSION with the schedoctor plugin"
if ! src=$(go mod download -json "$MODULE@$VERSION" 2>"$work/download.err" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p') || [ -z "$src" ]; then
	echo "SKIP: cannot download $MODULE@$VERSION from the module proxy:"
	sed 's/^/	/' "$work/download.err"
	exit 0
fi

gcl=$work/golangci-lint
cp -r "$src" "$gcl"
chmod -R u+w "$gcl"
cat >"$gcl/cmd/golangci-lint/plugins.go" <<'GO'
package main

import (
	_ "github.com/schedoctor/schedoctor/golangci"
)
GO
(
	cd "$gcl"
	go mod edit -replace "github.com/schedoctor/schedoctor=$repo"
	go mod edit -require "github.com/schedoctor/schedoctor@v0.0.0-00010101000000-000000000000"
	go mod tidy
	go build -o "$work/custom-gcl" ./cmd/golangci-lint
)
"$work/custom-gcl" version

fixture=$work/fixture
cp -r "$repo/internal/cli/testdata/lint/mod" "$fixture"
cat >"$fixture/.golangci.yml" <<'YML'
version: "2"
linters:
  default: none
  enable:
    - schedoctor
  settings:
    custom:
      schedoctor:
        type: module
        description: scheduler anti-patterns (schedoctor SD101-SD106)
YML

set +e
(cd "$fixture" && "$work/custom-gcl" run --output.text.path stdout ./...) >"$work/out.txt" 2>&1
code=$?
set -e
cat "$work/out.txt"
if [ "$code" -ne 1 ]; then
	echo "FAIL: golangci-lint exited $code, want 1 (issues found)"
	exit 1
fi
if ! grep -q 'worker/worker.go:18:[0-9]*: busyselect: SD101 .*(schedoctor)$' "$work/out.txt"; then
	echo "FAIL: no SD101 busy-select at worker/worker.go:18 from the schedoctor linter"
	exit 1
fi
echo "PASS: the custom golangci-lint reports SD101 at worker/worker.go:18"
