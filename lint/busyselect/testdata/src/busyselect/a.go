package busyselect

import (
	"context"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	tm "time"
)

var (
	jobs  = make(chan int)
	out   = make(chan int, 1)
	idle  int
	count atomic.Int64
	mu    sync.Mutex
)

const tiny = tm.Millisecond / 10

func handle(int) {}

// Positives.

func emptyDefault() {
	for {
		select { // want `loop spins a core on a select whose default is empty; remove the default`
		case j := <-jobs:
			handle(j)
		default:
		}
	}
}

func continueDefault() {
	for {
		select { // want `default neither blocks nor leaves the loop`
		case j := <-jobs:
			handle(j)
		default:
			continue
		}
	}
}

func counterDefault() {
	for {
		select { // want `neither blocks nor leaves`
		case j, ok := <-jobs:
			if !ok {
				return // leaves from a case: still spins while no job is ready
			}
			handle(j)
		default:
			idle++
			count.Add(1)
		}
	}
}

func goschedDefault() {
	for {
		select { // want `only yields with runtime.Gosched`
		case <-jobs:
		default:
			runtime.Gosched()
		}
	}
}

func tinySleepDefault() {
	for {
		select { // want `sleeps only 100µs, too short to wait`
		case <-jobs:
		default:
			tm.Sleep(tiny)
		}
	}
}

// The shape of a real idle-CPU regression (an agent loop at ~10% CPU):
// ctx.Done, a message case, and a 200µs sleep in the default.
func agentLoop(ctx context.Context, inbound chan int) {
	for {
		select { // want `sleeps only 200µs`
		case <-ctx.Done():
			return
		case msg, ok := <-inbound:
			if !ok {
				return
			}
			handle(msg)
		default:
			tm.Sleep(tm.Microsecond * 200)
		}
	}
}

func sleepExprDefault() {
	for {
		select { // want `sleeps only 5µs`
		case <-jobs:
		default:
			tm.Sleep(5 * tm.Microsecond)
		}
	}
}

func plainBreak() {
	for {
		select { // want `neither blocks nor leaves`
		case <-jobs:
		default:
			break // ends the select, not the loop
		}
	}
}

func condLoop(ctx context.Context) {
	for ctx.Err() == nil {
		select { // want `is empty`
		case <-jobs:
		default:
		}
	}
}

func forPostNoCond() {
	for i := 0; ; i++ {
		select { // want `is empty`
		case out <- i:
		default:
		}
	}
}

func countedOnSomethingElse(ctx context.Context) {
	for i := 0; ctx.Err() == nil; i++ {
		select { // want `is empty`
		case out <- i:
		default:
		}
	}
}

func labelled() {
outer:
	for {
		select { // want `neither blocks`
		case <-jobs:
			break outer
		default:
			continue outer // the next iteration of the same loop
		}
	}
}

func underIf(ctx context.Context, poll bool) {
	for {
		if ctx.Err() != nil {
			return // a loop condition in disguise
		}
		if poll {
			select { // want `is empty`
			case <-jobs:
			default:
			}
		}
	}
}

func underSwitch(mode int) {
	for {
		switch mode {
		case 1:
			select { // want `is empty`
			case <-jobs:
			default:
			}
		}
	}
}

type consumer struct{ in chan int }

func (c *consumer) run() {
	for {
		select { // want `is empty`
		case v := <-c.in:
			handle(v)
		default:
		}
	}
}

func inGoroutine() {
	go func() {
		for {
			select { // want `is empty`
			case <-jobs:
			default:
			}
		}
	}()
}

func innerBreakLoop() {
	for {
		select { // want `neither blocks`
		case <-jobs:
		default:
			for i := 0; i < 3; i++ {
				if i == 1 {
					break // leaves the inner loop only
				}
			}
		}
	}
}

// Negatives: the same shapes, but something blocks or leaves.

func trySend(v int) bool {
	select {
	case out <- v:
		return true
	default:
		return false
	}
}

func defaultReturns() {
	for {
		select {
		case <-jobs:
		default:
			return
		}
	}
}

func drain() {
	for {
		select {
		case <-jobs:
		default:
			return
		}
	}
}

func labelledBreak() {
loop:
	for {
		select {
		case j := <-jobs:
			handle(j)
		default:
			break loop
		}
	}
}

func drainBreakAfter() {
	for {
		select {
		case <-jobs:
			continue
		default:
		}
		break
	}
}

func gotoOut() {
	for {
		select {
		case <-jobs:
		default:
			goto done
		}
	}
done:
}

func panics() {
	for {
		select {
		case <-jobs:
		default:
			panic("no job")
		}
	}
}

func exits() {
	for {
		select {
		case <-jobs:
		default:
			os.Exit(1)
		}
	}
}

func realSleep() {
	for {
		select {
		case <-jobs:
		default:
			tm.Sleep(tm.Millisecond)
		}
	}
}

func computedSleep(d tm.Duration) {
	for {
		select {
		case <-jobs:
		default:
			tm.Sleep(d)
		}
	}
}

func blocksInDefault(c *sync.Cond) {
	for {
		select {
		case <-jobs:
		default:
			c.Wait()
		}
	}
}

func locks() {
	for {
		select {
		case <-jobs:
		default:
			mu.Lock()
			idle++
			mu.Unlock()
		}
	}
}

func receivesInDefault(done chan struct{}) {
	for {
		select {
		case <-jobs:
		default:
			<-done
		}
	}
}

func sendsInDefault() {
	for {
		select {
		case <-jobs:
		default:
			out <- 1
		}
	}
}

func sleepsBeforeSelect() {
	for {
		tm.Sleep(10 * tm.Microsecond)
		select { // want `default is empty`
		case <-jobs:
		default:
		}
	}
}

func dropOnFull(in chan int) {
	for {
		v := <-in // blocks every iteration
		select {
		case out <- v:
		default:
			idle++ // dropped
		}
	}
}

func unknownCall(write func() error) {
	for {
		select {
		case <-jobs:
		default:
			if err := write(); err != nil {
				idle++
			}
		}
	}
}

func broadcast(subs []chan int, v int) {
	for _, s := range subs {
		select {
		case s <- v:
		default:
		}
	}
}

func counted(subs []chan int, v int) {
	for i := 0; i < len(subs); i++ {
		select {
		case subs[i] <- v:
		default:
		}
	}
}

func closureInLoop(n int) {
	for range n {
		go func() {
			select {
			case out <- 1:
			default:
			}
		}()
	}
}

func selectInCase() {
	for {
		select {
		case <-jobs:
			select {
			case out <- 1:
			default:
			}
		}
	}
}

// A user function called Sleep is not time.Sleep: this one blocks.
type clock struct{ tick chan struct{} }

func (c clock) Sleep(tm.Duration) { <-c.tick }

func userSleep(c clock) {
	for {
		select {
		case <-jobs:
		default:
			c.Sleep(tm.Microsecond)
		}
	}
}
