#!/bin/sh
# Regenerates the execution-trace fixtures of exectrace/testdata from the lab
# programs, then the golden outputs. Run from the repository root. Traces
# vary from run to run: review the goldens' diff before committing.
set -eu
out=exectrace/testdata
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/" ./internal/lab/mutex ./internal/lab/sleeppoll ./internal/lab/gosched \
	./internal/lab/gcpressure ./internal/lab/overprocs ./internal/lab/workerpool ./internal/lab/pingpong
"$bin/mutex" -duration 200ms -trace $out/mutex.trace
"$bin/mutex" -fixed -duration 200ms -trace $out/mutex-fixed.trace
"$bin/sleeppoll" -duration 50ms -trace $out/sleeppoll.trace
"$bin/gosched" -duration 10ms -trace $out/gosched.trace
"$bin/gcpressure" -duration 150ms -trace $out/gcpressure.trace
GOMAXPROCS=8 "$bin/overprocs" -duration 300ms -trace $out/overprocs.trace >/dev/null
"$bin/workerpool" -duration 1200ms -trace $out/workerpool.trace >/dev/null
"$bin/pingpong" -duration 10ms -trace $out/pingpong.trace >/dev/null
ls -l $out/*.trace
go test ./exectrace -run TestGolden -update
go test ./internal/cli -run TestTraceGolden -update
