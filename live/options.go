package live

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// Options configure a Monitor. The zero value of every field is its
// default, given in the field's comment.
type Options struct {
	// Interval between two readings of runtime/metrics. Default 1s.
	Interval time.Duration
	// Window is how much history is kept (Window/Interval readings, the
	// ring's fixed size). Growth (SD701, SD703) and GC (SD704) are judged
	// over it. Default 5m.
	Window time.Duration
	// LatencySpan is the recent span over which scheduling latency (SD702)
	// and its trigger are judged. Default 10s.
	LatencySpan time.Duration

	// LatencyP99 is the SD702 threshold: the 95% confidence interval of the
	// p99 scheduling latency over LatencySpan must lie entirely above it.
	// Default 10ms.
	LatencyP99 time.Duration
	// MinLatencySamples is the fewest sampled transitions (one in eight is
	// sampled) a span needs before its p99 is judged. Default 100.
	MinLatencySamples int
	// RunnablePerP triggers a snapshot when the runnable goroutines exceed
	// RunnablePerP × GOMAXPROCS at a reading. Default 10.
	RunnablePerP float64
	// GoroutineGrowth is the smallest rise of waiting goroutines that SD701
	// reports (also at least a quarter of the starting count). Default 100.
	GoroutineGrowth int
	// ThreadGrowth is the smallest rise of OS threads that SD703 reports
	// (also at least a quarter of the starting count). Default 20.
	ThreadGrowth int
	// GCCPUShare is the SD704 threshold on GC's share of the CPU the
	// process used (not counting idle Ps). Default 0.2.
	GCCPUShare float64
	// GCPauseP99 is the SD704 threshold on the p99 GC stop-the-world pause.
	// Default 10ms.
	GCPauseP99 time.Duration

	// Dir receives flight-recorder snapshots. Default
	// $TMPDIR/schedoctor-live-UID (UID: the process's user ID), so that
	// two users' services never share one. It is created 0700 when
	// missing; an existing Dir must be a directory (not a symbolic link)
	// owned by the process's user that group and others cannot write,
	// else it is refused: no snapshot is taken, and State.DirRefused says
	// why. Snapshots are 0600.
	Dir string
	// NoFlightRecorder keeps the monitor to metrics: no trace is recorded
	// and no snapshot is written.
	NoFlightRecorder bool
	// FlightRecorderAge is how much recent execution the flight recorder
	// keeps (FlightRecorderConfig.MinAge; the recorder keeps whole
	// generations of about a second, so a little more). Default 2s: the
	// trace analysis judges a backlog (SD302) by its share of the whole
	// trace, so a short window ending with the trouble keeps a one-second
	// spike visible.
	FlightRecorderAge time.Duration
	// FlightRecorderBytes bounds the flight recorder's buffer
	// (FlightRecorderConfig.MaxBytes). Default 8 MiB. A snapshot larger
	// than four times this is abandoned.
	FlightRecorderBytes int64
	// FlightRecorderMemory is the memory budget of the flight recorder.
	// The runtime keeps the trace generation being written and at least
	// one complete one (about a second each) whatever
	// FlightRecorderBytes says, so what it holds grows with the program's
	// scheduling rate. The monitor estimates it every 100ms from the
	// scheduling transitions of the last two seconds (budget.go), pauses
	// the recorder before the estimate passes this budget, and records
	// again once it is below half. While paused a trigger writes no
	// snapshot. Default 8 MiB; negative: no budget.
	FlightRecorderMemory int64
	// FlightRecorderCPU is the CPU budget of the flight recorder, a share
	// of GOMAXPROCS's CPU. The recorder adds about 375ns of CPU to every
	// scheduling transition (measured: BenchmarkTransitionCost), so a
	// program that schedules often pays for it in throughput; the monitor
	// pauses the recorder while the transitions of the last minute cost
	// more than this (a minute, so that a spike, the thing to record,
	// does not pause it), and records again below half. Default 0.01 (1%:
	// a sustained 53,000 transitions/s with GOMAXPROCS=2); negative: no
	// budget.
	FlightRecorderCPU float64
	// SnapshotDelay is the longest wait after a latency or runnable
	// trigger before the snapshot is taken: it waits until no more
	// goroutines are runnable than there are Ps (checked every Interval),
	// so that the trace ends with the trouble, or this long if it lasts.
	// Default 5s; negative: at once.
	SnapshotDelay time.Duration
	// SnapshotGap is the least time between two snapshots. Default 1m.
	SnapshotGap time.Duration
	// MaxSnapshots bounds the snapshot files kept in Dir; the oldest are
	// removed first. Default 10.
	MaxSnapshots int
	// MaxSnapshotBytes bounds the snapshots' total size in Dir. Default
	// 100 MiB.
	MaxSnapshotBytes int64

	// Diagnose, when set, analyses each snapshot in the background; its
	// findings join Findings(), naming the snapshot. The core stays on the
	// standard library: live/livetrace.Diagnose wires schedoctor's trace
	// analysis (exectrace) here.
	Diagnose func(ctx context.Context, path string) ([]finding.Finding, error)
	// Logf, when set, receives one line per trigger, snapshot and error.
	// Logging is off by default.
	Logf func(format string, args ...any)

	// now is the clock, replaced by tests.
	now func() time.Time
}

