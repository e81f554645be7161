//go:build unix

package safewrite

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// secret is a 0600 file outside the directories under test: a planted
// link points at it, and it must never change.
func secret(t *testing.T) (string, []byte) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret")
	want := []byte("root-only secret\n")
	if err := os.WriteFile(p, want, 0o600); err != nil {
		t.Fatal(err)
	}
	return p, want
}

func unchanged(t *testing.T, p string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s was overwritten: %q", p, got)
	}
}

func mode(t *testing.T, p string) os.FileMode {
	t.Helper()
	st, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

func TestCreateNewModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "save")
	d, err := CreateNew(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.WriteFile("a.txt", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, dir); m != 0o700 {
		t.Errorf("directory mode %04o, want 0700", m)
	}
	if m := mode(t, filepath.Join(dir, "a.txt")); m != 0o600 {
		t.Errorf("file mode %04o, want 0600", m)
	}
	// A second write of the same name is refused, not an overwrite.
	if err := d.WriteFile("a.txt", []byte("y")); !errors.Is(err, os.ErrExist) {
		t.Errorf("second write: %v, want exists", err)
	}
	for _, bad := range []string{"", ".", "..", "../x", "a/b", "/etc/passwd"} {
		if err := d.WriteFile(bad, nil); err == nil {
			t.Errorf("WriteFile(%q) accepted", bad)
		}
	}
}

// TestCreateNewRefuses: what another user could have prepared is refused
// before anything is written.
func TestCreateNewRefuses(t *testing.T) {
	sec, want := secret(t)
	base := t.TempDir()

	planted := filepath.Join(base, "planted")
	os.Mkdir(planted, 0o700)
	os.Symlink(sec, filepath.Join(planted, "manifest.json"))

	worldw := filepath.Join(base, "worldw")
	os.Mkdir(worldw, 0o700)
	os.Chmod(worldw, 0o777)

	groupw := filepath.Join(base, "groupw")
	os.Mkdir(groupw, 0o700)
	os.Chmod(groupw, 0o770)

	target := filepath.Join(base, "target")
	os.Mkdir(target, 0o700)
	link := filepath.Join(base, "link")
	os.Symlink(target, link)

	file := filepath.Join(base, "file")
	os.WriteFile(file, nil, 0o600)

	for name, p := range map[string]string{"planted link": planted, "world-writable": worldw,
		"group-writable": groupw, "symlink": link, "file": file} {
		d, err := CreateNew(p)
		if err == nil {
			d.Close()
			t.Errorf("%s: accepted", name)
			continue
		}
		if name != "file" && !errors.Is(err, ErrUnsafe) {
			t.Errorf("%s: %v, want ErrUnsafe", name, err)
		}
	}
	unchanged(t, sec, want)

	// An existing empty directory of this user, not writable by others, is fine.
	empty := filepath.Join(base, "empty")
	os.Mkdir(empty, 0o755)
	d, err := CreateNew(empty)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
}

// TestOtherOwner: a directory another user created is refused (needs root
// to make one; otherwise "/" stands for it).
func TestOtherOwner(t *testing.T) {
	p := "/"
	if os.Geteuid() == 0 {
		p = filepath.Join(t.TempDir(), "theirs")
		os.Mkdir(p, 0o700)
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Skip(err)
		}
	}
	for _, open := range []func(string) (*Dir, error){OpenOwned, CreateNew} {
		if d, err := open(p); err == nil {
			d.Close()
			t.Errorf("%s, owned by another user: accepted", p)
		} else if p != "/" && !errors.Is(err, ErrUnsafe) {
			t.Errorf("%s: %v, want ErrUnsafe", p, err)
		}
	}
}

// TestSwappedParent: once open, the directory is written through its
// descriptor, so replacing its path by a link elsewhere changes nothing.
func TestSwappedParent(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "d")
	d, err := OpenOwned(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	elsewhere := filepath.Join(base, "elsewhere")
	os.Mkdir(elsewhere, 0o700)
	if err := os.Rename(dir, filepath.Join(base, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, dir); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteFile("x", []byte("data")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "x")); err == nil {
		t.Error("the write followed the swapped path")
	}
	if _, err := os.Stat(filepath.Join(base, "moved", "x")); err != nil {
		t.Errorf("the write did not land in the directory that was opened: %v", err)
	}
}

// TestLinkInsideOwnedDir: a link already inside an owned directory (left
// by anything) is neither written through nor read through.
func TestLinkInsideOwnedDir(t *testing.T) {
	sec, want := secret(t)
	dir := filepath.Join(t.TempDir(), "live")
	d, err := OpenOwned(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	os.Symlink(sec, filepath.Join(dir, "snap.trace"))
	if err := d.WriteFile("snap.trace", []byte("overwrite")); err == nil {
		t.Error("wrote through a link")
	}
	if f, err := d.Open("snap.trace"); err == nil {
		f.Close()
		t.Error("opened a link for reading")
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if f, err := d.Open("fifo"); err == nil {
		f.Close()
		t.Error("opened a FIFO")
	}
	unchanged(t, sec, want)
	if err := d.Rename("snap.trace", "other"); err != nil {
		t.Fatal(err)
	}
	if err := d.Remove("other"); err != nil {
		t.Fatal(err)
	}
	unchanged(t, sec, want)
	names, err := d.Names()
	if err != nil || len(names) != 1 || names[0] != "fifo" {
		t.Errorf("Names() = %q, %v; want [fifo]", names, err)
	}
}

func TestOpenOwnedRefusesWorldWritable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "live")
	os.Mkdir(dir, 0o700)
	os.Chmod(dir, 0o1777)
	if d, err := OpenOwned(dir); !errors.Is(err, ErrUnsafe) {
		if d != nil {
			d.Close()
		}
		t.Errorf("world-writable: %v, want ErrUnsafe", err)
	}
}

// TestReplaceFile: a link at the named file is replaced, not followed.
func TestReplaceFile(t *testing.T) {
	sec, want := secret(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.html")
	os.Symlink(sec, out)
	if err := ReplaceFile(out, func(w io.Writer) error { _, err := w.Write([]byte("report")); return err }); err != nil {
		t.Fatal(err)
	}
	unchanged(t, sec, want)
	if b, _ := os.ReadFile(out); string(b) != "report" {
		t.Errorf("out.html holds %q", b)
	}
	if m := mode(t, out); m != 0o600 {
		t.Errorf("mode %04o, want 0600", m)
	}
	// A failed write leaves the old file.
	if err := ReplaceFile(out, func(io.Writer) error { return errors.New("boom") }); err == nil {
		t.Error("a failed write succeeded")
	}
	if b, _ := os.ReadFile(out); string(b) != "report" {
		t.Errorf("after a failed write, out.html holds %q", b)
	}
	if err := ReplaceFile(dir, func(io.Writer) error { return nil }); err == nil {
		t.Error("replaced a directory")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}
