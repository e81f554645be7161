#!/bin/sh
# Regenerates the execution-trace fixtures of exectrace/testdata from the lab
# programs, then the golden outputs. Run from the repository root. Traces
# vary from run to run: review the goldens' diff before committing.
set -eu
out=exectrace/testdata
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/" ./internal/lab/mutex ./internal/lab/sleeppoll ./internal/lab/gosched \
	./internal/lab/gcpressure ./internal/lab/overprocs ./internal/lab/workerpool ./internal/lab/pingpong \
	./internal/lab/spikes
"$bin/mutex" -duration 200ms -trace $out/mutex.trace
"$bin/mutex" -fixed -duration 200ms -trace $out/mutex-fixed.trace
"$bin/sleeppoll" -duration 50ms -trace $out/sleeppoll.trace
"$bin/gosched" -duration 10ms -trace $out/gosched.trace
"$bin/gcpressure" -duration 150ms -trace $out/gcpressure.trace
GOMAXPROCS=8 "$bin/overprocs" -duration 300ms -trace $out/overprocs.trace >/dev/null
"$bin/workerpool" -duration 1200ms -trace $out/workerpool.trace >/dev/null
"$bin/pingpong" -duration 10ms -trace $out/pingpong.trace >/dev/null
# issue 22's spikes: bursts of 40µs goroutines, a burst shorter than a
# window on 2 Ps; the waker variants and the bursts too small to be heavy
"$bin/spikes" -duration 1100ms -work 40us -trace $out/spikes.trace
"$bin/spikes" -fixed -duration 1100ms -work 40us -trace $out/spikes-fixed.trace
for v in method closure cond wg; do
	"$bin/spikes" -burst 0 -waiters 200 -waker $v -duration 400ms -trace $out/spikes-$v.trace
done
"$bin/spikes" -burst 0 -waiters 40 -duration 400ms -trace $out/spikes-small.trace
GOMAXPROCS=16 "$bin/spikes" -burst 0 -waiters 100 -duration 400ms -trace $out/spikes-small16.trace
ls -l $out/*.trace
go test ./exectrace -run TestGolden -update
go test ./internal/cli -run TestTraceGolden -update
