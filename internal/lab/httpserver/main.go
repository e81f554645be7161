// Httpserver is a healthy control for schedoctor sweep's load mode: an HTTP
// server on a loopback address (-addr, or $LAB_ADDR; sweep -load needs one
// of them, so that it knows where to send) whose handler spends -work
// SHA-256 hashes of CPU per request (a hash takes about 80ns here, so the
// default 200 is about 16µs). Under a fixed request rate near the capacity
// of one CPU, its tail latency at GOMAXPROCS=1 shows requests queueing for
// the one P. It serves until -duration ends, then shuts down. Both twins
// are the same program.
package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/schedoctor/schedoctor/internal/lab/labrun"
)

var (
	addr = flag.String("addr", "", "loopback `host:port` to serve on (default $LAB_ADDR, else a free port on 127.0.0.1)")
	work = flag.Int("work", 200, "SHA-256 hashes per request")
)

func main() { labrun.Main(serve, serve) }

func handle(w http.ResponseWriter, r *http.Request) {
	var b [32]byte
	for i := 0; i < *work; i++ {
		b = sha256.Sum256(b[:])
	}
	fmt.Fprintf(w, "%x\n", b[:4])
}

func serve(ctx context.Context) {
	a := *addr
	if a == "" {
		a = os.Getenv("LAB_ADDR")
	}
	if a == "" {
		a = "127.0.0.1:0" // the lab tests run it alone: any free port
	}
	host, _, err := net.SplitHostPort(a)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		log.Fatalf("-addr %q: want a loopback host:port", a)
	}
	ln, err := net.Listen("tcp", a)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "serving on http://%s/\n", ln.Addr())
	srv := &http.Server{Handler: http.HandlerFunc(handle), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}
