// Package a is linted by driver.Run's tests with a test-only analyzer that
// reports every call to flagme and offers to call fixed instead.
package a

func flagme(n int) int { return n }

func fixed(n int) int { return n }

func overlap(n int) int { return n }

// Plain is a top-level function.
func Plain() int {
	return flagme(5)
}

type T struct{}

// M has a pointer receiver.
func (t *T) M() int {
	return flagme(10)
}

// V has a value receiver.
func (T) V() int { return fixed(1) }

// Closures names literals as the compiler does.
func Closures() {
	f := func() int { return fixed(0) }
	g := func() int {
		h := func() int { return 0 }
		k := func() int { return flagme(20) }
		return h() + k()
	}
	_, _ = f, g
}

// Overlap gets two diagnostics whose fixes touch the same bytes.
func Overlap() int {
	return overlap(30)
}

var _ = func() int { return 0 }
