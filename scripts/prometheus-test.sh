#!/usr/bin/env bash
# prometheus-test.sh runs `schedoctor check -prometheus` against the real
# Prometheus: it builds Prometheus (and promtool) from the Go module proxy,
# starts three lab programs on loopback, each serving net/http/pprof and a
# /metrics page (busyselect, which spins in a select with a default, SD204;
# its fixed twin; workerpool, a healthy control), starts Prometheus on
# 127.0.0.1 scraping them every second as job "lab", waits until all three
# are up, and runs one command:
#
#   schedoctor check -prometheus http://127.0.0.1:PORT -job lab -seconds N
#
# It asserts that the spinning target alone is named with SD204 at
# busyselect's busy select (internal/lab/busyselect/main.go: the select
# marked "lab:SD101", SD204's hot line "lab:SD204" among the locations),
# that the two others are clean (no finding at warning or above), and
# that the command took at most
# ceil(3 / concurrency) x capture time + 5 s, the capture time being what
# -seconds makes of one target's captures (profile, trace, mutex and block
# windows: fleet.CaptureTime).
#
# With -rules (or PROMTOOL_RULES=1) it also runs scripts/mixin-test.sh
# (`promtool check rules` and `promtool test rules`) with that promtool on
# live/prom/mixin/*.yml when that directory exists.
#
# The binaries are built once into a cache outside the repository,
# ${XDG_CACHE_HOME:-$HOME/.cache}/schedoctor/prometheus-$VERSION, from a
# copy of the module's source with its own go.mod and go.sum
# (GOFLAGS=-mod=mod, GOWORK=off). The web UI's assets are not in the
# module (they are built by npm into web/ui/static); Prometheus built
# without the builtinassets tag serves its API and only the UI's pages
# fail, which this test does not use.
#
# It skips (exit 0, with the reason) when the module proxy or curl is out
# of reach, and is not part of .ci/run: the first build takes minutes.
# Everything it starts is killed on exit; the whole run is bounded
# (PROMETHEUS_TEST_TIMEOUT, default 1800 s for a first build).
#
# Usage: scripts/prometheus-test.sh [-rules]       (from anywhere)
# Environment: PROMETHEUS_VERSION (v0.316.0), CHECK_SECONDS (5),
#   CONCURRENCY (16), PROMETHEUS_REBUILD=1 to build again.
set -euo pipefail

# The whole run is bounded: timeout(1) ends it with SIGTERM, and the trap
# below kills what it started.
if [ -z "${PROMETHEUS_TEST_BOUNDED:-}" ]; then
	PROMETHEUS_TEST_BOUNDED=1 exec timeout -s TERM "${PROMETHEUS_TEST_TIMEOUT:-1800}" "$0" "$@"
fi

VERSION=${PROMETHEUS_VERSION:-v0.316.0}
MODULE=github.com/prometheus/prometheus
SECONDS_FLAG=${CHECK_SECONDS:-5}
CONCURRENCY=${CONCURRENCY:-16}
RULES=${PROMTOOL_RULES:-0}
[ "${1:-}" = "-rules" ] && RULES=1
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/schedoctor/prometheus-$VERSION
work=$(mktemp -d)
pids=()

cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	chmod -R u+w "$work" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "FAIL: interrupted or out of time (PROMETHEUS_TEST_TIMEOUT)"; exit 1' INT TERM

echo "== schedoctor check -prometheus against Prometheus ${VERSION}"
if ! command -v curl >/dev/null; then
	echo "SKIP: curl is needed to wait for Prometheus's targets"
	exit 0
fi

# 1. Prometheus and promtool, built once.
if [ "${PROMETHEUS_REBUILD:-0}" = 1 ] || [ ! -x "$cache/prometheus" ] || [ ! -x "$cache/promtool" ]; then
	# go mod download -json reports a failure in its JSON ("Error").
	go mod download -json "$MODULE@$VERSION" >"$work/download.json" 2>&1 || true
	src=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' "$work/download.json")
	if [ -z "$src" ]; then
		echo "SKIP: cannot download $MODULE@$VERSION from the module proxy:"
		grep -v '^[{}]' "$work/download.json" | sed 's/^[[:space:]]*/	/'
		exit 0
	fi
	mkdir -p "$cache"
	cp -r "$src" "$work/prometheus"
	chmod -R u+w "$work/prometheus"
	appver=$(cat "$work/prometheus/VERSION" 2>/dev/null || echo "$VERSION")
	ldflags="-X github.com/prometheus/common/version.Version=$appver -X github.com/prometheus/common/version.Branch=module-proxy"
	start=$(date +%s)
	if ! (cd "$work/prometheus" && GOWORK=off GOFLAGS=-mod=mod go build -ldflags "$ldflags" -o "$cache/prometheus.tmp" ./cmd/prometheus &&
		GOWORK=off GOFLAGS=-mod=mod go build -ldflags "$ldflags" -o "$cache/promtool.tmp" ./cmd/promtool) >"$work/build.log" 2>&1; then
		if grep -q 'proxy.golang.org\|dial tcp\|no such host' "$work/build.log"; then
			echo "SKIP: the module proxy did not serve Prometheus's dependencies:"
			tail -5 "$work/build.log" | sed 's/^/	/'
			exit 0
		fi
		echo "FAIL: building Prometheus $VERSION:"
		tail -20 "$work/build.log"
		exit 1
	fi
	mv "$cache/prometheus.tmp" "$cache/prometheus"
	mv "$cache/promtool.tmp" "$cache/promtool"
	echo "built prometheus and promtool $appver in $(($(date +%s) - start)) s into $cache"
