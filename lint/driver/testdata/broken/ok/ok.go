// Package ok compiles.
package ok

// OK is fine.
func OK() int { return 1 }
