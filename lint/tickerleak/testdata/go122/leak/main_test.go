package leak

import (
	"testing"
	"time"
)

func TestTick(t *testing.T) {
	<-time.Tick(time.Millisecond)
}
