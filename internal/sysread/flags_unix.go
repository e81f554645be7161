//go:build unix

package sysread

import "syscall"

// openFlags: O_NONBLOCK so that opening a FIFO (refused after fstat) does
// not wait for a writer; O_NOCTTY so that opening a terminal never makes it
// our controlling terminal.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
