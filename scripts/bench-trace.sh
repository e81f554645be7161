#!/bin/sh
# Benchmarks `schedoctor trace` against the bare read of the same trace
# (internal/tracebare: golang.org/x/exp/trace, every event, nothing else)
# and `go tool trace -pprof=sched`, on large execution traces from the
# lab's pingpong program (the busiest trace writer of the lab: about 55 MB
# of trace per second here). Run from the repository root.
#
#   scripts/bench-trace.sh [MB...]     default: 220 440
#
# For each size it records a trace into $BENCH_DIR (default
# /tmp/schedoctor-bench, never committed), then runs, alternately, $ROUNDS
# times each (default 3):
#
#   bare-1cpu    the bare read on one CPU (taskset -c 0, GOMAXPROCS=1)
#   floor-1cpu   the bare read that also asks every event for its state
#                transition (tracebare -transitions), on one CPU: what any
#                analysis of scheduling over the reader's API must pay
#   sched-1cpu   schedoctor trace on one CPU (taskset -c 0, GOMAXPROCS=1)
#   bare         the bare read with every CPU (its decoding is one goroutine;
#                the garbage collector uses the others)
#   sched        schedoctor trace with every CPU (-j 1, the default: one
#                decoder pipelined with the analysis)
#   sched-jN     schedoctor trace -j N with N = every CPU (generations
#                decoded in parallel)
#   go-tool-trace  go tool trace -pprof=sched
#
# printing wall seconds, peak RSS and CPU seconds (user+system)
# (/usr/bin/time -f '%e %M %U %S') of each run, then the median of each and
# its ratio to bare-1cpu. On a busy machine the wall times swing with the
# others' load; the CPU seconds much less. go tool trace holds the
# whole trace in memory (about 30-40× its size): it runs only on traces up to
# $GOTOOL_MAX_MB (default 250) so that it cannot exhaust the machine;
# GOTOOL_MAX_MB=0 leaves it out. The load average is printed before and after
# each size: on a shared machine, say it with the numbers.
set -eu
dir=${BENCH_DIR:-/tmp/schedoctor-bench}
rounds=${ROUNDS:-3}
gotool_max=${GOTOOL_MAX_MB:-250}
sizes=${*:-220 440}
mkdir -p "$dir"
go build -o "$dir/" ./cmd/schedoctor ./internal/lab/pingpong ./internal/tracebare

timed() { # label command...: prints "label seconds peak-RSS-MB cpu-seconds"
	label=$1
	shift
	/usr/bin/time -f '%e %M %U %S' -o "$dir/time.out" "$@" >/dev/null 2>"$dir/stderr.out" || {
		echo "$label: failed:" >&2
		cat "$dir/stderr.out" >&2
		return 0
	}
	read -r secs kb user sys <"$dir/time.out"
	echo "$label $secs $((kb / 1024)) $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')"
}

load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "# $(go version), $(nproc) CPUs, $(uname -srm)"
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
	tools="bare-1cpu floor-1cpu sched-1cpu bare sched sched-j$(nproc)"
	[ $((size / 1048576)) -le "$gotool_max" ] && tools="$tools go-tool-trace"
	echo "## $f: $((size / 1048576)) MB, load before $(load)"
	echo "# tool seconds peak-RSS-MB cpu-seconds"
	: >"$dir/runs.out"
	for r in $(seq "$rounds"); do
		for tool in $tools; do
			case $tool in
			bare-1cpu) out=$(timed "$tool" env GOMAXPROCS=1 taskset -c 0 "$dir/tracebare" "$f") ;;
			floor-1cpu) out=$(timed "$tool" env GOMAXPROCS=1 taskset -c 0 "$dir/tracebare" -transitions "$f") ;;
			sched-1cpu) out=$(timed "$tool" env GOMAXPROCS=1 taskset -c 0 "$dir/schedoctor" trace -json -fail none "$f") ;;
			bare) out=$(timed "$tool" "$dir/tracebare" "$f") ;;
			sched) out=$(timed "$tool" "$dir/schedoctor" trace -json -fail none "$f") ;;
			sched-j*) out=$(timed "$tool" "$dir/schedoctor" trace -j "$(nproc)" -json -fail none "$f") ;;
			go-tool-trace) out=$(timed "$tool" go tool trace -pprof=sched "$f") ;;
			esac
			[ -n "$out" ] || continue
			echo "$out"
			echo "$out" >>"$dir/runs.out"
		done
	done
	echo "# load after $(load)"
	echo "# tool median: seconds peak-RSS-MB cpu-seconds (n); ratios to bare-1cpu: time RSS cpu"
	med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
	for tool in $tools; do
		grep "^$tool " "$dir/runs.out" | cut -d' ' -f2- >"$dir/one.out" || continue
		n=$(wc -l <"$dir/one.out")
		s=$(cut -d' ' -f1 "$dir/one.out" | med)
		m=$(cut -d' ' -f2 "$dir/one.out" | med)
		c=$(cut -d' ' -f3 "$dir/one.out" | med)
		[ "$tool" = bare-1cpu ] && bs=$s bm=$m bc=$c
		awk -v t="$tool" -v s="$s" -v m="$m" -v c="$c" -v n="$n" -v bs="$bs" -v bm="$bm" -v bc="$bc" \
			'BEGIN { printf "%-14s %7.2f %7d %7.2f (%d)  %5.2f %5.2f %5.2f\n", t, s, m, c, n, s / bs, m / bm, c / bc }'
	done
done
