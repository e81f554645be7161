// Epollloop records the fixtures epollloop*.trace: a healthy event-loop
// server's shape, loops that wait in a raw epoll_wait(-1) (syscall.Syscall6,
// as gnet-style servers do, not the runtime's netpoller) for a pipe that a
// client writes to every 5ms (-every). With -yield each loop first polls with a zero
// timeout, and when that finds nothing yields once (runtime.Gosched) before
// blocking in epoll_wait(-1). The Ps whose goroutines wait in epoll_wait run
// no Go code: the process uses a few hundredths of a core. CPU profiling
// runs beside the trace, so the trace carries the CPU samples that measure
// the process CPU.
//
//	go run ./exectrace/testdata/epollloop exectrace/testdata/epollloop.trace
//	go run ./exectrace/testdata/epollloop -yield exectrace/testdata/epollloop-yield.trace
//	go run ./exectrace/testdata/epollloop -yield -every 100us exectrace/testdata/epollloop-yield-busy.trace
package main

import (
	"flag"
	"io"
	"log"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// wait blocks in epoll_wait on ep for up to timeout ms (-1: forever)
// through syscall.Syscall6: entersyscall, the P kept until sysmon retakes it.
func wait(ep int, evs []syscall.EpollEvent, timeout int) int {
	n, _, errno := syscall.Syscall6(syscall.SYS_EPOLL_PWAIT, uintptr(ep), uintptr(unsafe.Pointer(&evs[0])),
		uintptr(len(evs)), uintptr(timeout), 0, 0)
	if errno != 0 {
		return 0
	}
	return int(n)
}

// loop serves one pipe until stop is closed (the client then writes once
// more to wake it).
func loop(ep, rfd int, yield bool, stop <-chan struct{}, served *int) {
	evs := make([]syscall.EpollEvent, 8)
	buf := make([]byte, 64)
	for {
		n := 0
		if yield {
			if n = wait(ep, evs, 0); n == 0 {
				runtime.Gosched() // one yield, then block
			}
		}
		if n == 0 {
			n = wait(ep, evs, -1)
		}
		for range n {
			syscall.Read(rfd, buf)
			*served++
		}
		select {
		case <-stop:
			return
		default:
		}
	}
}

func main() {
	yield := flag.Bool("yield", false, "poll with a zero timeout and yield once before blocking")
	d := flag.Duration("d", time.Second, "how long to record")
	loops := flag.Int("loops", 2, "event loops")
	every := flag.Duration("every", 5*time.Millisecond, "how often the client writes to each loop's pipe")
	flag.Parse()
	f, err := os.Create(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		log.Fatal(err)
	}
	if err := trace.Start(f); err != nil {
		log.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writers []int
	served := make([]int, *loops)
	for i := range *loops {
		var p [2]int
		if err := syscall.Pipe2(p[:], syscall.O_NONBLOCK|syscall.O_CLOEXEC); err != nil {
			log.Fatal(err)
		}
		ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
		if err != nil {
			log.Fatal(err)
		}
		if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, p[0], &syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(p[0])}); err != nil {
			log.Fatal(err)
		}
		writers = append(writers, p[1])
		wg.Add(1)
		go func() { defer wg.Done(); loop(ep, p[0], *yield, stop, &served[i]) }()
	}
	// The client waits on a ticker (a channel receive), not a sleep.
	tick := time.NewTicker(*every)
	end := time.Now().Add(*d)
	for time.Now().Before(end) {
		<-tick.C
		for _, w := range writers {
			syscall.Write(w, []byte{1})
		}
	}
	tick.Stop()
	close(stop)
	for _, w := range writers {
		syscall.Write(w, []byte{1})
	}
	wg.Wait()
	trace.Stop()
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	log.Printf("served %v", served)
}
