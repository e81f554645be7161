// Busyhandler is issue 9's HTTP service: each request starts a background
// job (about a millisecond of hashing) and the handler waits for it with
// a select whose default does nothing, so every waiting request spins a P
// in selectgo while the jobs it waits for queue for the same Ps. An
// in-process load generator keeps -clients requests in flight over
// loopback (as many as GOMAXPROCS: the jobs alone fit the Ps) for
// -duration and prints "ops N ops/s R" (requests served). The fixed twin
// blocks in the same select, without the default.
package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedoctor/schedoctor/internal/lab/labrun"
)

var (
	clients = flag.Int("clients", 0, "requests kept in flight by the load generator (0: GOMAXPROCS, so that the fixed twin's jobs fit the Ps)")
	work    = flag.Int("work", 12000, "SHA-256 rounds per job (about 80ns each here: 12000 is about 1ms)")
)

func main() {
	labrun.Main(func(ctx context.Context) { serve(ctx, badHandler) }, func(ctx context.Context) { serve(ctx, fixedHandler) })
}

// job is the background work a request waits for.
func job(seed byte, done chan<- [32]byte) {
	b := [32]byte{seed}
	for i := 0; i < *work; i++ {
		b = sha256.Sum256(b[:])
	}
	done <- b
}

func badHandler(w http.ResponseWriter, r *http.Request) {
	// The context's channel is read in the case, as issue 20's handler does.
	done := make(chan [32]byte, 1)
	go job(byte(len(r.URL.Path)), done)
	for {
		select { // lab:SD101 lab:SD204 lab:SD308
		case sum := <-done:
			fmt.Fprintf(w, "%x\n", sum[:4])
			return
		case <-r.Context().Done():
			http.Error(w, "client went away", http.StatusServiceUnavailable)
			return
		default:
		}
	}
}

func fixedHandler(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	done := make(chan [32]byte, 1)
	go job(byte(len(r.URL.Path)), done)
	select {
	case sum := <-done:
		fmt.Fprintf(w, "%x\n", sum[:4])
	case <-ctx.Done():
		http.Error(w, "client went away", http.StatusServiceUnavailable)
	}
}

// serve runs the handler on a free loopback port and drives it with the
// load generator until ctx is done.
func serve(ctx context.Context, h http.HandlerFunc) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Print(err)
		}
	}()
	start := time.Now()
	n := load(ctx, "http://"+ln.Addr().String()+"/job")
	elapsed := time.Since(start)
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	labrun.Report(n, elapsed)
}

// load keeps -clients requests in flight until ctx is done and returns
// how many completed with 200 OK.
func load(ctx context.Context, url string) int64 {
	n := *clients
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: n}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	var ok atomic.Int64
	var wg sync.WaitGroup
	for c := 0; c < n; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
				if err != nil {
					log.Fatal(err)
				}
				resp, err := client.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						fmt.Fprintln(os.Stderr, err)
						time.Sleep(10 * time.Millisecond) // the server is not up: do not hammer it
					}
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					ok.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return ok.Load()
}
