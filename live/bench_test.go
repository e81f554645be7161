package live_test

import (
	"crypto/sha256"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

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
// event every few microseconds, the costly case for the flight recorder.
func rpcWork(n int) {
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

func totalMemory() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func BenchmarkOverhead(b *testing.B) {
	for _, w := range []struct {
		name string
		run  func(int)
	}{{"cpu", cpuWork}, {"rpc", rpcWork}} {
		// off: no monitor; metrics: readings only (NoFlightRecorder); on:
		// the defaults, flight recorder included.
		for _, mode := range []string{"off", "metrics", "on"} {
			b.Run(w.name+"/"+mode, func(b *testing.B) {
				var m *live.Monitor
				before := totalMemory()
				if mode != "off" {
					var err error
					m, err = live.Start(b.Context(), live.Options{Dir: b.TempDir(), NoFlightRecorder: mode == "metrics"})
					if err != nil {
						b.Fatal(err)
					}
					// Let the flight recorder fill its window.
					time.Sleep(100 * time.Millisecond)
				}
				b.ResetTimer()
				w.run(b.N)
				b.StopTimer()
				if m != nil {
					after := totalMemory()
					b.ReportMetric(float64(int64(after)-int64(before))/1e6, "MB-added")
					m.Stop()
				}
			})
		}
	}
}
