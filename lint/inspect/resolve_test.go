package inspect

import (
	"errors"
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// readTree is a source root and, beside it, files that must never be read
// through a Resolver: a secret that is not Go, and Go files outside the
// root. Every file holds a marker that would show in an error or a
// parse of it.
type readTree struct {
	src, outside string
	secret       string // not Go: "TOKEN_secret ..."
	outGo        string // valid Go, outside src: "OUTSIDE_go"
}

const spinGo = "package %s\n\n// %s\nfunc f(c chan int) {\n\tfor {\n\t\tselect {\n\t\tcase <-c:\n\t\tdefault:\n\t\t}\n\t}\n}\n"

func newReadTree(t testing.TB) readTree {
	t.Helper()
	base := t.TempDir()
	tr := readTree{src: filepath.Join(base, "src"), outside: filepath.Join(base, "outside")}
	tr.secret = filepath.Join(tr.outside, "secret")
	tr.outGo = filepath.Join(tr.outside, "real.go")
	write := func(p, data string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(tr.secret, "TOKEN_secret = hunter2\n")
	write(tr.outGo, fmt.Sprintf(spinGo, "outside", "OUTSIDE_go"))
	write(filepath.Join(tr.src, "pkg", "wait.go"), fmt.Sprintf(spinGo, "pkg", "inside"))
	write(filepath.Join(tr.src, "outside", "x.txt"), "not go")
	link := func(target, p string) {
		if err := os.Symlink(target, p); err != nil {
			t.Skipf("symlink: %v", err)
		}
	}
	link(tr.secret, filepath.Join(tr.src, "pkg", "secret.go"))
	link(tr.outGo, filepath.Join(tr.src, "pkg", "out.go"))
	link("wait.go", filepath.Join(tr.src, "pkg", "alias.go"))
	link(tr.outside, filepath.Join(tr.src, "outdir"))
	return tr
}

// leaked reports whether a result quotes the secret.
func leaked(loop *Loop, err error) bool {
	if err != nil {
		return strings.Contains(err.Error(), "TOKEN_secret") || strings.Contains(err.Error(), "hunter2")
	}
	return loop.Function != "f"
}

// TestReadRules: the paths a profile or trace records are read only by
// the rules of resolve.go. On the old code each "never" case read the
// file (the secret's first tokens in the parse error, the outside Go file
// classified).
func TestReadRules(t *testing.T) {
	tr := newReadTree(t)
	inside := filepath.Join(tr.src, "pkg", "wait.go")
	local := &Resolver{NoLoad: true}
	remote := &Resolver{NoLoad: true, SrcDirs: []string{tr.src}, Access: Access{Origin: Remote}}
	localSrc := &Resolver{NoLoad: true, SrcDirs: []string{tr.src}}
	file := &Resolver{NoLoad: true, SrcDirs: []string{tr.src}, Access: Access{Origin: LocalFile}}
	for _, c := range []struct {
		name     string
		r        *Resolver
		recorded string
		want     string // the file read; "" for none
	}{
		{"local: a file that is not Go", local, tr.secret, ""},
		{"local: /etc/passwd", local, "/etc/passwd", ""},
		{"local: /proc/self/environ", local, "/proc/self/environ", ""},
		{"local: through /proc/self/root", local, "/proc/self/root" + tr.outGo, ""},
		{"local: a .go name that is a symlink to a secret", local, filepath.Join(tr.src, "pkg", "secret.go"), ""},
		{"local: a .go name that is a symlink to Go elsewhere", local, filepath.Join(tr.src, "pkg", "out.go"), ""},
		{"local: as recorded", local, inside, inside},
		{"local: as recorded, elsewhere", local, tr.outGo, tr.outGo},
		{"local: in a root, a link out of it", localSrc, filepath.Join(tr.src, "pkg", "out.go"), ""},
		{"local: in a root, a link inside it", localSrc, filepath.Join(tr.src, "pkg", "alias.go"), filepath.Join(tr.src, "pkg", "alias.go")},
		{"local file: as recorded, in -src", file, inside, inside},
		{"local file: as recorded, elsewhere", file, tr.outGo, ""},
		{"local file: by suffix under -src", file, "/home/ci/proj/pkg/wait.go", inside},
		{"local file: a .go link to a secret", file, filepath.Join(tr.src, "pkg", "secret.go"), ""},
		{"local file: ../ out of -src", file, "x/../../outside/real.go", ""},
		{"remote: ../ out of -src", remote, "x/../../outside/real.go", ""},
		{"remote: ../ at the start", remote, "../outside/real.go", ""},
		{"remote: deep ../", remote, "/b/a/../../../../../../" + strings.TrimPrefix(tr.outGo, "/"), ""},
		{"remote: a directory link out of -src", remote, "/build/outdir/real.go", ""},
		{"remote: a .go link to a secret", remote, "/build/pkg/secret.go", ""},
		{"remote: a .go link to Go outside", remote, "/build/pkg/out.go", ""},
		{"remote: an absolute path of this machine", remote, tr.outGo, ""},
		{"remote: an absolute path of this machine, no -src", &Resolver{NoLoad: true, Access: Access{Origin: Remote}}, tr.outGo, ""},
		{"remote: by suffix under -src", remote, "/home/ci/proj/pkg/wait.go", inside},
		{"remote: a link inside -src", remote, "/home/ci/proj/pkg/alias.go", filepath.Join(tr.src, "pkg", "alias.go")},
		{"remote: under a work root", &Resolver{NoLoad: true, Access: Access{Origin: Remote, Roots: []string{tr.src}}}, "example.com/m/pkg/wait.go", inside},
	} {
		loop, err := c.r.At(c.recorded, 5)
		if leaked(loop, err) {
			t.Errorf("%s: %s read outside the rules: %+v, %v", c.name, c.recorded, loop, err)
			continue
		}
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%s: %s read %s, want nothing read", c.name, c.recorded, loop.Path)
		case c.want != "" && err != nil:
			t.Errorf("%s: %s: %v, want %s read", c.name, c.recorded, err, c.want)
		case c.want != "" && loop.Path != c.want:
			t.Errorf("%s: %s read %s, want %s", c.name, c.recorded, loop.Path, c.want)
		}
	}
	if _, err := remote.At(tr.outGo, 5); err == nil || !errors.Is(err, ErrNoSource) {
		t.Errorf("remote absolute path: err = %v, want ErrNoSource", err)
	}
	if _, err := (&Resolver{Access: Access{Origin: Remote}}).At(tr.outGo, 5); err == nil || finding.HintOf(err) != finding.HintSourceDir {
		t.Errorf("remote, no root: err = %v, want it to ask for the source directory", err)
	}
}

// TestReadFIFO: a .go name that is a FIFO, as recorded or under a root,
// is refused at once.
func TestReadFIFO(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pkg", "f.go")
	if err := os.MkdirAll(filepath.Dir(fifo), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(fifo); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, r := range []*Resolver{{NoLoad: true}, {NoLoad: true, SrcDirs: []string{dir}, Access: Access{Origin: Remote}}} {
		done := make(chan error, 1)
		go func() { _, err := r.At(fifo, 1); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("FIFO: err = %v, want not a regular file", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("blocked on a FIFO")
		}
	}
}

// TestReadBudget: the run's reading stops at its budget, every later file
// gets ErrBudget naming the limit, and files already read still answer.
func TestReadBudget(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i := range 5 {
		p := filepath.Join(dir, fmt.Sprintf("p%d", i), "a.go")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf(spinGo, fmt.Sprintf("p%d", i), "x")), 0o644); err != nil {
			t.Fatal(err)
		}
		// A sibling per package: files count them too.
		if err := os.WriteFile(filepath.Join(filepath.Dir(p), "b.go"), []byte(fmt.Sprintf("package p%d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	for _, c := range []struct {
		budget Budget
		ok     int // files answered before the budget stops
		limit  string
	}{
		{Budget{Packages: 2}, 2, "2 packages"},
		{Budget{Files: 3}, 2, "3 files"}, // the third file is p1/a.go's sibling: p1 answers, p2 does not
		{Budget{Bytes: int64(len(fmt.Sprintf(spinGo, "p0", "x")) + len("package p0\n") + 10)}, 1, "MB read"},
		{Budget{Time: 200 * time.Millisecond}, 1, "of reading"},
	} {
		r := &Resolver{NoLoad: true, Budget: c.budget}
		for i, f := range files {
			if c.budget.Time > 0 && i == 1 {
				time.Sleep(300 * time.Millisecond)
			}
			_, err := r.At(f, 5)
			switch {
			case i < c.ok && err != nil:
				t.Errorf("%+v: file %d: %v, want read", c.budget, i, err)
			case i >= c.ok && (!errors.Is(err, ErrBudget) || !strings.Contains(err.Error(), c.limit)):
				t.Errorf("%+v: file %d: err = %v, want ErrBudget naming %q", c.budget, i, err, c.limit)
			}
		}
		if _, err := r.At(files[0], 5); err != nil {
			t.Errorf("%+v: a file read before the budget was spent: %v", c.budget, err)
		}
	}
}

func TestWorkRoots(t *testing.T) {
	mod := t.TempDir()
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(mod, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	got := WorkRoots()
	want, _ := filepath.EvalSymlinks(mod)
	if len(got) != 1 {
		t.Fatalf("WorkRoots() = %q, want [%s]", got, mod)
	}
	if g, _ := filepath.EvalSymlinks(got[0]); g != want {
		t.Errorf("WorkRoots() = %q, want [%s]", got, mod)
	}
}

// FuzzResolve: whatever a profile records, a remote input reads nothing
// outside -src and a local one never a file that is not a regular .go
// file reached without a link out of its root.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"/home/ci/proj/pkg/wait.go", "x/../../outside/real.go", "../outside/real.go",
		"/build/outdir/real.go", "/build/pkg/secret.go", "pkg/out.go", "/proc/self/environ", `C:\b\..\..\outside\real.go`,
		"outdir/../outside/real.go", "pkg/alias.go", "/etc/passwd"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	tr := newReadTree(f)
	f.Fuzz(func(t *testing.T, recorded string, remote bool) {
		origin := LocalFile
		if remote {
			origin = Remote
		}
		r := &Resolver{NoLoad: true, SrcDirs: []string{tr.src}, Access: Access{Origin: origin}}
		loop, err := r.At(recorded, 5)
		if err != nil {
			if strings.Contains(err.Error(), "TOKEN_secret") {
				t.Fatalf("%q: the secret's contents in %v", recorded, err)
			}
			return
		}
		if remote && !strings.HasPrefix(loop.Path, tr.src) {
			t.Fatalf("%q (remote): read %s outside -src", recorded, loop.Path)
		}
		if strings.Contains(loop.Path, tr.outside) && filepath.Clean(recorded) != tr.outGo {
			t.Fatalf("%q: read %s through a link or ../", recorded, loop.Path)
		}
	})
}

// gatedImporter stands for the go command's export data: "net/http" waits
// for gate (a build on a cold cache), every other path answers at once
// with a package that declares Marker.
type gatedImporter struct{ gate chan struct{} }

func (g gatedImporter) Import(path string) (*types.Package, error) {
	if path == "net/http" {
		<-g.gate
	}
	p := types.NewPackage(path, path[strings.LastIndexByte(path, '/')+1:])
	p.Scope().Insert(types.NewConst(token.NoPos, p, "Marker", types.Typ[types.Int], constant.MakeInt64(1)))
	p.MarkComplete()
	return p, nil
}

// TestStdImportDeadline: a standard-library import still running at the
// run's deadline (the go command building on a cold cache) is given up,
// the file is typed without it, imports asked meanwhile do not queue
// behind it, and once it ends the importer is used again.
func TestStdImportDeadline(t *testing.T) {
	gate := make(chan struct{})
	saved := stdImporter.imp
	stdImporter.Lock()
	stdImporter.imp = gatedImporter{gate}
	stdImporter.Unlock()
	t.Cleanup(func() {
		stdImporter.Lock()
		stdImporter.imp = saved
		delete(stdImporter.failed, "net/http")
		stdImporter.Unlock()
	})
	start := time.Now()
	p, err := lenientImporter{deadline: start.Add(100 * time.Millisecond)}.Import("net/http")
	if err != nil || !p.Complete() || p.Scope().Lookup("Marker") != nil {
		t.Fatalf("import past the deadline: %v, %v; want an empty complete package", p, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("import past a 100ms deadline returned after %v", d)
	}
	// Meanwhile: not queued behind the build, typed without.
	start = time.Now()
	p, _ = lenientImporter{deadline: start.Add(time.Minute)}.Import("strings")
	if p.Scope().Lookup("Marker") != nil || time.Since(start) > 5*time.Second {
		t.Errorf("an import during the slow one: %v after %v; want an empty package at once", p, time.Since(start))
	}
	close(gate)
	for deadline := time.Now().Add(10 * time.Second); stdImporter.late.Load(); {
		if time.Now().After(deadline) {
			t.Fatal("the slow import never ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
	p, _ = lenientImporter{deadline: time.Now().Add(time.Minute)}.Import("strings")
	if p.Scope().Lookup("Marker") == nil {
		t.Errorf("after the slow import ended: %v; want the importer's package", p)
	}
}
