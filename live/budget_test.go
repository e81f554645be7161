package live_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/live"
)

// waitRecorder polls the monitor until its flight recorder state starts
// with prefix, or the timeout passes; it returns the last state.
func waitRecorder(m *live.Monitor, prefix string, timeout time.Duration) live.State {
	end := time.Now().Add(timeout)
	for {
		st := m.State()
		if strings.HasPrefix(st.FlightRecorder, prefix) || time.Now().After(end) {
			return st
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// underRPC runs the RPC workload until the monitor's recorder is paused,
// or 20s, and returns the monitor's last state.
func underRPC(m *live.Monitor) live.State {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			rpcWork(20000)
		}
	}()
	st := waitRecorder(m, "paused", 20*time.Second)
	cancel()
	<-done
	return st
}

// The flight recorder's memory follows the scheduling rate: above the
// budget the monitor pauses the recorder, says why with the measured rate,
// and records again once the rate falls. A quiet program keeps recording.
func TestRecorderBudget(t *testing.T) {
	const budget = 4 << 20
	m, err := live.Start(context.Background(), live.Options{Dir: t.TempDir(), Interval: 100 * time.Millisecond, FlightRecorderMemory: budget, FlightRecorderCPU: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	// Close negative: idle, ten readings, still recording and under budget.
	time.Sleep(time.Second)
	if st := m.State(); st.FlightRecorder != "recording" || st.RecorderEstimate > budget {
		t.Fatalf("idle: flight recorder %q, estimate %.0f bytes at %.0f transitions/s", st.FlightRecorder, st.RecorderEstimate, st.RecorderRate)
	}

	st := underRPC(m)
	if !strings.HasPrefix(st.FlightRecorder, "paused") && st.RecorderEstimate <= budget {
		// The host ran the workload too slowly to pass the budget.
		failOrSkip(t, "the RPC workload reached only %.0f transitions/s (estimate %.0f bytes, budget %d)", st.RecorderRate, st.RecorderEstimate, budget)
	}
	if !strings.HasPrefix(st.FlightRecorder, "paused") {
		t.Fatalf("under the RPC workload: flight recorder %q, estimate %.0f bytes at %.0f transitions/s (budget %d)",
			st.FlightRecorder, st.RecorderEstimate, st.RecorderRate, budget)
	}
	if st.RecorderPauses != 1 || !strings.Contains(st.FlightRecorder, "scheduling transitions in the last") || st.RecorderBudget != budget {
		t.Errorf("paused state: %+v", st)
	}
	t.Logf("paused: %s", st.FlightRecorder)

	st = waitRecorder(m, "recording", 20*time.Second)
	if st.FlightRecorder != "recording" {
		t.Fatalf("after the workload: flight recorder %q at %.0f transitions/s", st.FlightRecorder, st.RecorderRate)
	}
}

// The CPU budget: the RPC workload's transitions cost the recorder more
// than 1% of the CPU, and it is paused saying so; a CPU-bound workload,
// which schedules only at preemptions, keeps it recording.
func TestRecorderCPUBudget(t *testing.T) {
	m, err := live.Start(context.Background(), live.Options{Dir: t.TempDir(), Interval: 100 * time.Millisecond, FlightRecorderMemory: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	// Close negative: three seconds of CPU-bound work on every P.
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		cpuWork(100000)
	}
	if st := m.State(); st.FlightRecorder != "recording" || st.RecorderCPU > st.RecorderCPUBudget {
		t.Fatalf("CPU-bound: flight recorder %q, %.4f of the CPU at %.0f transitions/s", st.FlightRecorder, st.RecorderCPU, st.RecorderRate)
	}
	st := underRPC(m)
	if !strings.HasPrefix(st.FlightRecorder, "paused") {
		if st.RecorderCPU <= st.RecorderCPUBudget {
			failOrSkip(t, "the RPC workload reached only %.0f transitions/s (%.4f of the CPU)", st.RecorderRate, st.RecorderCPU)
		}
		t.Fatalf("under the RPC workload: flight recorder %q at %.4f of the CPU", st.FlightRecorder, st.RecorderCPU)
	}
	if !strings.Contains(st.FlightRecorder, "Options.FlightRecorderCPU") || st.RecorderCPUBudget != 0.01 {
		t.Errorf("paused state: %q, budget %v", st.FlightRecorder, st.RecorderCPUBudget)
	}
	t.Logf("paused: %s", st.FlightRecorder)
}

// With no budget the recorder is never paused, however fast the program
// schedules.
func TestRecorderNoBudget(t *testing.T) {
	m, err := live.Start(context.Background(), live.Options{Dir: t.TempDir(), Interval: 100 * time.Millisecond, FlightRecorderMemory: -1, FlightRecorderCPU: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	end := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(end) {
		rpcWork(20000)
	}
	if st := m.State(); st.FlightRecorder != "recording" || st.RecorderPauses != 0 {
		t.Errorf("no budget: flight recorder %q, %d pauses", st.FlightRecorder, st.RecorderPauses)
	}
}
