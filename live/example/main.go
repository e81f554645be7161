// Example is a small HTTP service with the live monitor mounted: it runs
// quietly (an in-process client calls GET /work, about 100µs of hashing,
// tagged endpoint=/work with live.Do), then after -quiet runs 100×
// GOMAXPROCS workers for -spike, fed by a dispatcher as fast as they take
// jobs, so nearly all of them are runnable (tagged job=burst), then runs quietly again until -duration. The monitor's page
// is at /debug/schedoctor/, Prometheus metrics at /metrics, both on a
// loopback listener: the way to mount them that docs/live.md describes.
//
//	go run ./live/example -dir /tmp/live-demo
//	curl -s 'http://127.0.0.1:6061/debug/schedoctor/?format=json'
//	schedoctor trace /tmp/live-demo/*.trace
package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/schedoctor/schedoctor/live"
	"github.com/schedoctor/schedoctor/live/livetrace"
	"github.com/schedoctor/schedoctor/live/prom"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6061", "listener for the page and the metrics (keep it on loopback)")
	dir := flag.String("dir", "", "snapshot directory (default $TMPDIR/schedoctor-live-UID)")
	quiet := flag.Duration("quiet", 5*time.Second, "quiet time before the spike")
	spike := flag.Duration("spike", time.Second, "how long the spike lasts")
	perP := flag.Int("per-p", 100, "spike workers per P")
	duration := flag.Duration("duration", 30*time.Second, "exit after this long")
	flag.Parse()
	log.SetFlags(log.Ltime | log.Lmicroseconds)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *duration)
	defer cancel()

	m, err := livetrace.Start(ctx, live.Options{Dir: *dir, Logf: log.Printf})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Stop()

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsScheduler)), prom.NewCollector(m))
	mux := http.NewServeMux()
	mux.Handle("/debug/schedoctor/", m.Handler())
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/work", func(w http.ResponseWriter, r *http.Request) {
		live.Do(r.Context(), func(context.Context) { fmt.Fprintf(w, "%x\n", work(100*time.Microsecond)) }, "endpoint", "/work")
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()
	fmt.Printf("live http://%s/debug/schedoctor/\nmetrics http://%s/metrics\n", ln.Addr(), ln.Addr())

	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); client(ctx, "http://"+ln.Addr().String()+"/work") }()

	select {
	case <-ctx.Done():
	case <-time.After(*quiet):
		n := *perP * runtime.GOMAXPROCS(0)
		log.Printf("spike: %d goroutines for %v", n, *spike)
		burst(ctx, n, *spike)
		log.Printf("spike over")
	}
	<-ctx.Done()
	wg.Wait()
}

// work hashes for about d.
func work(d time.Duration) [32]byte {
	var sum [32]byte
	for t := time.Now(); time.Since(t) < d; {
		sum = sha256.Sum256(sum[:])
	}
	return sum
}

// client calls url about 200 times a second until ctx ends.
func client(ctx context.Context, url string) {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		resp, err := http.Get(url)
		if err != nil {
			continue
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// burst runs n workers for d, fed jobs of about 200µs by a dispatcher as
// fast as they take them: every worker is woken by the dispatcher and
// queues for a P behind the others, like requests on an overloaded
// service.
func burst(ctx context.Context, n int, d time.Duration) {
	var wg sync.WaitGroup
	done := make(chan struct{})
	jobs := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case jobs <- struct{}{}:
			case <-done:
				return
			}
		}
	}()
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			live.Do(ctx, func(context.Context) {
				for {
					select {
					case <-jobs:
					case <-done:
						return
					}
					work(200 * time.Microsecond)
				}
			}, "job", "burst")
		}()
	}
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
	close(done)
	wg.Wait()
}
