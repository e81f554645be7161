package sleeppoll

import (
	"testing"
	"time"
)

// Tests poll on purpose; test files are not checked.
func TestPoll(t *testing.T) {
	for !ready.Load() {
		time.Sleep(time.Microsecond)
	}
}
