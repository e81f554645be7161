//go:build !unix

package profile

import "time"

// processCPU is not measured here: BenchmarkFleet reports no cpu-ns/op.
func processCPU() (time.Duration, bool) { return 0, false }
