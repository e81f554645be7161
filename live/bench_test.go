package live_test

import (
	"crypto/sha256"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/internal/labtest"
	"github.com/schedoctor/schedoctor/live"
)

// The overhead benchmarks run each workload without a monitor, with one
// that only reads metrics, and with the defaults (1s readings, flight
// recorder on), in the same run; compare the modes (docs/live.md has the numbers and the command). The
// monitored runs also report the memory the monitor added (MB-added: the
// runtime's total mapped memory after a GC, against before Start).

// cpuWork hashes n blocks on GOMAXPROCS goroutines: no scheduling events
// beyond preemption, the cheapest case for the tracer.
func cpuWork(n int) {
	p := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for i := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sum [32]byte
			for j := i; j < n; j += p {
				sum = sha256.Sum256(sum[:])
			}
		}()
	}
	wg.Wait()
}

// rpcWork makes n request/reply round trips over channels between 16
// clients and 4 servers, each request about 2µs of hashing: a scheduling
// event every few microseconds, the costly case for the flight recorder
// (cost_test.go's rpcRounds, which the internal benchmarks use too).
func rpcWork(n int) { live.RPCWork(n) }

// totalMemory is the memory the runtime holds after a GC: what it mapped
// less the heap it has returned to the OS, so close to the Go part of the
// resident set (mapped memory alone keeps a past peak forever).
func totalMemory() uint64 {
	runtime.GC()
	return heldMemory()
}

func heldMemory() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() - s[1].Value.Uint64()
}

// BenchmarkOverhead measures, for each workload, four modes interleaved
// in one process: each round runs the same amount of work without a
// monitor ("off"), with readings only ("metrics": NoFlightRecorder), with
// the defaults ("on", the flight recorder and its budgets included) and
// without a monitor again ("off2": off2/off is the noise floor), in an
// order rotated every round so that a drift of the host's load falls on
// every mode alike. It reports, against the same round's "off", the
// median, lowest and highest ratio of wall time, and the median ratio of
// the process's CPU time for the work with the 95% bounds of that median
// (less noisy: a VM's host taking the CPUs does not count); the
// monitor's own estimate of the recorder's CPU share; and the largest
// memory the monitor added (the memory the runtime holds after a GC,
// mapped less returned to the OS, against before Start). When other
// processes used more than a quarter of the CPUs over the rounds
// (labtest.Meter) it says the machine is too busy to judge a 1%
// difference (busy=1, and other-CPUs says how much they used).
//
//	go test -run X -bench Overhead -benchtime 1x ./live/
//
// b.N is not used: every run does rounds × modes runs of a fixed amount of
// work, calibrated to about 200ms without the monitor.
func BenchmarkOverhead(b *testing.B) {
	rounds := 9
	// SCHEDOCTOR_OVERHEAD_ROUNDS=0 measures only the sustained memory, in
	// a process whose heap no earlier round has grown (mapped memory is
	// reused, so a peak after the rounds understates a fresh service's).
	if v, err := strconv.Atoi(os.Getenv("SCHEDOCTOR_OVERHEAD_ROUNDS")); err == nil && v >= 0 {
		rounds = v
	}
	for _, w := range []struct {
		name string
		run  func(int)
	}{{"cpu", cpuWork}, {"rpc", rpcWork}} {
		b.Run(w.name, func(b *testing.B) {
			n := calibrate(w.run, 200*time.Millisecond)
			// The machine's CPU that other processes used over the rounds
			// (/proc/stat less this process's rusage): the load average
			// would count this benchmark's own threads, and lags a minute.
			meter := labtest.StartMeter()
			// "off2" is a second run without the monitor: off2/off is
			// the noise floor, what the same work varies by here, against
			// which the monitored modes' ratios are judged.
			modes := []string{"off", "metrics", "on", "off2"}
			ratios := map[string][]float64{}
			cpuRatios := map[string][]float64{}
			var model, rates []float64
			var mem = map[string][]float64{}
			for r := range rounds {
				took := map[string]modeRun{}
				for k := range modes {
					mode := modes[(r+k)%len(modes)]
					took[mode] = runMode(b, mode, w.run, n)
					if mode == "metrics" || mode == "on" {
						mem[mode] = append(mem[mode], took[mode].addedMB)
					}
					if mode == "on" {
						model = append(model, took[mode].modelCPU)
						rates = append(rates, took[mode].rate)
					}
				}
				for _, mode := range modes[1:] {
					ratios[mode] = append(ratios[mode], took[mode].wall.Seconds()/took["off"].wall.Seconds())
					if took[mode].cpu > 0 && took["off"].cpu > 0 {
						cpuRatios[mode] = append(cpuRatios[mode], took[mode].cpu.Seconds()/took["off"].cpu.Seconds())
					}
				}
			}
			mc := meter.Machine()
			for _, mode := range modes[1:] {
				if rs := ratios[mode]; len(rs) > 0 {
					slices.Sort(rs)
					b.ReportMetric(live.Median(rs), mode+"/off-median")
					b.ReportMetric(rs[0], mode+"/off-min")
					b.ReportMetric(rs[len(rs)-1], mode+"/off-max")
					if len(mem[mode]) > 0 {
						b.ReportMetric(slices.Max(mem[mode]), mode+"-MB-added-max")
					}
				}
				// The CPU the process used for the same work, monitor
				// included: what the monitor costs a CPU-bound service in
				// throughput, without the wall time's noise (a VM's host
				// taking the CPUs, a thread waiting for one). lo and hi
				// bound the median with 95% confidence.
				if rs := cpuRatios[mode]; len(rs) > 0 {
					slices.Sort(rs)
					lo, hi := live.MedianCI(rs)
					b.ReportMetric(live.Median(rs), mode+"/off-cpu-median")
					b.ReportMetric(lo, mode+"/off-cpu-lo")
					b.ReportMetric(hi, mode+"/off-cpu-hi")
				}
			}
			// What the monitor itself estimated the recorder cost, and
			// the scheduling rate it read, at the end of each "on" run.
			if len(model) > 0 {
				slices.Sort(model)
				slices.Sort(rates)
				b.ReportMetric(live.Median(model), "on-model-cpu-share")
				b.ReportMetric(live.Median(rates), "on-transitions/s")
			}
			// The same with the flight recorder and no budgets: what the
			// budgets save.
			for _, mode := range []string{"metrics", "on", "on-nobudget"} {
				peak, end := sustained(b, mode, w.run, n, 5*time.Second)
				b.ReportMetric(peak, mode+"-MB-peak-sustained")
				b.ReportMetric(end, mode+"-MB-added-sustained")
			}
			b.ReportMetric(float64(n), "work/round")
			if mc.OtherCPUs >= 0 {
				b.ReportMetric(mc.OtherCPUs, "other-CPUs")
			}
			if mc.Busy() {
				b.ReportMetric(1, "busy")
				b.Logf("%s: too busy to judge a 1%% difference: %s; the ratios' spread is the host's", w.name, mc)
			} else {
				b.ReportMetric(0, "busy")
				b.Logf("%s: %s", w.name, mc)
			}
		})
	}
}

