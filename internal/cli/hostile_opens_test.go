package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Every hostile case runs under strace where it can be (Linux, strace on
// PATH: apt-get install strace), which records every file the run opens.
// What schedoctor itself opened (not the go command or another program it
// ran: their opens are theirs) must lie in what the case gave it or what
// reading it needs: the case directory (the inputs, -src DIR, the module
// it runs in), this process's own /proc and cgroup files, and the
// toolchain's files the type checker reads (GOROOT, the build cache). A
// case names further allowed paths with "open PREFIX" lines in its want
// file ($DIR expands). A profile naming /etc/passwd, a saved directory
// linking to /dev/zero, a sysroot linking onto the host: none of them may
// make schedoctor open a file of this machine.
//
// The check is of the files actually opened (the kernel's path of each
// descriptor returned, strace -y), so a path resolved through links or
// "..", or inside a root by openat2, is judged by where it landed.

// straceArgs are the tracer's flags: follow threads and children, report
// only the calls that open files or start processes (seccomp-bpf: the
// others run untraced, so the run is not slowed much), each descriptor
// with its path.
var straceArgs = []string{"-f", "--seccomp-bpf", "-qq", "-y", "-s", "4096", "-e", "signal=none",
	"-e", "trace=open,openat,openat2,creat,execve,clone,clone3,fork,vfork"}

// tracer returns strace's path, or "" (and why) when runs cannot be
// traced: not Linux, no strace, or strace cannot trace here (a container
// without ptrace, a strace too old for these flags), found by tracing
// one short command once.
func tracer() (string, string) {
	tracerOnce.Do(func() {
		switch {
		case runtime.GOOS != "linux":
			tracerWhy = "strace is Linux only"
			return
		case os.Getenv("SCHEDOCTOR_NO_STRACE") == "1":
			tracerWhy = "SCHEDOCTOR_NO_STRACE=1"
			return
		}
		p, err := exec.LookPath("strace")
		if err != nil {
			tracerWhy = "no strace on PATH (apt-get install strace)"
			return
		}
		self, err := os.Executable()
		if err != nil {
			tracerWhy = err.Error()
			return
		}
		args := append(slices.Clone(straceArgs), "-o", os.DevNull, "--", self, "-test.run=^$")
		if out, err := exec.Command(p, args...).CombinedOutput(); err != nil {
			tracerWhy = fmt.Sprintf("strace cannot trace here: %v: %s", err, strings.TrimSpace(string(out)))
			return
		}
		tracerPath = p
	})
	return tracerPath, tracerWhy
}

var (
	tracerOnce            sync.Once
	tracerPath, tracerWhy string
)

// traced wraps cmd in strace writing to out.
func traced(strace string, cmd *exec.Cmd, out string) {
	args := append(slices.Clone(straceArgs), "-o", out, "--", cmd.Path)
	cmd.Args = append(args, cmd.Args[1:]...)
	cmd.Args = append([]string{strace}, cmd.Args...)
	cmd.Path = strace
}

// traceLine is one line of strace -f output: the thread, the call, and
// its result (the descriptor's path after "<", when -y decodes one).
var traceLine = regexp.MustCompile(`^(\d+)\s+(?:<\.\.\. (\w+) resumed>|(\w+)\()(.*?)(?:= (-?\d+)(?:<(.*)>)?(?: .*)?)?$`)

// opened parses a trace: the paths of the files schedoctor opened (by the
// first process and its threads, not by the programs it executed and
// their children), and that process's ID.
func opened(trace string) ([]string, int, error) {
	f, err := os.Open(trace)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	type call struct {
		tid    int
		name   string
		result int
		path   string
	}
	var calls []call
	root := -1
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := traceLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		tid, _ := strconv.Atoi(m[1])
		if root < 0 {
			root = tid
		}
		c := call{tid: tid, name: m[2] + m[3], result: -1, path: m[6]}
		if m[5] != "" {
			c.result, _ = strconv.Atoi(m[5])
		}
		if strings.HasSuffix(sc.Text(), "<unfinished ...>") {
			c.result = -1
		}
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		return nil, 0, err
	}
	// A thread that executed a program is another program from then on,
	// and so is every thread or process it started.
	parent := map[int]int{}
	foreign := map[int]bool{}
	for _, c := range calls {
		switch c.name {
		case "clone", "clone3", "fork", "vfork":
			if c.result > 0 {
				parent[c.result] = c.tid
			}
		case "execve":
			if c.tid != root {
				foreign[c.tid] = true
			}
		}
	}
	isForeign := func(tid int) bool {
		for range 64 {
			if foreign[tid] {
				return true
			}
			p, ok := parent[tid]
			if !ok {
				return false
			}
			tid = p
		}
		return true
	}
	var paths []string
	for _, c := range calls {
		switch c.name {
		case "open", "openat", "openat2", "creat":
		default:
			continue
		}
		if c.result < 0 || c.path == "" || isForeign(c.tid) {
			continue
		}
		paths = append(paths, c.path)
	}
	return paths, root, nil
}

// dynamicLoader matches what the dynamic loader opens before main when the
// test binary links against the C library (cgo): its cache and shared
// objects.
var dynamicLoader = regexp.MustCompile(`^(/etc/ld\.so\.(cache|preload)|/(usr/)?lib(64|32)?/.*\.so(\.[0-9]+)*)$`)

