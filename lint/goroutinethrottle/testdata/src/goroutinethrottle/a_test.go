package goroutinethrottle

import (
	"runtime"
	"testing"
	"time"
)

// Tests wait for goroutines to exit by counting them: the idiom of leak
// checks, not a throttle.
func TestNoLeak(t *testing.T) {
	base := runtime.NumGoroutine()
	for i := 0; i < 100 && runtime.NumGoroutine() > base; i++ {
		time.Sleep(time.Millisecond)
	}
}
