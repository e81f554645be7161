//go:build unix && !linux

package sysread

import "sync/atomic"

// noOpenat2: there is no openat2 here; the walk always runs.
var noOpenat2 atomic.Bool
