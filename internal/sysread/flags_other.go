//go:build !unix

package sysread

// openFlags: elsewhere there are no FIFOs to block on in the same way; the
// stat before opening still refuses what is not a regular file.
const openFlags = 0
