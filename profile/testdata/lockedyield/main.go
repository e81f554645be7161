// Lockedyield records profile/testdata/lab/lockedyield.pb.gz: a goroutine
// locked to its thread (runtime.LockOSThread, as a GUI loop or a cgo
// library demands) that waits for a flag by yielding with runtime.Gosched.
// Each yield hands the P to another thread and back (stoplockedm,
// startlockedm): the profile shows futex wake and park churn, not the
// yield. Run from the module root:
//
//	go run ./profile/testdata/lockedyield profile/testdata/lab/lockedyield.pb.gz
package main

import (
	"log"
	"os"
	"runtime"
	"runtime/pprof"
	"sync/atomic"
	"time"
)

var ready atomic.Bool

var sink int

func work() int {
	n := 0
	for i := range 20000 {
		n += i % 7
	}
	return n
}

// waitReady spins on the flag, yielding between loads.
func waitReady() int {
	n := 0
	for !ready.Load() {
		runtime.Gosched() // lockedyield:spin
		n++
	}
	return n
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatal(err)
	}
	// Other goroutines do a little work now and then, as a program's
	// would: the locked thread's hand-offs then go through their Ms.
	for range 4 {
		go func() {
			for !ready.Load() {
				time.Sleep(time.Millisecond)
				sink += work()
			}
		}()
	}
	runtime.LockOSThread()
	time.AfterFunc(3*time.Second, func() { ready.Store(true) })
	log.Printf("%d yields", waitReady())
	runtime.UnlockOSThread()
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
