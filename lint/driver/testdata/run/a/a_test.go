package a

import "testing"

func TestA(t *testing.T) {
	if flagme(40) != 40 {
		t.Fatal("flagme")
	}
}
