package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/schedoctor/schedoctor/internal/labtest"
	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// The hostile-input corpus (issue 12): every directory under
// testdata/hostile/<case>/ is one run of schedoctor on bad or crafted input.
//
//	args    one command-line argument per line, the first the subcommand;
//	        $DIR is replaced by the case directory's absolute path
//	want    optional; lines "exit N[,M]" (the allowed exit codes, default
//	        0,1,2), "stderr SUBSTRING" and "stdout SUBSTRING" (must appear
//	        there; repeatable), "maxout BYTES" (stdout and stderr together
//	        stay under it: names of a MiB are printed capped, issue 19) and
//	        "open PREFIX" (a path the run may open besides the defaults of
//	        hostile_opens_test.go; $DIR expands)
//	stdin   optional; given as standard input (default: empty)
//	gen     optional; the name of a generator (hostileGens) that writes the
//	        case's big or binary files at test time into a temporary copy of
//	        the directory, which $DIR then names. Keep committed files small
//	        (< 200 KB): generate bombs.
//
// Each case runs in its own child process (this test binary, re-executed
// as schedoctor; see TestMain), bounded in time, and is checked for its exit
// code, its time, its peak memory (VmHWM, see vmHWM: not rusage's Maxrss,
// which counts the test binary's own memory) and for raw control
// characters on stdout and stderr. The child's working directory is the
// case directory and NO_COLOR is set.
const hostileDir = "testdata/hostile"

// Bounds of one case. The time is generous on purpose: the machine may be
// running 8 builds, and a case that loops or reads without end takes far
// longer than this anyway.
const (
	hostileTimeout = 20 * time.Second
	hostileMaxRSS  = 400 << 20 // bytes
)

// hostileGens are the generators a case's gen file may name: each writes
// files into dir (a temporary copy of the case directory). Add one in a
// new file of this package (hostile_gen_<area>_test.go) with an init.
var hostileGens = map[string]func(dir string) error{}

func registerHostileGen(name string, gen func(dir string) error) {
	if _, dup := hostileGens[name]; dup {
		panic("hostile generator " + name + " registered twice")
	}
	hostileGens[name] = gen
}

// childEnv marks the re-executed test binary as schedoctor.
const childEnv = "SCHEDOCTOR_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(runAsCLI(os.Args[1:]))
	}
	if os.Getenv(listenOnlyEnv) == "1" {
		listenOnly() // TestHostProbeServerNotAccepting's server
	}
	os.Exit(m.Run())
}

// runAsCLI is cmd/schedoctor's main without the vet-tool dispatch: the
// signal handling and the writers are the real ones.
func runAsCLI(args []string) int {
	ctx, stop := NotifyContext(context.Background(), os.Stderr)
	defer stop()
	if os.Getenv(childEnv+"_HWM") == "1" {
		// Tell the parent on fd 3 the peak memory of this program (see
		// childPeakRSS): reported at exit, so it covers the whole run.
		f := os.NewFile(3, "hwm")
		defer func() { fmt.Fprintln(f, vmHWM(os.Getpid())) }()
	}
	if os.Getenv(childEnv+"_DOING") == "1" {
		// Tell the parent (signal_test.go) on fd 3 what the run is doing.
		f := os.NewFile(3, "doing")
		doingHook = func(s string) { fmt.Fprintln(f, s) }
	}
	return Run(ctx, &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}, args)
}

type hostileCase struct {
	name   string
	dir    string // absolute
	args   []string
	stdin  []byte
	exits  []int
	stderr []string
	maxOut int      // bytes of stdout and stderr together; 0: no bound
	stdout []string // substrings stdout must hold
	opens  []string // further paths the run may open (hostile_opens_test.go)
	gen    string
}