// calibrate returns the work size that takes about d without a monitor.
func calibrate(run func(int), d time.Duration) int {
	n := 1000
	for {
		start := time.Now()
		run(n)
		took := time.Since(start)
		if took >= d/4 || n >= 1<<30 {
			return max(1000, int(float64(n)*d.Seconds()/max(took.Seconds(), 1e-6)))
		}
		n *= 4
	}
}

// modeRun is one timed run: its wall time, the process's CPU time over it
// (0 when it cannot be read) and the memory the monitor added (MB, 0 for
// "off").
type modeRun struct {
	wall, cpu time.Duration
	addedMB   float64
	// modelCPU and rate are the monitor's own estimate of the flight
	// recorder's CPU share and the transitions/s it read ("on" only).
	modelCPU, rate float64
}

// runMode runs n units of work in a mode and returns how long the work
// took, the CPU it used and the memory the monitor added. Every mode
// first runs the workload untimed for 1.5s: the monitor reaches the
// steady state a service under this load would see (the flight recorder
// holds whole generations of about a second, and its budget acts on the
// rate it reads), and "off" pays the same warm-up.
func runMode(b *testing.B, mode string, run func(int), n int) modeRun {
	var m *live.Monitor
	before := totalMemory()
	if mode == "metrics" || mode == "on" {
		var err error
		m, err = live.Start(b.Context(), live.Options{Dir: b.TempDir(), NoFlightRecorder: mode == "metrics"})
		if err != nil {
			b.Fatal(err)
		}
		defer m.Stop()
	}
	for warm := time.Now().Add(1500 * time.Millisecond); time.Now().Before(warm); {
		run(max(1, n/8))
	}
	cpu0, ok0 := labtest.ProcessCPU()
	start := time.Now()
	run(n)
	r := modeRun{wall: time.Since(start)}
	if cpu1, ok1 := labtest.ProcessCPU(); ok0 && ok1 {
		r.cpu = cpu1 - cpu0
	}
	if m != nil {
		st := m.State()
		r.modelCPU, r.rate = st.RecorderCPU, st.RecorderRate
		r.addedMB = float64(int64(totalMemory())-int64(before)) / 1e6
	}
	return r
}

// sustained runs the workload over and over for d with the monitor in a
// mode, as a service under steady load, and returns the peak of the
// mapped memory above what it was before Start (sampled every 100ms, no
// GC forced) and what the monitor still held at the end (after a GC), in
// MB: the flight recorder's hold follows the scheduling rate, and its
// budget acts only after two readings above it.
func sustained(b *testing.B, mode string, run func(int), n int, d time.Duration) (peak, end float64) {
	before := totalMemory()
	o := live.Options{Dir: b.TempDir(), NoFlightRecorder: mode == "metrics"}
	if mode == "on-nobudget" {
		o.FlightRecorderMemory, o.FlightRecorderCPU = -1, -1
	}
	m, err := live.Start(b.Context(), o)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Stop()
	stop := make(chan struct{})
	done := make(chan uint64)
	go func() {
		var hi uint64
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				done <- hi
				return
			case <-t.C:
				hi = max(hi, heldMemory())
			}
		}
	}()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		run(max(1, n/4))
	}
	close(stop)
	hi := <-done
	after := totalMemory()
	if st := m.State(); st.RecorderPauses > 0 {
		b.Logf("%s: flight recorder paused %d time(s): %s", mode, st.RecorderPauses, st.FlightRecorder)
	}
	return float64(int64(hi)-int64(before)) / 1e6, float64(int64(after)-int64(before)) / 1e6
}
