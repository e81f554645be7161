// Package p moves positions with //line directives: some name a file of
// another module (../other/auth.go), one has no column, as goyacc writes
// them. Findings and fixes stay in this file.
package p

func flagme(n int) int { return n }

func fixed(n int) int { return n }

// Forever spins (SD106, whose fix is select {}).
func Forever() {
//line ../other/auth.go:7:1
	for {
	}
}

// Parse spins too, in code generated from a grammar.
func Parse() {
//line gram.y:12
	for {
	}
}

// Grammar is code generated from a grammar.
func Grammar() int {
//line gram.y:20
	return flagme(1)
}

// Auth is where the directive claims to be auth.go.
func Auth() int {
//line ../other/auth.go:8:2
	return flagme(2)
}
