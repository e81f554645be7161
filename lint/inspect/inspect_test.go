package inspect

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
)

var atRE = regexp.MustCompile(`// at: ([a-z-]+)(?: func: (\S+))?`)

// TestShapes asks At about every line of testdata/shapes marked "at: KIND"
// and checks the kind (and the function, where named).
func TestShapes(t *testing.T) {
	r := &Resolver{NoLoad: true}
	files, err := filepath.Glob("testdata/shapes/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	n := 0
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			m := atRE.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			n++
			loop, err := r.At(file, line)
			if err != nil {
				t.Errorf("%s:%d: %v", file, line, err)
				continue
			}
			t.Logf("%s:%d: %s %s [%d-%d spin %d]: %s", filepath.Base(file), line, loop.Function, loop.Kind, loop.Start, loop.End, loop.SpinLine, loop.Detail)
			if string(loop.Kind) != m[1] {
				t.Errorf("%s:%d: kind %s, want %s (%s)", file, line, loop.Kind, m[1], loop.Detail)
			}
			if m[2] != "" && loop.Function != m[2] {
				t.Errorf("%s:%d: function %q, want %q", file, line, loop.Function, m[2])
			}
			if loop.Detail == "" {
				t.Errorf("%s:%d: no detail", file, line)
			}
			if loop.Kind.Spin() && (loop.SpinLine < loop.Start || loop.SpinLine > loop.End) {
				t.Errorf("%s:%d: spin line %d outside the loop %d-%d", file, line, loop.SpinLine, loop.Start, loop.End)
			}
		}
		f.Close()
	}
	if n < 40 {
		t.Errorf("only %d marked lines", n)
	}
}

// lineOf returns the line of the first occurrence of s in file.
func lineOf(t testing.TB, file, s string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("%q not in %s", s, file)
	return 0
}

func TestDetail(t *testing.T) {
	r := &Resolver{NoLoad: true}
	file := "testdata/shapes/selects.go"
	sel := lineOf(t, file, "select { // at: select-default func: busyHandler")
	loop, err := r.At(file, sel)
	if err != nil {
		t.Fatal(err)
	}
	if loop.SpinLine != sel || loop.Start != sel-1 || loop.End != sel+7 {
		t.Errorf("spin line %d, loop %d-%d; want %d in %d-%d", loop.SpinLine, loop.Start, loop.End, sel, sel-1, sel+7)
	}
	want := "select at line " + itoa(sel) + " has a default that neither blocks nor leaves the loop, and cases on done, ctx.Done()"
	if loop.Detail != want {
		t.Errorf("detail %q\nwant   %q", loop.Detail, want)
	}

	file = "testdata/shapes/atomics.go"
	sleep := lineOf(t, file, "time.Sleep(pause)")
	loop, err = r.At(file, sleep)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(loop.Detail, "time.Sleep(50µs) at line "+itoa(sleep)) {
		t.Errorf("sleep detail %q", loop.Detail)
	}
	g := lineOf(t, file, "runtime.Gosched() // at: yield-spin func: (*ring).put")
	loop, err = r.At(file, g)
	if err != nil {
		t.Fatal(err)
	}
	if loop.SpinLine != g || !strings.Contains(loop.Detail, "tail - head >= uint64(len(r.buf)) (line "+itoa(g-1)+")") {
		t.Errorf("ring: spin line %d (want %d), detail %q", loop.SpinLine, g, loop.Detail)
	}
}

