package live

import (
	"context"
	"crypto/sha256"
	"math"
	"os"
	"runtime"
	"runtime/trace"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/internal/labtest"
)

// The monitor's cost, part by part (docs/live.md, "Overhead"): what its
// sampling goroutine spends per second, and what the flight recorder adds
// to each scheduling transition of the program. An end-to-end comparison
// (BenchmarkOverhead) cannot resolve 1% on a shared machine: two
// back-to-back runs of the same CPU-bound work differ by 3–6% there.

// BenchmarkTick is one reading of the metrics with its figures, rules and
// triggers, as the monitor takes every Interval (1s), with a full window
// of readings behind it.
func BenchmarkTick(b *testing.B) {
	m, err := Start(context.Background(), Options{Dir: b.TempDir(), Interval: time.Hour, NoFlightRecorder: true})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Stop()
	for range 300 {
		m.tick()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m.tick()
	}
}

// BenchmarkBudgetCheck is one check of the flight recorder's budget, as
// the monitor makes every 100ms while the recorder runs.
func BenchmarkBudgetCheck(b *testing.B) {
	m, err := Start(context.Background(), Options{Dir: b.TempDir(), Interval: time.Hour, FlightRecorderMemory: math.MaxInt64})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Stop()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m.checkBudget()
	}
}

// BenchmarkTransitionCost measures the CPU the flight recorder adds to
// each scheduling transition, on two workloads: "pingpong", two goroutines
// on one P handing a token back and forth over unbuffered channels (each
// hand-off parks one goroutine and readies the other), and "rpc", the
// overhead benchmark's 16 clients and 4 servers on every P. Runs alternate
// without and with a flight recorder; each is charged the process's CPU
// time (rusage) per transition it made (eight times the sampled
// /sched/latencies count). It reports the median CPU added per
// transition, with the 95% bounds of that median, and the CPU per
// transition without the recorder. What the recorder costs a program is
// its transitions per second times the added CPU (budget.go uses it).
//
//	go test -run X -bench TransitionCost -benchtime 1x ./live/
//
// SCHEDOCTOR_COST_ROUNDS sets the pairs of runs (default 30).
func BenchmarkTransitionCost(b *testing.B) {
	rounds := 30
	if v, err := parseRounds(os.Getenv("SCHEDOCTOR_COST_ROUNDS")); err == nil {
		rounds = v
	}
	pingpong := func() {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		ping, pong := make(chan int), make(chan int)
		go func() {
			for v := range ping {
				pong <- v + 1
			}
			close(pong)
		}()
		for i := 0; i < 100000; i++ {
			ping <- i
			<-pong
		}
		close(ping)
		<-pong
	}
	rpc := func() { rpcRounds(100000) }
	for _, w := range []struct {
		name string
		run  func()
	}{{"pingpong", pingpong}, {"rpc", rpc}} {
		b.Run(w.name, func(b *testing.B) {
			// measure returns the CPU per transition of one run, in ns.
			measure := func(recorder bool) float64 {
				var fr *trace.FlightRecorder
				if recorder {
					fr = trace.NewFlightRecorder(trace.FlightRecorderConfig{})
					if err := fr.Start(); err != nil {
						b.Fatal(err)
					}
					defer fr.Stop()
				}
				var br budgetReader
				c0, ok0 := labtest.ProcessCPU()
				br.read(time.Now())
				w.run()
				r, ok := br.read(time.Now().Add(time.Nanosecond))
				c1, ok1 := labtest.ProcessCPU()
				if !ok || !ok0 || !ok1 || r.step == 0 {
					b.Skip("no CPU time or scheduling latency histogram to measure with")
				}
				return float64(c1-c0) / r.step
			}
			w.run() // warm up
			var added, base []float64
			for r := range rounds {
				var off, on float64
				for k := range 2 {
					if (r+k)%2 == 0 {
						off = measure(false)
					} else {
						on = measure(true)
					}
				}
				added = append(added, on-off)
				base = append(base, off)
			}
			slices.Sort(added)
			slices.Sort(base)
			lo, hi := medianCIOf(added)
			b.ReportMetric(medianOf(added), "cpu-ns-added/transition")
			b.ReportMetric(lo, "cpu-ns-added-lo")
			b.ReportMetric(hi, "cpu-ns-added-hi")
			b.ReportMetric(medianOf(base), "cpu-ns/transition-off")
		})
	}
}

// rpcRounds is the overhead benchmark's RPC workload (bench_test.go's
// rpcWork, which the external test package holds): n round trips between
// 16 clients and 4 servers, about 2µs of hashing each.
func rpcRounds(n int) {
	type req struct{ reply chan [32]byte }
	reqs := make(chan req)
	var servers sync.WaitGroup
	for range 4 {
		servers.Add(1)
		go func() {
			defer servers.Done()
			for r := range reqs {
				var sum [32]byte
				for range 8 {
					sum = sha256.Sum256(sum[:])
				}
				r.reply <- sum
			}
		}()
	}
	var clients sync.WaitGroup
	const c = 16
	for i := range c {
		clients.Add(1)
		go func() {
			defer clients.Done()
			r := req{reply: make(chan [32]byte)}
			for j := i; j < n; j += c {
				reqs <- r
				<-r.reply
			}
		}()
	}
	clients.Wait()
	close(reqs)
	servers.Wait()
}

// For the external tests (bench_test.go, budget_test.go), which share
// the workload and the statistics.
var (
	RPCWork  = rpcRounds
	Median   = medianOf
	MedianCI = medianCIOf
)

func parseRounds(s string) (int, error) {
	var n int
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, os.ErrInvalid
		}
		n = n*10 + int(c-'0')
	}
	if s == "" || n == 0 {
		return 0, os.ErrInvalid
	}
	return n, nil
}

func medianOf(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// medianCIOf bounds the median of sorted with about 95% confidence,
// whatever the distribution: ranks n/2 ± 1.96·√n/2.
func medianCIOf(sorted []float64) (lo, hi float64) {
	n := float64(len(sorted))
	d := 1.96 * math.Sqrt(n) / 2
	i := max(0, int(math.Floor(n/2-d)))
	j := min(len(sorted)-1, int(math.Ceil(n/2+d))-1)
	return sorted[i], sorted[j]
}
