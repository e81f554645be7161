package leak

import (
	"testing"
	"time"
)

func TestTick(t *testing.T) {
	<-time.Tick(time.Millisecond)
}

func TestTicker(t *testing.T) {
	tk := time.NewTicker(time.Millisecond)
	<-tk.C
}