fi
"$cache/prometheus" --version 2>&1 | head -1

if [ "$RULES" = 1 ]; then
	# The mixin's checks (check rules and its unit tests) are
	# mixin-test.sh's, run with the promtool just built.
	PROMTOOL="$cache/promtool" "$repo/scripts/mixin-test.sh"
fi

# 2. schedoctor and the lab programs. The programs are the lab's own
# (internal/lab/busyselect, workerpool), built with one file added by an
# overlay (go build -overlay): it serves net/http/pprof and a /metrics page
# in Prometheus's text format on LAB_HTTP_ADDR and prints its address. The
# overlay leaves the programs' files, and the lines the findings name, as
# they are in the repository.
cat >"$work/zz_prometheus_serve.go" <<'GO'
package main

import (
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime"
)

func init() {
	addr := os.Getenv("LAB_HTTP_ADDR")
	if addr == "" {
		return
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	http.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		fmt.Fprintf(w, "# HELP lab_goroutines Goroutines that exist.\n# TYPE lab_goroutines gauge\nlab_goroutines %d\n", runtime.NumGoroutine())
	})
	fmt.Printf("http://%s\n", l.Addr())
	go http.Serve(l, nil)
}
GO
printf '{"Replace":{"%s":"%s","%s":"%s"}}\n' \
	"$repo/internal/lab/busyselect/zz_prometheus_serve.go" "$work/zz_prometheus_serve.go" \
	"$repo/internal/lab/workerpool/zz_prometheus_serve.go" "$work/zz_prometheus_serve.go" >"$work/overlay.json"
mkdir -p "$work/bin"
(cd "$repo" && GOWORK=off go build -o "$work/bin/schedoctor" ./cmd/schedoctor &&
	GOWORK=off go build -overlay "$work/overlay.json" -o "$work/bin/" ./internal/lab/busyselect ./internal/lab/workerpool)

# start NAME ARGS...: runs a lab program on a free loopback port and sets
# $addr to its host:port.
start_lab() {
	local name=$1
	shift
	: >"$work/$name.out"
	LAB_HTTP_ADDR=127.0.0.1:0 "$@" -duration 30m >"$work/$name.out" 2>"$work/$name.err" &
	pids+=("$!")
	for _ in $(seq 100); do
		addr=$(sed -n 's|^http://||p' "$work/$name.out" | head -1)
		[ -n "$addr" ] && return 0
		sleep 0.1
	done
	echo "FAIL: $name did not print its address:"
	cat "$work/$name.err"
	exit 1
}
start_lab spin "$work/bin/busyselect"
spin=$addr
start_lab fixed "$work/bin/busyselect" -fixed
fixed=$addr
# One P: a healthy pool that keeps a core busy, not both of a small machine.
start_lab pool env GOMAXPROCS=1 "$work/bin/workerpool"
pool=$addr
echo "lab: busyselect (spins) at $spin, busyselect -fixed at $fixed, workerpool at $pool"

# 3. Prometheus on a free loopback port, scraping the three as job "lab".
port=
for p in $(seq 19090 19190); do
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
		port=$p
		break
	fi
done
[ -n "$port" ] || { echo "FAIL: no free port in 19090-19190"; exit 1; }
cat >"$work/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: lab
    static_configs:
      - targets: ['$spin', '$fixed', '$pool']
YML
"$cache/prometheus" --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/data" \
	--web.listen-address="127.0.0.1:$port" >"$work/prometheus.log" 2>&1 &
pids+=("$!")
prom=http://127.0.0.1:$port
up=0
for _ in $(seq 120); do
	up=$(curl -fsS "$prom/api/v1/targets?state=active&scrapePool=lab" 2>/dev/null | grep -o '"health":"up"' | wc -l) || up=0
	[ "$up" -ge 3 ] && break
	sleep 0.5