func (o Options) withDefaults() (Options, error) {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"Interval", o.Interval}, {"Window", o.Window}, {"LatencySpan", o.LatencySpan}, {"LatencyP99", o.LatencyP99},
		{"GCPauseP99", o.GCPauseP99}, {"FlightRecorderAge", o.FlightRecorderAge}, {"SnapshotGap", o.SnapshotGap}} {
		if d.v < 0 {
			return o, fmt.Errorf("live: Options.%s is negative (%v)", d.name, d.v)
		}
	}
	if o.MinLatencySamples < 0 || o.GoroutineGrowth < 0 || o.ThreadGrowth < 0 || o.MaxSnapshots < 0 ||
		o.MaxSnapshotBytes < 0 || o.FlightRecorderBytes < 0 || o.RunnablePerP < 0 || o.GCCPUShare < 0 {
		return o, fmt.Errorf("live: negative option in %+v", o)
	}
	if math.IsNaN(o.FlightRecorderCPU) || math.IsNaN(o.GCCPUShare) {
		return o, fmt.Errorf("live: Options.FlightRecorderCPU or GCCPUShare is NaN")
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&o.Interval, time.Second)
	def(&o.Window, 5*time.Minute)
	def(&o.LatencySpan, 10*time.Second)
	def(&o.LatencyP99, 10*time.Millisecond)
	def(&o.GCPauseP99, 10*time.Millisecond)
	def(&o.FlightRecorderAge, 2*time.Second)
	def(&o.SnapshotGap, time.Minute)
	def(&o.SnapshotDelay, 5*time.Second)
	o.SnapshotDelay = max(o.SnapshotDelay, 0)
	if o.Window < 4*o.Interval {
		o.Window = 4 * o.Interval
	}
	if o.LatencySpan < o.Interval {
		o.LatencySpan = o.Interval
	}
	if o.MinLatencySamples == 0 {
		o.MinLatencySamples = 100
	}
	if o.RunnablePerP == 0 {
		o.RunnablePerP = 10
	}
	if o.GoroutineGrowth == 0 {
		o.GoroutineGrowth = 100
	}
	if o.ThreadGrowth == 0 {
		o.ThreadGrowth = 20
	}
	if o.GCCPUShare == 0 {
		o.GCCPUShare = 0.2
	}
	if o.FlightRecorderMemory == 0 {
		o.FlightRecorderMemory = 8 << 20
	}
	if o.FlightRecorderCPU == 0 {
		o.FlightRecorderCPU = 0.01
	}
	if o.FlightRecorderBytes == 0 {
		o.FlightRecorderBytes = 8 << 20
	}
	if o.MaxSnapshots == 0 {
		o.MaxSnapshots = 10
	}
	if o.MaxSnapshotBytes == 0 {
		o.MaxSnapshotBytes = 100 << 20
	}
	if o.Dir == "" {
		o.Dir = defaultDir()
	}
	if o.now == nil {
		o.now = time.Now
	}
	return o, nil
}

// ringSize is how many readings the window holds.
func (o Options) ringSize() int {
	return int(o.Window/o.Interval) + 1
}

// defaultDir is $TMPDIR/schedoctor-live-UID: in a shared temporary
// directory, another user could create a name common to all (and the
// monitor would then refuse it); one per user avoids that collision.
func defaultDir() string {
	name := "schedoctor-live"
	if uid := os.Getuid(); uid >= 0 { // -1 on Windows
		name += "-" + strconv.Itoa(uid)
	}
	return filepath.Join(os.TempDir(), name)
}
