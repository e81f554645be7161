// gorec records goroutine dumps, and mutex/block profiles, of small
// programs: a handler that leaks a goroutine per timed-out request, a
// healthy net/http server with idle keep-alive connections, a worker pool.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

var (
	mode  = flag.String("mode", "leak", "leak, labels, healthy, pool, mutex")
	out   = flag.String("out", ".", "directory")
	first = flag.Duration("first", 10*time.Second, "first dump after")
	total = flag.Duration("total", 130*time.Second, "second dump after")
)

func dump(tag string) {
	for _, name := range []string{"goroutine", "goroutineleak"} {
		p := pprof.Lookup(name)
		if p == nil {
			continue
		}
		for _, d := range []int{0, 1, 2} {
			ext := map[int]string{0: "pb.gz", 1: "debug1.txt", 2: "debug2.txt"}[d]
			f, err := os.Create(filepath.Join(*out, fmt.Sprintf("%s-%s-%s.%s", *mode, tag, name, ext)))
			if err != nil {
				log.Fatal(err)
			}
			if err := p.WriteTo(f, d); err != nil {
				log.Fatal(err)
			}
			f.Close()
		}
	}
	log.Printf("%s: dumped %s at %d goroutines", *mode, tag, runtime.NumGoroutine())
}

func compute() string {
	time.Sleep(20 * time.Millisecond)
	return "ok"
}

// leakyHandler starts the work in a goroutine and gives up after 5ms; the
// goroutine then blocks forever on its unbuffered send.
func leakyHandler(w http.ResponseWriter, r *http.Request) {
	ch := make(chan string)
	go func() {
		ch <- compute()
	}()
	select {
	case s := <-ch:
		io.WriteString(w, s)
	case <-time.After(5 * time.Millisecond):
		http.Error(w, "timeout", http.StatusGatewayTimeout)
	}
}

func okHandler(w http.ResponseWriter, r *http.Request) {
	ch := make(chan string, 1)
	go func() { ch <- compute() }()
	select {
	case s := <-ch:
		io.WriteString(w, s)
	case <-r.Context().Done():
	}
}

func serve(mux *http.ServeMux) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, mux)
	return "http://" + ln.Addr().String()
}

func load(url string, every time.Duration, client *http.Client) {
	for range time.Tick(every) {
		go func() {
			resp, err := client.Get(url)
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
}

type job struct{ n int }

func pool(ctx context.Context, n int, jobs <-chan job, results chan<- int) {
	for i := 0; i < n; i++ {
		go func() {
			for j := range jobs {
				results <- j.n * 2
			}
		}()
	}
	// a second pool shape: select on jobs and ctx.Done
	for i := 0; i < n; i++ {
		go func() {
			for {
				select {
				case j := <-jobs:
					results <- j.n
				case <-ctx.Done():
					return
				}
			}
		}()
	}
}

var mu sync.Mutex
var counter map[int]int

func contend(hold time.Duration) {
	for {
		mu.Lock()
		counter[len(counter)%100]++
		if hold > 0 {
			t := time.Now()
			for time.Since(t) < hold {
			}
		}
		mu.Unlock()
	}
}

func main() {
	flag.Parse()
	ctx := context.Background()
	mux := http.NewServeMux()
	switch *mode {
	case "leak":
		mux.HandleFunc("/work", leakyHandler)
		mux.HandleFunc("/ok", okHandler)
		url := serve(mux)
		c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
		go load(url+"/work", 100*time.Millisecond, c)
		go load(url+"/ok", 50*time.Millisecond, c)
	case "labels":
		// The leak of "leak", each request under pprof labels (run with
		// GODEBUG=tracebacklabels=1 for the debug=2 headers to print them),
		// one tenant's value holding the characters a parser could trip on.
		tenants := []string{"acme", "globex", `in"it, ]: {x}`}
		var n int
		var nmu sync.Mutex
		mux.HandleFunc("/work", func(w http.ResponseWriter, r *http.Request) {
			nmu.Lock()
			t := tenants[n%len(tenants)]
			n++
			nmu.Unlock()
			pprof.Do(r.Context(), pprof.Labels("handler", "/work", "tenant", t), func(context.Context) {
				leakyHandler(w, r)
			})
		})
		mux.HandleFunc("/ok", okHandler)
		url := serve(mux)
		c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
		go load(url+"/work", 100*time.Millisecond, c)
		go load(url+"/ok", 50*time.Millisecond, c)
	case "healthy":
		mux.HandleFunc("/ok", okHandler)
		url := serve(mux)
		// clients that keep idle keep-alive connections for minutes
		for i := 0; i < 40; i++ {
			c := &http.Client{Transport: &http.Transport{IdleConnTimeout: time.Hour}}
			resp, err := c.Get(url + "/ok")
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
		c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
		go load(url+"/ok", 20*time.Millisecond, c)
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt)
		go func() {
			for s := range sig {
				log.Print(s)
			}
		}()
		tk := time.NewTicker(time.Second)
		go func() {
			for range tk.C {
			}
		}()
		jobs := make(chan job)
		results := make(chan int, 100)
		pool(ctx, 16, jobs, results)
		go func() {
			for range results {
			}
		}()
		go func() {
			for i := 0; ; i++ {
				if i%1000 == 0 {
					time.Sleep(time.Minute) // idle most of the time
				}
				jobs <- job{i}
			}
		}()
	case "pool":
		jobs := make(chan job)
		results := make(chan int, 100)
		pool(ctx, 32, jobs, results)
		go func() {
			for range results {
			}
		}()
	case "mutex", "block", "none", "light":
		counter = map[int]int{}
		if *mode != "none" {
			runtime.SetMutexProfileFraction(1)
			runtime.SetBlockProfileRate(int((10 * time.Microsecond).Nanoseconds()))
		}
		n := 8
		hold := 50 * time.Microsecond
		if *mode == "light" {
			n, hold = 1, 0
		}
		for i := 0; i < n; i++ {
			go contend(hold)
		}
		if *mode == "light" {
			go func() {
				for range time.Tick(time.Millisecond) {
					mu.Lock()
					mu.Unlock()
				}
			}()
		}
		time.Sleep(*first)
		for _, name := range []string{"mutex", "block"} {
			f, _ := os.Create(filepath.Join(*out, fmt.Sprintf("%s-%s.pb.gz", *mode, name)))
			pprof.Lookup(name).WriteTo(f, 0)
			f.Close()
			f, _ = os.Create(filepath.Join(*out, fmt.Sprintf("%s-%s.debug1.txt", *mode, name)))
			pprof.Lookup(name).WriteTo(f, 1)
			f.Close()
		}
		return
	}
	time.Sleep(*first)
	dump("start")
	time.Sleep(*total - *first)
	dump("end")
}
