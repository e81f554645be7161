#!/usr/bin/env bash
# mixin-test.sh checks the Prometheus mixin of the live monitor's export
# (live/prom/mixin) with the real promtool:
#   1. promtool check rules  on every rule file (live/prom/mixin/*.yml)
#   2. promtool test rules   on the unit tests (live/prom/mixin/tests/*.yml:
#      input series -> the recorded values and the alerts that must fire)
#
# promtool is built from the Go module proxy's copy of Prometheus (this
# project's machines reach no git host and no release download): a
# throw-away module that requires github.com/prometheus/prometheus@VERSION
# builds its cmd/promtool with GOFLAGS=-mod=mod (Prometheus's go.mod has
# no replace directive, so its own requirements resolve as they are). The
# binary is kept outside the repository, in $SCHEDOCTOR_CACHE (default
# ${XDG_CACHE_HOME:-~/.cache}/schedoctor)/promtool-VERSION, so later runs
# reuse it; the first build takes many minutes on a small machine.
# PROMTOOL=/path/to/promtool uses that one and builds nothing.
#
# Without a Go toolchain or the module proxy it skips with the reason and
# exits 0. It is not part of .ci/run: the build is too slow.
#
# Usage: scripts/mixin-test.sh [-build-only]        (from anywhere)
set -euo pipefail

VERSION=${PROMETHEUS_VERSION:-v0.316.0}
MODULE=github.com/prometheus/prometheus
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${SCHEDOCTOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/schedoctor}/promtool-$VERSION
mixin=$repo/live/prom/mixin
work=$(mktemp -d)
# The module cache's files are read-only: chmod before removing.
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

skip() {
	echo "SKIP: $*"
	exit 0
}

build_promtool() {
	command -v go >/dev/null || skip "no go toolchain on PATH to build promtool $VERSION"
	if ! go mod download "$MODULE@$VERSION" 2>"$work/download.err"; then
		echo "SKIP: cannot download $MODULE@$VERSION from the module proxy:"
		sed 's/^/	/' "$work/download.err"
		exit 0
	fi
	mkdir -p "$work/build"
	if ! (
		cd "$work/build"
		go mod init schedoctor.invalid/promtool-build >/dev/null 2>&1
		go mod edit -require "$MODULE@$VERSION"
		GOFLAGS=-mod=mod go build -o "$work/promtool" "$MODULE/cmd/promtool"
	) 2>"$work/build.err"; then
		echo "SKIP: building promtool $VERSION failed (a requirement unreachable on the module proxy?):"
		tail -20 "$work/build.err" | sed 's/^/	/'
		exit 0
	fi
	mkdir -p "$cache"
	# Rename into place: a concurrent run never sees half a binary.
	mv "$work/promtool" "$cache/promtool.tmp.$$"
	mv "$cache/promtool.tmp.$$" "$cache/promtool"
}

if [ -n "${PROMTOOL:-}" ]; then
	promtool=$PROMTOOL
elif [ -x "${SCHEDOCTOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/schedoctor}/prometheus-$VERSION/promtool" ]; then
	# scripts/prometheus-test.sh built it with Prometheus: the same version.
	promtool=${SCHEDOCTOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/schedoctor}/prometheus-$VERSION/promtool
else
	promtool=$cache/promtool
	if [ ! -x "$promtool" ]; then
		echo "== building promtool $VERSION into $cache (many minutes, once)"
		build_promtool
	fi
fi
echo "== $("$promtool" --version 2>&1 | head -1)"
[ "${1:-}" = "-build-only" ] && exit 0

shopt -s nullglob
rules=("$mixin"/*.yml)
tests=("$mixin"/tests/*.yml)
[ ${#rules[@]} -gt 0 ] || { echo "FAIL: no rule files in $mixin"; exit 1; }
[ ${#tests[@]} -gt 0 ] || { echo "FAIL: no rule unit tests in $mixin/tests"; exit 1; }

echo "== promtool check rules ${rules[*]#"$repo"/}"
"$promtool" check rules "${rules[@]}"
echo "== promtool test rules ${tests[*]#"$repo"/}"
"$promtool" test rules "${tests[@]}"
echo "PASS: the mixin's rules check and its unit tests pass"
