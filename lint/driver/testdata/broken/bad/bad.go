// Package bad does not compile.
package bad

// Bad returns an undefined name.
func Bad() int { return undefinedName }