// allowedOpens are the prefixes any run may open besides the case's own
// (its directory, the paths its arguments name): the Go runtime's and
// this process's files, the toolchain's, and the files of name and time
// resolution.
func allowedOpens(dir string, args, extra []string) []string {
	allow := []string{dir, "/dev/null", "/dev/urandom", "/proc/self/", "/sys/kernel/mm/transparent_hugepage/",
		"/sys/fs/cgroup/", "/sys/devices/system/cpu/", "/etc/localtime", "/usr/share/zoneinfo/",
		"/etc/hosts", "/etc/resolv.conf", "/etc/nsswitch.conf", "/etc/host.conf", "/etc/services"}
	if exe, err := os.Executable(); err == nil {
		allow = append(allow, exe)
	}
	if wd, err := os.Getwd(); err == nil {
		// The module the tests run in: the cases' working directory is in
		// it, and WorkRoots makes it a source root.
		if root := moduleRoot(wd); root != "" {
			allow = append(allow, root+string(filepath.Separator))
		}
	}
	for _, k := range []string{"GOROOT", "GOCACHE"} {
		if out, err := exec.Command("go", "env", k).Output(); err == nil {
			if v := strings.TrimSpace(string(out)); v != "" {
				allow = append(allow, v+string(filepath.Separator))
			}
		}
	}
	for _, a := range args {
		if filepath.IsAbs(a) {
			allow = append(allow, filepath.Clean(a)) // an input named on the command line: that path exactly
		}
	}
	return append(allow, extra...)
}

func moduleRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// checkOpens fails t for every file opened outside allow.
func checkOpens(t *testing.T, trace string, allow []string, show func() string) {
	t.Helper()
	paths, pid, err := opened(trace)
	if err != nil {
		t.Fatalf("reading the trace: %v", err)
	}
	// /proc/self as the kernel names it.
	allow = append(allow, fmt.Sprintf("/proc/%d/", pid))
	if len(paths) == 0 {
		t.Fatalf("the trace %s records no open at all: tracing is broken", trace)
	}
	var bad []string
	for _, p := range paths {
		p = filepath.Clean(p)
		if dynamicLoader.MatchString(p) {
			continue
		}
		if !slices.ContainsFunc(allow, func(a string) bool {
			return p == filepath.Clean(a) || strings.HasSuffix(a, "/") && strings.HasPrefix(p, a) || strings.HasPrefix(p, filepath.Clean(a)+"/")
		}) {
			if !slices.Contains(bad, p) {
				bad = append(bad, p)
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("opened %d file(s) outside the inputs and the allowed roots: %s\n%s", len(bad), strings.Join(bad, ", "), show())
	}
	t.Logf("%d opens, all inside the inputs and allowed roots", len(paths))
}

// TestOpenedParses keeps the trace parser honest on the lines strace
// writes: a thread's opens count, a child's after its execve do not,
// unfinished calls take their result from the resumed line.
func TestOpenedParses(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace")
	lines := `100  execve("/x/cli.test", ["cli.test"], 0x7ffe /* 35 vars */) = 0
100  openat(AT_FDCWD</d>, "/etc/passwd", O_RDONLY|O_CLOEXEC) = 3</etc/passwd>
100  openat(AT_FDCWD</d>, "/nope", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)
100  clone(child_stack=0x3c, flags=CLONE_VM|CLONE_THREAD, tls=0x3c) = 101
101  openat2(3</r>, "proc/self/status", {flags=O_RDONLY, resolve=RESOLVE_IN_ROOT}, 24 <unfinished ...>
100  clone(child_stack=NULL, flags=CLONE_VM|CLONE_VFORK|SIGCHLD <unfinished ...>
102  execve("/usr/bin/go", ["go"], 0x3c /* 35 vars */ <unfinished ...>
101  <... openat2 resumed>) = 4</r/proc/4242/status>
100  <... clone resumed>, parent_tid=[13<anon_inode:[pidfd]>]) = 102
102  <... execve resumed>)             = 0
102  openat(AT_FDCWD</d>, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3</etc/ld.so.cache>
102  clone(child_stack=0x1, flags=CLONE_VM|CLONE_THREAD) = 103
103  openat(AT_FDCWD</d>, "/usr/lib/go/x", O_RDONLY) = 5</usr/lib/go/x>
`
	if err := os.WriteFile(trace, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	got, pid, err := opened(trace)
	if err != nil || pid != 100 {
		t.Fatal(pid, err)
	}
	want := []string{"/etc/passwd", "/r/proc/4242/status"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("opened = %q, want %q", got, want)
	}
}

func expandDir(list []string, dir string) []string {
	var out []string
	for _, s := range list {
		out = append(out, strings.ReplaceAll(s, "$DIR", dir))
	}
	return out
}

// TestOpensRecorded: the tracer and its parser see a real open, through a
// symlink, by the path it landed on; and not the opens of a program the
// traced one runs.
func TestOpensRecorded(t *testing.T) {
	strace, why := tracer()
	if strace == "" {
		t.Skip(why)
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip(err)
	}
	// The shell opens the link itself (a redirection), then runs cat,
	// whose open of /etc/hostname is cat's.
	cmd := exec.Command(sh, "-c", "read x < link; cat /etc/hostname >/dev/null 2>&1; true")
	cmd.Dir = dir
	trace := filepath.Join(dir, "trace")
	traced(strace, cmd, trace)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	paths, _, err := opened(trace)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(paths, target) {
		t.Errorf("opened %q: the open through the link is not recorded as %s", paths, target)
	}
	if slices.Contains(paths, "/etc/hostname") {
		t.Errorf("opened %q: the child's open counted as the traced program's", paths)
	}
}
