#!/bin/sh
# Measures `schedoctor profile` on synthetic merged fleet profiles (issue 23)
# against the floor, pprof's own profile.Parse of the same file (a program
# that does nothing else: profile/internal/benchprof parse), and against
# `go tool pprof -top`. Run from the repository root.
#
#   scripts/bench-profile.sh [SAMPLES...]     default: 100000 500000 1000000
#
# For each size it writes the profile into $BENCH_DIR (default
# /tmp/schedoctor-bench, never committed) with profile/internal/benchprof gen
# (synth.Fleet: depth 32, pod and version labels, a planted select spin),
# then runs the three tools alternately, $ROUNDS times each (default 3),
# printing wall seconds, peak RSS and CPU seconds (user+system)
# (/usr/bin/time -f '%e %M %U %S'), the load average before each round,
# and then the medians and their ratio to Parse. On a busy machine the CPU
# seconds are the steadier figure: the wall time waits for a CPU.
# PPROF=0 leaves out go tool pprof (the slowest of the three).
set -eu
dir=${BENCH_DIR:-/tmp/schedoctor-bench}
rounds=${ROUNDS:-3}
sizes=${*:-100000 500000 1000000}
mkdir -p "$dir"
go build -o "$dir/" ./cmd/schedoctor ./profile/internal/benchprof
pprof=$(go tool -n pprof)

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

echo "# $(go version), $(nproc) CPUs, $(uname -srm)"
for n in $sizes; do
	f="$dir/fleet-$n.pb.gz"
	[ -f "$f" ] || "$dir/benchprof" gen -n "$n" -o "$f"
	echo "## $f: $n samples, $(($(stat -c %s "$f") / 1024)) KB gzip, $(($(gzip -dc "$f" | wc -c) / 1024)) KB decompressed"
	: >"$dir/runs.out"
	for r in $(seq "$rounds"); do
		echo "# round $r, load $(cut -d' ' -f1-3 /proc/loadavg)"
		{
			timed parse "$dir/benchprof" parse "$f"
			timed schedoctor "$dir/schedoctor" profile -fail none "$f"
			if [ "${PPROF:-1}" != 0 ]; then
				timed pprof-top env PPROF_BINARY_PATH=/nonexistent PPROF_TMPDIR="$dir" "$pprof" -top "$f"
			fi
		} | tee -a "$dir/runs.out"
	done
	# Medians, and the ratio of each tool's to Parse's.
	awk '{ t[$1] = t[$1] " " $2; m[$1] = m[$1] " " $3; c[$1] = c[$1] " " $4 }
	function median(s,   a, k, i, j, x) {
		k = split(s, a, " ")
		for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	END {
		pt = median(t["parse"]); pm = median(m["parse"]); pc = median(c["parse"])
		printf "# median: tool wall-seconds peak-RSS-MB cpu-seconds (× Parse)\n"
		for (tool in t) printf "median %s %.2f s (%.2f×) %d MB (%.2f×) %.2f s CPU (%.2f×)\n", tool, median(t[tool]), median(t[tool]) / pt, median(m[tool]), median(m[tool]) / pm, median(c[tool]), median(c[tool]) / pc
	}' "$dir/runs.out"
done