func loadHostileCase(dir string) (*hostileCase, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	c := &hostileCase{name: filepath.Base(dir), dir: abs, exits: []int{ExitClean, ExitFindings, ExitError}}
	b, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		return nil, fmt.Errorf("case %s: %w", c.name, err)
	}
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		c.args = append(c.args, l)
	}
	if len(c.args) == 0 || c.args[0] == "" {
		return nil, fmt.Errorf("case %s: args has no subcommand", c.name)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "want")); err == nil {
		for i, l := range strings.Split(string(b), "\n") {
			l = strings.TrimSpace(l)
			key, val, _ := strings.Cut(l, " ")
			switch key {
			case "", "#":
			case "exit":
				c.exits = nil
				for _, f := range strings.Split(val, ",") {
					n, err := strconv.Atoi(strings.TrimSpace(f))
					if err != nil {
						return nil, fmt.Errorf("case %s: want line %d: exit %q: %w", c.name, i+1, val, err)
					}
					c.exits = append(c.exits, n)
				}
			case "stderr":
				c.stderr = append(c.stderr, val)
			case "maxout":
				n, err := strconv.Atoi(strings.TrimSpace(val))
				if err != nil || n <= 0 {
					return nil, fmt.Errorf("case %s: want line %d: maxout %q: want a number of bytes", c.name, i+1, val)
				}
				c.maxOut = n
			case "stdout":
				c.stdout = append(c.stdout, val)
			case "open":
				c.opens = append(c.opens, val)
			default:
				return nil, fmt.Errorf("case %s: want line %d: unknown key %q (want exit, stderr, stdout, maxout or open)", c.name, i+1, key)
			}
		}
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	if b, err := os.ReadFile(filepath.Join(dir, "stdin")); err == nil {
		c.stdin = b
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	if b, err := os.ReadFile(filepath.Join(dir, "gen")); err == nil {
		c.gen = strings.TrimSpace(string(b))
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	return c, nil
}

// TestHostile runs the corpus.
func TestHostile(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(hostileDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			continue
		}
		c, err := loadHostileCase(d)
		if err != nil {
			t.Error(err)
			continue
		}
		n++
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runHostileCase(t, c)
		})
	}
	if n == 0 {
		t.Fatalf("no cases under %s", hostileDir)
	}
}

