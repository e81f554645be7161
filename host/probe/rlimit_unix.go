//go:build unix

package probe

import (
	"fmt"
	"syscall"
)

// checkFDs refuses a probe that would run out of descriptors half way: the
// probe holds one per connection (Go has already raised the soft limit to
// the hard one), plus a margin for its own files and HTTP client.
func checkFDs(n int) error {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return nil // unknown: the dials will say
	}
	const margin = 64
	if uint64(n)+margin > rl.Cur {
		return fmt.Errorf("%d connections need %d descriptors in this process, its RLIMIT_NOFILE is %d: raise it (ulimit -n) or probe fewer", n, n+margin, rl.Cur)
	}
	return nil
}
