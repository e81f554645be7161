#!/usr/bin/env bash
# bench-lint.sh times `schedoctor lint std` against `go vet std` and against
# staticcheck restricted to the checks closest to schedoctor's code rules
# (SA5004 empty-default select loop, SA1015 time.Tick leak, SA1004 tiny
# Sleep, SA5002 empty for{}), alternating the three tools N times.
#
# Usage: scripts/bench-lint.sh [N]      (default N=5; run from the module root)
#
# schedoctor lint runs through go vet -vettool (lint.Options.VetTool), one
# package per process; max RSS is that of the largest process of the run
# (GNU time reports the peak of the child and its descendants, not the sum
# of the processes that run in parallel), the same measure for go vet.
#
# The same work for all three: std with its _test.go files (go vet always
# includes them, so schedoctor runs with -test and staticcheck with its
# default -tests=true).
#
# Cache state, the same for all three tools: every run gets a fresh copy of
# a Go build cache that holds the compiled export data of std and of its test
# variants and no analysis results (so go vet cannot replay cached vet
# output), and staticcheck gets an empty STATICCHECK_CACHE. That is the
# state after editing code: the compiler's work is cached, the analysis is not.
#
# staticcheck is installed at a pinned version, through the module proxy,
# into a temporary GOBIN. Output: one line per run (tool, wall seconds, max
# RSS in MB), then the median with the range (min-max) per tool.
set -euo pipefail

N=${1:-5}
STATICCHECK_VERSION=v0.8.2 # staticcheck 2026.2.2

cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
bin=$work/bin
mkdir -p "$bin"

echo "# $(date -u +%FT%TZ) $(go version) on $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" >&2
GOBIN=$bin go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
go build -o "$bin/schedoctor" ./cmd/schedoctor

# The base cache: std and its test variants compiled for export data,
# nothing analyzed.
base=$work/gocache-base
GOCACHE=$base go list -export -deps -test std >/dev/null

run() { # run cold|warm NAME CMD...: one timed run
	# cold: fresh caches (compiled std, nothing analyzed);
	# warm: the same, after one unmeasured run of the same command, so
	# that analysis results and facts are cached (the second run of a day).
	local mode=$1 name=$2 rc wall rss
	shift 2
	rm -rf "$work/gocache" "$work/sccache"
	cp -a "$base" "$work/gocache"
	mkdir "$work/sccache"
	if [ "$mode" = warm ]; then
		GOCACHE=$work/gocache STATICCHECK_CACHE=$work/sccache "$@" >/dev/null 2>&1 || true
	fi
	set +e
	GOCACHE=$work/gocache STATICCHECK_CACHE=$work/sccache \
		/usr/bin/time -o "$work/time" -f '%e %M' "$@" >/dev/null 2>"$work/stderr"
	rc=$?
	set -e
	# Exit 1 means findings (staticcheck); 2 and up is a failure.
	if [ "$rc" -gt 1 ]; then
		echo "$name failed (exit $rc):" >&2
		cat "$work/stderr" >&2
		exit 1
	fi
	# time -o starts with "Command exited with non-zero status N" on exit 1.
	read -r wall rss < <(tail -1 "$work/time")
	printf '%s\t%s\t%d\n' "$mode-$name" "$wall" "$((rss / 1024))" | tee -a "$work/results"
}

printf 'tool\twall_s\tmaxrss_MB\n'
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for mode in cold warm; do
	for i in $(seq "$N"); do
		run "$mode" schedoctor "$bin/schedoctor" lint -test -fail none std
		run "$mode" govet go vet std
		run "$mode" staticcheck "$bin/staticcheck" -checks SA5004,SA1015,SA1004,SA5002 std
	done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

echo
printf 'tool\twall_s median (min-max)\tmaxrss_MB median (min-max)\tn\n'
for tool in cold-schedoctor cold-govet cold-staticcheck warm-schedoctor warm-govet warm-staticcheck; do
	awk -v t="$tool" '$1 == t { print $2, $3 }' "$work/results" | sort -n -k1,1 | awk -v t="$tool" '
		{ w[NR] = $1; r[NR] = $2 }
		END {
			n = NR
			# medians: wall is sorted; sort rss separately
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (r[j] < r[i]) { x = r[i]; r[i] = r[j]; r[j] = x }
			mw = (n % 2) ? w[(n + 1) / 2] : (w[n / 2] + w[n / 2 + 1]) / 2
			mr = (n % 2) ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
			printf "%s\t%.2f (%.2f-%.2f)\t%.0f (%.0f-%.0f)\t%d\n", t, mw, w[1], w[n], mr, r[1], r[n], n
		}'
done
