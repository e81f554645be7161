package host

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/labtest"
)

// startLab runs the closewait lab program (its fixed twin with fixed) and
// returns its pid and listening port once it has run its clients a while.
func startLab(t *testing.T, bin string, fixed bool) (int, string) {
	t.Helper()
	args := []string{"-duration", "60s"}
	if fixed {
		args = append(args, "-fixed")
	}
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	line, err := labtest.Start(t, cmd).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the lab's address: %v", err)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if !ok {
		t.Fatalf("lab said %q", line)
	}
	port := addr[strings.LastIndex(addr, ":")+1:]
	// Its clients hang up every 10ms: wait for a hundred, or for the
	// machine, however busy, to have let it make them.
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := Inspect(Options{PID: cmd.Process.Pid, Conns: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if s.Process != nil && (s.Process.ByState["CLOSE_WAIT"] >= 100 || fixed && s.Process.FDs > 0 && time.Until(deadline) < 28*time.Second) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30s the lab holds %+v", s.Process)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return cmd.Process.Pid, port
}

// TestCloseWaitLab finds the lab's CLOSE_WAIT leak end to end, with the
// count and the port, and stays quiet on its fixed twin.
func TestCloseWaitLab(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a lab program")
	}
	bins := labtest.Build(t, "closewait")

	pid, port := startLab(t, bins["closewait"], false)
	s, err := Inspect(Options{PID: pid, Conns: 1000, Watch: 2 * time.Second, WatchEvery: 250 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var leak []finding.Finding
	for _, f := range Findings(s) {
		if f.Rule == "SD608" {
			leak = append(leak, f)
		}
	}
	t.Logf("process %+v watch %+v", s.Process, s.Watch)
	if len(leak) == 0 {
		t.Fatalf("no SD608 finding for %+v", s.Process)
	}
	cw := leak[0]
	if !strings.Contains(cw.Text(), "CLOSE_WAIT") || !strings.Contains(cw.Text(), "local port "+port) {
		t.Errorf("CLOSE_WAIT finding does not name port %s: %s", port, cw.Text())
	}
	if n := s.Process.ByState["CLOSE_WAIT"]; !strings.HasPrefix(cw.Text(), strconv.Itoa(n)+" sockets") || n < 100 {
		t.Errorf("message %q, want it to start with the %d sockets counted", cw.Text(), n)
	}
	if s.Watch.StuckCloseWait < 100 {
		t.Errorf("%d CLOSE_WAIT sockets stayed over the watch, want every one of the first sample's", s.Watch.StuckCloseWait)
	}
	if grown := s.Watch.FDs[len(s.Watch.FDs)-1] - s.Watch.FDs[0]; len(leak) < 2 || !strings.Contains(leak[1].Text(), "descriptors opened and not closed") {
		if grown < 2*fdGrowthMin {
			// The lab's clients run every 10ms; a machine too busy to let
			// them run 40 times in 2s cannot show growth.
			load, _ := os.ReadFile("/proc/loadavg")
			t.Logf("no growth finding: the lab opened only %d descriptors in the watch (load %s)", grown, strings.TrimSpace(string(load)))
		} else {
			t.Errorf("descriptors grew by %d, no growth finding: %v", grown, leak)
		}
	}

	pid, _ = startLab(t, bins["closewait"], true)
	s, err = Inspect(Options{PID: pid, Conns: 1000, Watch: 2 * time.Second, WatchEvery: 250 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Findings(s) {
		if f.Rule == "SD608" {
			t.Errorf("fixed twin: %s", f.Text())
		}
	}
}