done
if [ "$up" -lt 3 ]; then
	echo "FAIL: Prometheus at $prom has $up of 3 targets up after 60 s:"
	tail -20 "$work/prometheus.log"
	curl -sS "$prom/api/v1/targets?state=active" | head -c 2000
	exit 1
fi
echo "prometheus at $prom: 3 targets of job lab up"

# 4. The one command, timed.
# busyselect marks the busy select's line (lab:SD101, where check's join
# places the cause once it has read the source) and the hot line the
# profile's SD204 names (lab:SD204, the case below it).
line=$(grep -n 'lab:SD101' "$repo/internal/lab/busyselect/main.go" | cut -d: -f1)
hot=$(grep -n 'lab:SD204' "$repo/internal/lab/busyselect/main.go" | cut -d: -f1)
trace=$((SECONDS_FLAG / 3))
[ "$trace" -ge 1 ] || trace=1
capture=$((SECONDS_FLAG + trace + 4))
bound=$((((3 + CONCURRENCY - 1) / CONCURRENCY) * capture + 5))
echo "== schedoctor check -prometheus $prom -job lab -seconds $SECONDS_FLAG (capture time ${capture} s, bound ${bound} s)"
t0=$(date +%s%N)
set +e
(cd "$repo" && "$work/bin/schedoctor" check -wide -fail none -prometheus "$prom" -job lab -seconds "$SECONDS_FLAG" \
	-concurrency "$CONCURRENCY") >"$work/check.out" 2>"$work/check.err"
code=$?
set -e
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
cat "$work/check.out"
echo "-- exit $code, $((ms / 1000)).$(printf '%03d' $((ms % 1000))) s (progress on stderr: $(wc -l <"$work/check.err") lines)"

fail=0
if [ "$code" -ne 0 ]; then
	echo "FAIL: schedoctor check exited $code:"
	tail -20 "$work/check.err"
	fail=1
fi
# A target that is not clean is listed with its findings' count first
# (a clean one with "clean").
if ! grep -Eq "^  $spin +[0-9]+ finding\(s\): " "$work/check.out"; then
	echo "FAIL: the spinning target $spin is not reported with findings at warning or above"
	fail=1
fi
# The finding across the targets at busyselect's select: headed by the
# profile's SD204, or by the trace's SD308 when this machine's load left
# the spin less than the CPU that makes SD204 critical, SD204 then being
# among the rules its sources agree on; SD204's own line among its
# locations. It must name the spinning target alone.
awk -v at="1 of 3 targets of job lab at main.go:$line (main.bad)" '
	index($0, at) { on = 1 }
	on && (/^  SD[0-9]+ / && !index($0, at) || /^[A-Z]+$/) { on = 0 }
	on' "$work/check.out" >"$work/cause.txt"
if [ ! -s "$work/cause.txt" ]; then
	echo "FAIL: no finding across the targets at main.go:$line (main.bad), busyselect's lab:SD204 line"
	fail=1
elif ! head -1 "$work/cause.txt" | grep -q '^  SD204 ' && ! tr -s ' \n' ' ' <"$work/cause.txt" | grep -q 'rules SD204'; then
	echo "FAIL: the cause at main.go:$line is not SD204's:"
	cat "$work/cause.txt"
	fail=1
elif ! grep -Eq "busyselect/main.go:$hot \(main.bad\)\$" "$work/cause.txt"; then
	echo "FAIL: the cause at main.go:$line does not list SD204's line main.go:$hot among its locations:"
	cat "$work/cause.txt"
	fail=1
elif ! grep -Eq "note: targets: $spin\$" "$work/cause.txt"; then
	echo "FAIL: the cause at main.go:$line does not name $spin alone"
	fail=1
else
	echo "cause: $(head -1 "$work/cause.txt" | sed 's/^ *//')"
fi
for t in "$fixed" "$pool"; do
	# Clean: no finding at warning or above (internal/lab's Healthy: no
	# source warns); an info finding is listed after "clean; info:".
	if ! grep -Eq "^  $t +clean[ ;]" "$work/check.out"; then
		echo "FAIL: the healthy target $t is not reported clean"
		fail=1
	fi
done
if [ "$ms" -gt $((bound * 1000)) ]; then
	echo "FAIL: took $ms ms, over the bound of $bound s"
	fail=1
fi
if [ "$fail" -ne 0 ]; then
	echo "-- stderr:"
	cat "$work/check.err"
	exit 1
fi
echo "PASS: through Prometheus, the busy select at busyselect main.go:$line (SD204 at :$hot) on $spin alone; $fixed and $pool clean; $ms ms <= $bound s"
