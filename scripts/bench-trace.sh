#!/bin/sh
# Benchmarks `schedoctor trace` against `go tool trace -pprof=sched` on large
# execution traces from the lab's pingpong program (the busiest trace writer
# of the lab: about 55 MB of trace per second here). Run from the repository root.
#
#   scripts/bench-trace.sh [MB...]     default: 220 440
#
# For each size it records a trace into $BENCH_DIR (default /tmp/schedoctor-bench,
# never committed), then runs schedoctor and go tool trace alternately,
# $ROUNDS times each (default 2), printing wall seconds and peak RSS
# (/usr/bin/time -f '%e %M'). go tool trace holds the whole trace in memory
# (about 30× its size): it runs only on traces up to $GOTOOL_MAX_MB (default
# 250) so that it cannot exhaust the machine.
set -eu
dir=${BENCH_DIR:-/tmp/schedoctor-bench}
rounds=${ROUNDS:-2}
gotool_max=${GOTOOL_MAX_MB:-250}
sizes=${*:-220 440}
mkdir -p "$dir"
go build -o "$dir/" ./cmd/schedoctor ./internal/lab/pingpong

timed() { # label command...: prints "label seconds peak-RSS-MB"
	label=$1
	shift
	/usr/bin/time -f '%e %M' -o "$dir/time.out" "$@" >/dev/null 2>"$dir/stderr.out" || {
		echo "$label: failed:" >&2
		cat "$dir/stderr.out" >&2
		return 0
	}
	read -r secs kb <"$dir/time.out"
	echo "$label $secs $((kb / 1024))"
}

echo "# $(go version), $(nproc) CPUs, $(uname -srm), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# tool seconds peak-RSS-MB MB/s"
for mb in $sizes; do
	f="$dir/pingpong-$mb.trace"
	if [ ! -f "$f" ] || [ $(($(stat -c %s "$f") / 1048576)) -lt "$mb" ]; then
		# Record until the trace is at least $mb MB (the rate depends on the load).
		secs=$((mb / 55 + 1))
		while :; do
			"$dir/pingpong" -duration "${secs}s" -trace "$f" >/dev/null 2>&1
			[ $(($(stat -c %s "$f") / 1048576)) -ge "$mb" ] && break
			secs=$((secs * 3 / 2 + 1))
		done
	fi
	size=$(stat -c %s "$f")
	echo "## $f: $((size / 1048576)) MB"
	for r in $(seq "$rounds"); do
		for tool in schedoctor gotool; do
			case $tool in
			schedoctor) out=$(timed "schedoctor" "$dir/schedoctor" trace -json -fail none "$f") ;;
			gotool)
				[ $((size / 1048576)) -le "$gotool_max" ] || continue
				out=$(timed "go-tool-trace" go tool trace -pprof=sched "$f")
				;;
			esac
			set -- $out
			[ $# -eq 3 ] || continue
			echo "$1 $2 $3 $(awk -v b="$size" -v s="$2" 'BEGIN { printf "%.1f", b / 1048576 / s }')"
		done
	done
done
