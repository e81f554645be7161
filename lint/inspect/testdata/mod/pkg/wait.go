// Package pkg is a module of its own that go/packages loads: the typed
// path of inspect.
package pkg

import "context"

// Wait is issue 9's busy handler.
func Wait(ctx context.Context, done chan int) int {
	for {
		select { // SD101
		case v := <-done:
			return v
		case <-ctx.Done():
			return -1
		default:
		}
	}
}

// Block is its fix.
func Block(ctx context.Context, done chan int) int {
	for {
		select {
		case v := <-done:
			return v
		case <-ctx.Done():
			return -1
		}
	}
}
