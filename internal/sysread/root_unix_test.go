//go:build unix

package sysread

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rootTree builds a sysroot whose links point out of it (absolute, and by
// "..") at a secret of this machine, which the tree mirrors under the same
// path: resolved inside the root, each must read the mirror, never the
// secret. It returns the root and the secret's path.
func rootTree(t testing.TB) (root, secret string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "root")
	secret = filepath.Join(base, "outside", "secret")
	files := map[string]string{
		secret:                                   "SECRET of this machine",
		filepath.Join(root, secret):              "mirror inside the root",
		filepath.Join(root, "proc/4242/status"):  "Name:\\tapp\\n",
		filepath.Join(root, "usr/bin/app"):       "the target's binary",
		filepath.Join(root, "etc/passwd"):        "the target's passwd",
		filepath.Join(root, "sys/fs/cgroup/x/a"): "cgroup file",
	}
	for p, data := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"proc/self":         "4242",
		"proc/4242/exe":     "/usr/bin/app",
		"proc/4242/root":    "/",
		"abs":               secret,
		"dotdot":            "../../../../../../../../.." + secret,
		"dir/rel":           "../../..",
		"loop1":             "loop2",
		"loop2":             "loop1",
		"zero":              "/dev/zero",
		"cg":                "/sys/fs/cgroup/x",
		"proc/4242/fd/3":    "/proc/self/fd/3",
		"proc/4242/environ": "/proc/self/environ",
	}
	for name, target := range links {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return root, secret
}

// bothResolvers runs f with the kernel's resolution (where Linux has it)
// and with the walk.
func bothResolvers(t *testing.T, f func(t *testing.T)) {
	t.Run("default", f)
	if runtime.GOOS == "linux" {
		t.Run("walk", func(t *testing.T) {
			setNoOpenat2(t)
			f(t)
		})
	}
}

func TestOpenResolvesInRoot(t *testing.T) {
	root, secret := rootTree(t)
	bothResolvers(t, func(t *testing.T) {
		for _, c := range []struct {
			name string
			want string // contents; "" with err
			err  error
		}{
			{"/proc/self/status", "Name:\\tapp\\n", nil},
			{"proc/self/status", "Name:\\tapp\\n", nil},
			{"/proc/4242/exe", "the target's binary", nil},
			{"/proc/4242/root/etc/passwd", "the target's passwd", nil},
			{"/proc/self/root/proc/self/root" + secret, "mirror inside the root", nil},
			{"/abs", "mirror inside the root", nil},
			{"/dotdot", "mirror inside the root", nil},
			{"/../../../../etc/passwd", "the target's passwd", nil},
			{"/dir/rel/etc/passwd", "the target's passwd", nil},
			{"/cg/a", "cgroup file", nil},
			{"/cg/../../../etc/passwd", "the target's passwd", nil}, // ".." after a link: from the link's target
			{"/zero", "", fs.ErrNotExist},
			{"/proc/4242/fd/3", "", syscall.ELOOP}, // -> /proc/self/fd/3 = itself
			{"/proc/4242/environ", "", syscall.ELOOP},
			{"/loop1", "", syscall.ELOOP},
			{"/fifo", "", ErrNotRegular},
			{"/proc/self", "", ErrNotRegular},
			{"/usr/bin/app/x", "", syscall.ENOTDIR},
		} {
			start := time.Now()
			data, err := File(root, c.name, 0)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("%s: took %v", c.name, d)
			}
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Errorf("%s: err = %v, want %v", c.name, err, c.err)
				} else if !strings.Contains(err.Error(), filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(c.name, "/")))) && !strings.Contains(err.Error(), root) {
					t.Errorf("%s: err = %v does not name the file", c.name, err)
				}
				continue
			}
			if err != nil || string(data) != c.want {
				t.Errorf("%s: %q, %v; want %q", c.name, data, err, c.want)
			}
		}
		// Directories and Stat resolve the same way.
		d, err := OpenDir(root, "/cg")
		if err != nil {
			t.Fatalf("OpenDir /cg: %v", err)
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		if len(names) != 1 || names[0] != "a" {
			t.Errorf("OpenDir /cg lists %q, want [a]", names)
		}
		if _, err := OpenDir(root, "/proc/self/status"); err == nil {
			t.Error("OpenDir of a file: no error")
		}
		st, err := Stat(root, "/proc/self")
		if err != nil || !st.IsDir() {
			t.Errorf("Stat /proc/self = %v, %v; want the directory proc/4242", st, err)
		}
		if st, err := Stat(root, "/abs"); err != nil || st.Size() != int64(len("mirror inside the root")) {
			t.Errorf("Stat /abs = %v, %v; want the mirror", st, err)
		}
		if st, err := Stat(root, "/fifo"); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
			t.Errorf("Stat /fifo = %v, %v; want a FIFO", st, err)
		}
		if _, err := Stat(root, "/zero"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat /zero: err = %v, want not found", err)
		}
	})
	// And without a root, the same names are this machine's.
	if data, err := File("", secret, 0); err != nil || string(data) != "SECRET of this machine" {
		t.Errorf("no root: %q, %v", data, err)
	}
}

// TestOpenInRootNeverOutside: whatever the name, the file opened is never
// the secret the links point at: it is the mirror inside the root.
func TestOpenInRootNeverOutside(t *testing.T) {
	root, secret := rootTree(t)
	sec, err := os.Stat(secret)
	if err != nil {
		t.Fatal(err)
	}
	bothResolvers(t, func(t *testing.T) {
		for _, name := range []string{"/abs", "/dotdot", "abs", "../abs", "/proc/self/root/abs", "/proc/4242/root" + secret} {
			f, _, err := Open(root, name)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			st, _ := f.Stat()
			b, _ := io.ReadAll(f)
			f.Close()
			if os.SameFile(st, sec) || strings.Contains(string(b), "SECRET") {
				t.Errorf("%s: opened the secret outside the root", name)
			}
		}
	})
}

func setNoOpenat2(t testing.TB) {
	old := noOpenat2.Load()
	noOpenat2.Store(true)
	t.Cleanup(func() { noOpenat2.Store(old) })
}

// FuzzOpenInRoot: no name, however it mixes "..", links and slashes,
// opens a file outside the root, and the kernel's resolution and the walk
// agree on which file a name reaches.
func FuzzOpenInRoot(f *testing.F) {
	for _, s := range []string{"/proc/self/status", "/abs", "/dotdot", "../../abs", "/dir/rel/abs", "/cg/../../abs",
		"/proc/4242/root/proc/self/root/abs", "/loop1", "fifo", "//./proc//self/../self/status", `\..\abs`} {
		f.Add(s)
	}
	root, secret := rootTree(f)
	sec, err := os.Stat(secret)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name string) {
		open := func() (fs.FileInfo, bool) {
			fl, st, err := Open(root, name)
			if err != nil {
				return nil, false
			}
			fl.Close()
			if os.SameFile(st, sec) {
				t.Fatalf("%q opened the secret outside the root", name)
			}
			return st, true
		}
		st1, ok1 := open()
		if runtime.GOOS != "linux" {
			return
		}
		old := noOpenat2.Load()
		noOpenat2.Store(true)
		st2, ok2 := open()
		noOpenat2.Store(old)
		if ok1 != ok2 || ok1 && !os.SameFile(st1, st2) {
			t.Fatalf("%q: openat2 and the walk disagree (%v, %v)", name, ok1, ok2)
		}
	})
}