func TestNested(t *testing.T) {
	r := &Resolver{NoLoad: true}
	file := "testdata/shapes/atomics.go"
	fn := lineOf(t, file, "func nested(")
	loop, err := r.At(file, fn+3)
	if err != nil {
		t.Fatal(err)
	}
	if loop.Kind != Compute || loop.Start != fn+2 || len(loop.Outer) != 1 || loop.Outer[0] != [2]int{fn + 1, fn + 6} {
		t.Fatalf("nested: %+v", loop)
	}
	if loop.OuterKinds[0] != Compute {
		t.Errorf("outer kind %s, want compute (cooperative compute: lint reports nothing)", loop.OuterKinds[0])
	}
	if _, _, _, ok := loop.SpinLoop(); ok {
		t.Errorf("nested: a spin loop in cooperative compute")
	}
	fn = lineOf(t, file, "func nestedSpin(")
	loop, err = r.At(file, fn+8)
	if err != nil {
		t.Fatal(err)
	}
	if loop.Kind != Compute || loop.Start != fn+7 || len(loop.Outer) != 1 || loop.Outer[0] != [2]int{fn + 1, fn + 10} {
		t.Fatalf("nestedSpin: %+v", loop)
	}
	kind, start, end, ok := loop.SpinLoop()
	if !ok || kind != SelectDefault || start != fn+1 || end != fn+10 {
		t.Errorf("SpinLoop = %s %d-%d %v", kind, start, end, ok)
	}
	// A loop around a goroutine does not enclose the goroutine's lines.
	sel := lineOf(t, "testdata/shapes/selects.go", "func inGoroutine(")
	loop, err = r.At("testdata/shapes/selects.go", sel+1)
	if err != nil {
		t.Fatal(err)
	}
	if loop.Kind != NotInLoop || loop.Function != "inGoroutine" {
		t.Errorf("go statement: %s in %s", loop.Kind, loop.Function)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestTyped loads a testdata module with go/packages and runs the
// analyzers on it: the SD101 of the busy select is among the findings,
// Typed is set, and the blocking twin has none.
func TestTyped(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The same through go vet: this test binary answers as its tool (see
	// TestMain), as cmd/schedoctor does.
	for _, c := range []struct {
		name string
		r    *Resolver
	}{{"packages", &Resolver{}}, {"vettool", &Resolver{VetTool: exe}}} {
		t.Run(c.name, func(t *testing.T) { testTyped(t, c.r) })
	}
}

// TestNoFindings: the kind without the analyzers, and no package load.
func TestNoFindings(t *testing.T) {
	file, err := filepath.Abs("testdata/mod/pkg/wait.go")
	if err != nil {
		t.Fatal(err)
	}
	r := &Resolver{NoFindings: true}
	loop, err := r.At(file, lineOf(t, file, "select { // SD101"))
	if err != nil {
		t.Fatal(err)
	}
	if loop.Kind != SelectDefault || len(loop.Findings) != 0 || loop.Typed || len(r.pkgs) != 0 {
		t.Errorf("kind %s findings %v typed %v loads %d, want the kind alone", loop.Kind, loop.Findings, loop.Typed, len(r.pkgs))
	}
}

func testTyped(t *testing.T, r *Resolver) {
	file, err := filepath.Abs("testdata/mod/pkg/wait.go")
	if err != nil {
		t.Fatal(err)
	}
	sel := lineOf(t, file, "select { // SD101")
	loop, err := r.At(file, sel)
	if err != nil {
		t.Fatal(err)
	}
	if !loop.Typed || loop.Kind != SelectDefault {
		t.Fatalf("typed %v kind %s: %s", loop.Typed, loop.Kind, loop.Detail)
	}
	if len(loop.Findings) != 1 || loop.Findings[0].Rule != "SD101" || loop.Findings[0].Locations[0].Line != sel || loop.Findings[0].Locations[0].File != file {
		t.Errorf("findings %+v, want one SD101 at %s:%d", loop.Findings, file, sel)
	}
	// The twin, from the cached load: blocking, no finding.
	block := lineOf(t, file, "func Block(") + 2
	loop, err = r.At(file, block)
	if err != nil {
		t.Fatal(err)
	}
	if !loop.Typed || loop.Kind != Blocking || len(loop.Findings) != 0 {
		t.Errorf("Block: typed %v kind %s findings %v", loop.Typed, loop.Kind, loop.Findings)
	}
	if len(r.pkgs) != 1 {
		t.Errorf("%d package loads, want 1 (cached per directory)", len(r.pkgs))
	}
}

// TestUntyped reads the same file where no module holds it and with a
// dependency that cannot be found: the go command cannot load it, so the
// analyzers run on the file alone.
func TestUntyped(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	data, err := os.ReadFile("testdata/mod/pkg/wait.go")
	if err != nil {
		t.Fatal(err)
	}
	// A lone file that imports only the standard library loads as an
	// ad-hoc package: give it a dependency that is nowhere.
	data = []byte(strings.Replace(string(data), `import "context"`, "import (\n\t\"context\"\n\n\t_ \"example.com/nowhere/dep\"\n)", 1))
	dir := t.TempDir()
	file := filepath.Join(dir, "wait.go")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := &Resolver{}
	sel := lineOf(t, file, "select { // SD101")
	loop, err := r.At(file, sel)
	if err != nil {
		t.Fatal(err)
	}
	if loop.Typed || loop.Kind != SelectDefault {
		t.Fatalf("typed %v kind %s", loop.Typed, loop.Kind)
	}
	if len(loop.Findings) != 1 || loop.Findings[0].Rule != "SD101" || loop.Findings[0].Locations[0].Function != "pkg.Wait" {
		t.Errorf("findings %+v, want one SD101 in pkg.Wait", loop.Findings)
	}
	// NoLoad never starts the go command and says so the same way.
	loop, err = (&Resolver{NoLoad: true}).At(file, sel)
	if err != nil || loop.Typed || len(loop.Findings) != 1 {
		t.Errorf("NoLoad: %v, %+v", err, loop)
	}
}

// TestRemap finds files recorded by binaries built elsewhere: a foreign
// absolute path, a -trimpath module path, the longest suffix first.
func TestRemap(t *testing.T) {
	src, err := filepath.Abs("testdata/mod")
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(src, "pkg", "wait.go")
	line := lineOf(t, want, "select { // SD101")
	r := &Resolver{SrcDirs: []string{t.TempDir(), src}, NoLoad: true}
	for _, recorded := range []string{
		"/home/ci/src/insp/pkg/wait.go", // built on a CI machine
		"example.com/insp/pkg/wait.go",  // -trimpath
		`C:\build\insp\pkg\wait.go`,     // a Windows build, as pprof prints it
		want,                            // as recorded, here
	} {
		loop, err := r.At(recorded, line)
		if err != nil {
			t.Errorf("%s: %v", recorded, err)
			continue
		}
		if loop.Path != want || loop.Kind != SelectDefault {
			t.Errorf("%s: read %s (%s), want %s", recorded, loop.Path, loop.Kind, want)
		}
	}

	// Longest suffix first: a/pkg/x.go beats pkg/x.go.
	dir := t.TempDir()
	for _, p := range []string{"a/pkg/x.go", "pkg/x.go"} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("package pkg\n\nfunc f() {\n\tfor {\n\t}\n}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r = &Resolver{SrcDirs: []string{dir}, NoLoad: true}
	loop, err := r.At("/elsewhere/a/pkg/x.go", 4)
	if err != nil {
		t.Fatal(err)
	}
	if loop.Path != filepath.Join(dir, "a", "pkg", "x.go") {
		t.Errorf("read %s, want the longest suffix a/pkg/x.go", loop.Path)
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	r := &Resolver{SrcDirs: []string{dir}, NoLoad: true}
	if _, err := r.At("/nowhere/pkg/gone.go", 3); !errors.Is(err, ErrNoSource) {
		t.Errorf("missing file: %v, want ErrNoSource", err)
	}
	if _, err := (&Resolver{}).At("/nowhere/gone.go", 3); !errors.Is(err, ErrNoSource) || finding.HintOf(err) != finding.HintSourceDir {
		t.Errorf("missing file, no SrcDirs: %v", err)
	}
	if _, err := r.At("", 3); !errors.Is(err, ErrNoSource) {
		t.Errorf("empty name: %v", err)
	}

	// A directory named like a Go file, and a FIFO: refused, not read
	// (reading a FIFO would block forever).
	if err := os.Mkdir(filepath.Join(dir, "d.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := r.At(filepath.Join(dir, "d.go"), 1); err == nil || errors.Is(err, ErrNoSource) || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v", err)
	}
	fifo := filepath.Join(dir, "f.go")
	if err := syscall.Mkfifo(fifo, 0o644); err == nil {
		if _, err := r.At(fifo, 1); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("fifo: %v", err)
		}
	} else {
		t.Logf("no FIFO here: %v", err)
	}

	// Over the size cap: refused with the sizes, the default cap too (a
	// sparse file costs no disk).
	big := filepath.Join(dir, "big.go")
	if err := os.WriteFile(big, []byte("package big\n\nfunc f() {\n\tfor {\n\t}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Resolver{MaxFileSize: 10, NoLoad: true}).At(big, 4); err == nil || !strings.Contains(err.Error(), "10-byte limit") {
		t.Errorf("over a 10-byte cap: %v", err)
	}
	huge := filepath.Join(dir, "huge.go")
	if err := os.WriteFile(huge, []byte("package huge\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, DefaultMaxFileSize+1); err != nil {
		t.Fatal(err)
	}
	if _, err := r.At(huge, 1); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("over the default cap: %v", err)
	}

	// Not Go, a line past the end, line 0.
	txt := filepath.Join(dir, "notes.go")
	if err := os.WriteFile(txt, []byte("these are notes, not Go\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.At(txt, 1); err == nil || !strings.Contains(err.Error(), "parsing") {
		t.Errorf("not Go: %v", err)
	}
	if _, err := r.At(big, 99); err == nil || !strings.Contains(err.Error(), "has 6 lines") {
		t.Errorf("past the end: %v", err)
	}
	if _, err := r.At(big, 0); err == nil {
		t.Error("line 0: no error")
	}
}

// BenchmarkAt asks about one line of a cached file: what a profile with
// many hot lines in one file costs per line.
func BenchmarkAt(b *testing.B) {
	file := "testdata/shapes/atomics.go"
	r := &Resolver{NoLoad: true}
	line := lineOf(b, file, "runtime.Gosched() // at: yield-spin func: (*ring).put")
	if _, err := r.At(file, line); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.At(file, line); err != nil {
			b.Fatal(err)
		}
	}
}

// TestConcurrent asks one Resolver from many goroutines (run with -race).
func TestConcurrent(t *testing.T) {
	r := &Resolver{NoLoad: true}
	file := "testdata/shapes/atomics.go"
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for line := 10 + i; line < 260; line += 8 {
				if _, err := r.At(file, line); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
}

func TestSpinIn(t *testing.T) {
	r := &Resolver{NoLoad: true}
	file := "testdata/shapes/atomics.go"
	hashLine := lineOf(t, file, "h = h*31 + v")
	worker := lineOf(t, file, "s += hash(in) // at: compute")
	put := lineOf(t, file, "runtime.Gosched() // at: yield-spin func: (*ring).put")
	// hash is compute, its caller worker too: the leaf, index -1.
	l, i, err := r.SpinIn([]Frame{{"/gone/x.go", 3}, {file, hashLine}, {file, worker}})
	if err != nil || i != -1 || l.Function != "hash" {
		t.Errorf("no spin: %v, %d, %+v", err, i, l)
	}
	// A compute frame called from a spinning loop: the spin, one frame up.
	l, i, err = r.SpinIn([]Frame{{file, hashLine}, {file, put}})
	if err != nil || i != 1 || l.Kind != YieldSpin || l.Function != "(*ring).put" {
		t.Errorf("spin above: %v, %d, %+v", err, i, l)
	}
	if _, _, err := r.SpinIn([]Frame{{"/gone/x.go", 3}}); !errors.Is(err, ErrNoSource) {
		t.Errorf("nothing readable: %v", err)
	}
	if _, _, err := r.SpinIn(nil); !errors.Is(err, ErrNoSource) {
		t.Errorf("empty stack: %v", err)
	}
}

// FuzzAt feeds arbitrary source to At at every line: it must return a
// loop or an error, never panic.
func FuzzAt(f *testing.F) {
	for _, file := range []string{"testdata/shapes/selects.go", "testdata/shapes/atomics.go"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("package p\nfunc f() { for { select { default: } } }\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src []byte) {
		file := filepath.Join(dir, "fuzz.go")
		if err := os.WriteFile(file, src, 0o644); err != nil {
			t.Fatal(err)
		}
		r := &Resolver{NoLoad: true}
		lines := strings.Count(string(src), "\n") + 1
		for line := 1; line <= lines && line <= 300; line++ {
			l, err := r.At(file, line)
			if err == nil && l.Kind != NotInLoop && (l.Start > line || l.End < line) {
				t.Fatalf("line %d: loop %d-%d does not enclose it", line, l.Start, l.End)
			}
		}
	})
}
