// Closewait leaks connections: its server reads each request until the
// client hangs up and then forgets the connection without closing it, so
// every socket its clients closed stays in CLOSE_WAIT, holding a descriptor,
// until the process exits. `schedoctor host -pid PID` finds them by state
// and local port (SD608); with -watch, it sees them stay and the
// descriptors grow.
// The fixed twin closes the connection when the read ends.
//
// The program prints "listening ADDR" on stdout, then runs its own clients:
// one short connection every 10ms, each sending a line and hanging up.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/schedoctor/schedoctor/internal/lab/labrun"
)

func main() { labrun.Main(bad, fixed) }

// held keeps the leaked connections reachable, as a registry of sessions
// would: the garbage collector cannot close them either.
var (
	mu   sync.Mutex
	held []net.Conn
)

func handleBad(c net.Conn) {
	io.Copy(io.Discard, c) // returns at the client's FIN
	mu.Lock()
	held = append(held, c) // lab:SD608 never closed: the socket stays in CLOSE_WAIT
	mu.Unlock()
}

func handleFixed(c net.Conn) {
	defer c.Close()
	io.Copy(io.Discard, c)
}

func bad(ctx context.Context)   { run(ctx, handleBad) }
func fixed(ctx context.Context) { run(ctx, handleFixed) }

func run(ctx context.Context, handle func(net.Conn)) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer ln.Close()
	fmt.Printf("listening %s\n", ln.Addr())
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go handle(c)
		}
	}()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				continue // out of descriptors: the leak has done its harm
			}
			fmt.Fprintf(c, "GET /status\n")
			c.Close()
		}
	}
}
