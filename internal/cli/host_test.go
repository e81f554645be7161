package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hostFixtures are the fixture trees of package host; each holds an args
// file with the command line its goldens run.
// Relative, like procsFixtures, so the goldens do not depend on the
// checkout's path.
var hostFixtures = filepath.Join("..", "..", "host", "testdata", "fixtures")

func runHostCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), &Env{Stdout: &out, Stderr: &errb}, append([]string{"host"}, args...))
	strip := func(s string) string { return strings.ReplaceAll(s, hostFixtures, "$FIXTURES") }
	return code, strip(out.String()), strip(errb.String())
}

// TestHostGolden renders every fixture tree as text and JSON, with the
// command line of its args file.
func TestHostGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(hostFixtures, "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures under %s: %v", hostFixtures, err)
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, "args"))
			if err != nil {
				t.Fatal(err)
			}
			args := append([]string{"-sysroot", dir}, strings.Fields(string(data))...)
			code, stdout, stderr := runHostCmd(t, args...)
			if stderr != "" {
				t.Errorf("stderr: %s", stderr)
			}
			wantCode := ExitClean
			if strings.Contains(stdout, "\nWARNING\n") || strings.Contains(stdout, "\nCRITICAL\n") {
				wantCode = ExitFindings
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d", code, wantCode)
			}
			checkGolden(t, filepath.Join("host", name+".txt"), stdout)

			code, stdout, _ = runHostCmd(t, append([]string{"-json"}, args...)...)
			if code != wantCode {
				t.Errorf("-json: exit %d, want %d", code, wantCode)
			}
			var v struct {
				Source   string            `json:"source"`
				Findings []json.RawMessage `json:"findings"`
				Summary  map[string]any    `json:"summary"`
			}
			if err := json.Unmarshal([]byte(stdout), &v); err != nil || v.Source != "host" || v.Summary["limits"] == nil {
				t.Errorf("-json output is not the contract's object (%v): %.200s", err, stdout)
			}
			checkGolden(t, filepath.Join("host", name+".json"), stdout)
		})
	}
}

// TestHostProbe runs -probe against a server in this process (so the
// figures mix both ends; the plumbing is what is tested): every connection
// is opened, measured, reported as the per-connection source, and closed.
func TestHostProbe(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var open atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			open.Add(1)
			go func() {
				defer open.Add(-1)
				defer c.Close()
				io.Copy(io.Discard, c)
			}()
		}
	}()
	dbg, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	srv := &http.Server{Handler: mux}
	go srv.Serve(dbg)
	defer srv.Close()

	const n = 300
	fdsBefore := selfFDs(t)
	code, stdout, stderr := runHostCmd(t, "-json", "-probe", ln.Addr().String(), "-pid", strconv.Itoa(os.Getpid()),
		"-pprof", "http://"+dbg.Addr().String(), "-conns", strconv.Itoa(n), "-target", "1000")
	if code == ExitError {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var v struct {
		Summary struct {
			Conns   int64 `json:"conns"`
			PerConn struct {
				Source       string  `json:"source"`
				ProcessBytes float64 `json:"process_bytes"`
			} `json:"per_conn"`
			Probe struct {
				Opened, Accepted int
				Closed           bool
			} `json:"probe"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatal(err)
	}
	s := v.Summary
	if s.Conns != 1000 || s.PerConn.Source != "probe" || s.PerConn.ProcessBytes <= 0 || s.Probe.Opened != n || s.Probe.Accepted != n || !s.Probe.Closed {
		t.Errorf("summary %+v", s)
	}
	deadline := time.Now().Add(10 * time.Second)
	for open.Load() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still open after the probe", open.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The probe runs in this process: both ends of every connection were
	// here, so the descriptor count must be back where it was.
	if after := selfFDs(t); after > fdsBefore+4 {
		t.Errorf("%d descriptors after the probe, %d before: sockets left open", after, fdsBefore)
	}
}

func selfFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

func TestHostUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-conns", "0"}, "-conns"},
		{[]string{"-target", "5"}, "-target is for -probe"},
		{[]string{"-probe", "127.0.0.1:1"}, "-probe needs -pid"},
		{[]string{"-probe", "127.0.0.1:1", "-pid", "1", "-model", "http"}, "use one"},
		{[]string{"-model", "goroutine", "-bytes-per-conn", "10"}, "use one"},
		{[]string{"-pprof", "http://127.0.0.1:1"}, "-pprof goes with -probe"},
		{[]string{"-model", "nginx"}, "want one of goroutine"},
		{[]string{"-watch", "5s"}, "-watch needs -pid"},
		{[]string{"-dests", "0"}, "-dests"},
		{[]string{"-bytes-per-conn", "-5"}, "-bytes-per-conn"},
		{[]string{"-probe", "127.0.0.1:1", "-pid", "1", "-conns", "2000000"}, "at most 1000000"},
		{[]string{"extra"}, "unexpected arguments"},
	} {
		code, _, stderr := runHostCmd(t, tc.args...)
		if code != ExitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	code, _, stderr := runHostCmd(t, "-sysroot", filepath.Join(hostFixtures, "stock"), "-pid", "777")
	if code != ExitError || !strings.Contains(stderr, "process 777 does not exist") {
		t.Errorf("missing process: exit %d, %q", code, stderr)
	}
}

// listenOnlyEnv makes the re-executed test binary a server that listens
// and never accepts (TestHostProbeServerNotAccepting).
const listenOnlyEnv = "SCHEDOCTOR_TEST_LISTEN_ONLY"

// listenOnly listens on a loopback port, prints its address and never
// accepts; it exits after a minute if nobody kills it.
func listenOnly() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr())
	time.Sleep(time.Minute)
	os.Exit(0)
}

// TestHostProbeServerNotAccepting: a server whose accept loop stopped still
// gets its connections completed by the kernel (up to the backlog), but
// takes none of them: the probe must say so, not divide its growth by them
// or say "try more connections" (issue 19).
func TestHostProbeServerNotAccepting(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), listenOnlyEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	addr = strings.TrimSpace(addr)
	code, _, stderr := runHostCmd(t, "-probe", addr, "-pid", strconv.Itoa(cmd.Process.Pid), "-conns", "50", "-target", "1000")
	if code != ExitError {
		t.Fatalf("exit %d, want %d: %s", code, ExitError, stderr)
	}
	if strings.Contains(stderr, "try more connections") || !strings.Contains(stderr, "it is not accepting") {
		t.Errorf("stderr does not say the server is not accepting:\n%s", stderr)
	}
}
