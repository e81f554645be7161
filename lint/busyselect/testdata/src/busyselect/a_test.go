package busyselect

import "testing"

// Tests spin on purpose; test files are not checked.
func TestSpin(t *testing.T) {
	for {
		select {
		case <-jobs:
			return
		default:
		}
	}
}
