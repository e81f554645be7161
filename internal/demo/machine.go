package demo

import (
	"fmt"
	"math"
	"time"
)

// Machine is what the rest of the machine did during one run of a lab
// program: the disturbance a diagnosis of that run may reflect. On a
// shared machine the lab program gets less CPU than it asks for, and the
// figures that decide some rules (a spin's cores, a lock's waiters, a
// trace's latencies) move with it.
type Machine struct {
	Seconds float64 `json:"seconds"` // the run's wall time
	Load1   float64 `json:"load1"`   // 1-minute load average at the end of the run
	CPUs    int     `json:"cpus"`    // the machine's CPUs (/proc/stat)
	// OtherCPUs is the CPU time every other process used during the run,
	// divided by its wall time: the machine's busy time less the lab
	// program's and the demo's own.
	OtherCPUs float64 `json:"other_cpus"`
}

// busyOtherCPUs is the other processes' CPU, on average over a run, from
// which the machine counts as busy: a quarter of a CPU taken from a lab
// program that spins one core or keeps every P busy moves its figures by
// more than the rules' margins. On this project's 2-CPU machine a quiet
// moment measures under 0.1 (an editor, the demo's own helpers), and a go
// build next door 1 or more. Below it a mismatch is the lab's or
// schedoctor's, and fails the demo.
const busyOtherCPUs = 0.25

// Busy reports whether other processes measurably used the machine during
// the run. An unknown measurement (nil) is not busy: a mismatch then fails.
func (m *Machine) Busy() bool { return m != nil && m.OtherCPUs >= busyOtherCPUs }

// String is "load 4.2, other processes used 1.3 of 2 CPUs".
func (m *Machine) String() string {
	if m == nil {
		return "not measured"
	}
	return fmt.Sprintf("load %.1f, other processes used %.2g of %d CPUs", m.Load1, m.OtherCPUs, m.CPUs)
}

// sample is the machine's counters at one moment.
type sample struct {
	t     time.Time
	busy  float64 // seconds every CPU of the machine spent running anything (/proc/stat)
	self  float64 // seconds of CPU the demo itself used (getrusage)
	load1 float64
	cpus  int
}

// sampler reads the machine's counters; tests replace it.
type sampler func() (sample, error)

// measure turns two samples around a run into the disturbance, given the
// CPU the lab program itself used in between. Nil when either sample is
// missing (not Linux, /proc unreadable).
func measure(a, b *sample, programCPU float64) *Machine {
	if a == nil || b == nil {
		return nil
	}
	wall := b.t.Sub(a.t).Seconds()
	if wall <= 0 {
		return nil
	}
	// /proc/stat counts in clock ticks and rusage in microseconds: a short
	// run can come out slightly negative, which means nothing else ran.
	other := max(0, (b.busy-a.busy)-(b.self-a.self)-programCPU) / wall
	return &Machine{
		Seconds:   math.Round(wall*100) / 100,
		Load1:     b.load1,
		CPUs:      b.cpus,
		OtherCPUs: math.Round(other*100) / 100,
	}
}

// take calls the sampler; a failure leaves the run unmeasured.
func (r *runner) take() *sample {
	if r.sample == nil {
		return nil
	}
	s, err := r.sample()
	if err != nil {
		return nil
	}
	return &s
}