func runHostileCase(t *testing.T, c *hostileCase) {
	dir := c.dir
	if c.gen != "" {
		gen := hostileGens[c.gen]
		if gen == nil {
			t.Fatalf("gen %q: no such generator (have %v)", c.gen, genNames())
		}
		dir = t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(c.dir)); err != nil {
			t.Fatalf("copying the case: %v", err)
		}
		if err := gen(dir); err != nil {
			t.Fatalf("gen %s: %v", c.gen, err)
		}
	}
	args := make([]string, len(c.args))
	for i, a := range c.args {
		args[i] = strings.ReplaceAll(a, "$DIR", dir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hostileTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1", "NO_COLOR=1")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(c.stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(cmd.Env, childEnv+"_HWM=1")
	hwmR, hwmW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer hwmR.Close()
	cmd.ExtraFiles = []*os.File{hwmW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var trace string
	if strace, why := tracer(); strace != "" {
		trace = filepath.Join(t.TempDir(), "opens.trace")
		traced(strace, cmd, trace)
	} else {
		t.Logf("the files opened are not checked: %s", why)
	}
	m := labtest.StartMeter()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	hwmW.Close()
	// Polled while it runs too, for a child killed before it can report.
	polled := make(chan int64, 1)
	go func() {
		var peak int64
		for {
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
				if kb := vmHWM(cmd.Process.Pid); kb > peak {
					peak = kb
				}
				continue
			}
			polled <- peak
			return
		}
	}()
	err = cmd.Wait()
	elapsed := time.Since(start)
	reported, _ := io.ReadAll(hwmR)
	show := func() string {
		return fmt.Sprintf("schedoctor %q\nstdout (%d bytes):\n%s\nstderr:\n%s", args, stdout.Len(), head(stdout.String(), 2000), head(stderr.String(), 2000))
	}
	if ctx.Err() != nil {
		// A case that loops or blocks takes far longer than the limit on
		// any machine; one that only ran slowly because other processes
		// took the CPUs is skipped with the figures (the child is reaped
		// by now, so its own CPU is not counted as theirs).
		what := fmt.Sprintf("killed after %v (limit %v)\n%s", elapsed.Round(time.Millisecond), hostileTimeout, show())
		if trace != "" {
			// What it opened before it was killed counts, busy or not.
			checkOpens(t, trace, allowedOpens(dir, args, expandDir(c.opens, dir)), show)
		}
		m.SkipIfBusy(t, "%s", what)
		t.Fatal(what)
	}
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running the child: %v", err)
		}
		code = ee.ExitCode()
	}
	ok := false
	for _, x := range c.exits {
		ok = ok || x == code
	}
	if !ok {
		t.Errorf("exit %d, want one of %v\n%s", code, c.exits, show())
	}
	cancel()
	peakKB := <-polled
	if kb, err := strconv.ParseInt(strings.TrimSpace(string(reported)), 10, 64); err == nil && kb > peakKB {
		peakKB = kb
	}
	t.Logf("exit %d in %v, peak RSS %d MB", code, elapsed.Round(time.Millisecond), peakKB>>10)
	limit := int64(hostileMaxRSS)
	if raceEnabled {
		limit *= 3 // shadow memory: see race_on_test.go
	}
	if rss := peakKB << 10; rss > limit {
		t.Errorf("peak RSS %d MB, limit %d MB\n%s", rss>>20, limit>>20, show())
	}
	for _, s := range c.stderr {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("stderr lacks %q\n%s", s, show())
		}
	}
	if n := stdout.Len() + stderr.Len(); c.maxOut > 0 && n > c.maxOut {
		t.Errorf("%d bytes of output, limit %d (maxout)\n%s", n, c.maxOut, show())
	}
	for _, s := range c.stdout {
		if !strings.Contains(stdout.String(), s) {
			t.Errorf("stdout lacks %q\n%s", s, show())
		}
	}
	for name, b := range map[string][]byte{"stdout": stdout.Bytes(), "stderr": stderr.Bytes()} {
		if i, r := rawControl(b); i >= 0 {
			t.Errorf("%s: raw %U at byte %d: %q\n%s", name, r, i, b[max(0, i-40):min(len(b), i+40)], show())
		}
	}
	if strings.Contains(stderr.String(), "goroutine ") && strings.Contains(stderr.String(), "panic") {
		t.Errorf("a panic reached stderr\n%s", show())
	}
	if trace != "" {
		checkOpens(t, trace, allowedOpens(dir, args, expandDir(c.opens, dir)), show)
	}
}

// rawControl returns the offset and rune of the first control character
// (other than \n and \t), bidi control or invalid UTF-8 byte in b, or -1.
func rawControl(b []byte) (int, rune) {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i, rune(b[i])
		}
		if textsafe.Unsafe(r) && r != '\n' && r != '\t' {
			return i, r
		}
		i += size
	}
	return -1, 0
}

// vmHWM is the peak resident memory of process pid in kB (VmHWM in
// /proc/PID/status), or 0. Not rusage's Maxrss: a child started with
// vfork (os/exec does) counts there the RSS of the parent it was forked
// from, here the test binary with everything the other tests loaded.
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}

func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func genNames() []string {
	var names []string
	for n := range hostileGens {
		names = append(names, n)
	}
	return names
}

// TestRawControl keeps the corpus's detector honest: it must see what a
// terminal would act on.
func TestRawControl(t *testing.T) {
	for _, s := range []string{"\x1b[2J", "\rb", "\x7f", "\u009b", "\u202e", "\xff"} {
		if i, _ := rawControl([]byte("ok " + s)); i != 3 {
			t.Errorf("rawControl(%q) = %d, want 3", s, i)
		}
	}
	if i, _ := rawControl([]byte("ok\n\tü 日本 \\x1b")); i >= 0 {
		t.Errorf("rawControl flags plain text at %d", i)
	}
}
