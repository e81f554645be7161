// Gcpressure builds a small linked structure per item and keeps a window
// of them alive, so the GC runs constantly and allocating goroutines are
// made to assist. The fixed twin reuses one buffer per worker.
package main

import (
	"context"
	"runtime"
	"sync"

	"github.com/schedoctor/schedoctor/internal/lab/labrun"
)

func main() { labrun.Main(bad, fixed) }

type node struct {
	next *node
	val  [6]int
}

var sink [64]*node

func build(n int) *node {
	var head *node
	for i := 0; i < n; i++ {
		head = &node{next: head, val: [6]int{i}} // lab:SD207 lab:SD306
	}
	return head
}

func bad(ctx context.Context) {
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				sink[(w*8+i)%len(sink)] = build(256)
			}
		}(w)
	}
	wg.Wait()
}

func fixed(ctx context.Context) {
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			buf := make([]node, 256)
			for i := 0; ctx.Err() == nil; i++ {
				for j := range buf {
					buf[j] = node{val: [6]int{j}}
					if j > 0 {
						buf[j].next = &buf[j-1]
					}
				}
			}
		}(w)
	}
	wg.Wait()
}
