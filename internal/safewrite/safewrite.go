// Package safewrite is the one way schedoctor writes files (issue 19,
// "one rule for what may be written").
//
// A directory of captures or snapshots is opened once, as a file
// descriptor, after checking that it is a real directory (not a symbolic
// link) that this user owns and nobody else can write; every file is then
// created relative to that descriptor with O_CREAT|O_EXCL|O_NOFOLLOW, mode
// 0600, so that neither a link planted in the directory nor a parent
// swapped after the check redirects a write. New directories are 0700.
//
// A file the user names on the command line (-html FILE, -o FILE) is
// written to a new temporary file beside it and renamed over it: a
// symbolic link at FILE is replaced, never followed, and FILE ends 0600.
//
// On systems without openat (not unix), the same calls go through os.Root,
// which keeps every name inside the directory; ownership is not checked
// there.
package safewrite

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Modes of everything written: only the user reads what was captured from
// a service (stacks hold arguments, labels and paths).
const (
	DirMode  os.FileMode = 0o700
	FileMode os.FileMode = 0o600
)

// ErrUnsafe is wrapped by the errors that refuse a directory: a symbolic
// link, not a directory, another owner, writable by others, not empty.
var ErrUnsafe = errors.New("unsafe directory")

// Dir is a directory held open for writing files relative to it. Its
// methods take plain names (no separator, not "." or ".."). A Dir is not
// safe for concurrent Close with other calls; the others may run at once.
type Dir struct {
	path string
	d    dirImpl
}

// Path is the directory's name as given.
func (d *Dir) Path() string { return d.path }

// CreateNew makes path a new directory, 0700, and opens it. An existing
// path is accepted only when it is an empty directory, not a symbolic
// link, owned by this user and not writable by group or others: a
// directory that someone else prepared could hold links, or be changed
// under the writer. The parent must exist.
func CreateNew(path string) (*Dir, error) {
	return open(path, true)
}

// OpenOwned opens the directory path for a writer that keeps files there
// across runs (the live monitor's snapshots), creating it (and its
// parents) 0700 when missing. It must not be a symbolic link, and must be
// owned by this user and not writable by group or others; it need not be
// empty.
func OpenOwned(path string) (*Dir, error) {
	return open(path, false)
}

// checkName refuses a name that is not one plain entry of the directory.
func checkName(name string) error {
	if name == "" || filepath.Base(name) != name || !filepath.IsLocal(name) {
		return fmt.Errorf("%q is not a plain file name", name)
	}
	return nil
}

// WriteFile writes data to the new file name in d (0600); a file, link or
// anything else already named so is an error, never overwritten or followed.
func (d *Dir) WriteFile(name string, data []byte) error {
	f, err := d.Create(name)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		d.Remove(name)
		return fmt.Errorf("writing %s: %w", filepath.Join(d.path, name), err)
	}
	return nil
}

// Create creates the new file name in d, 0600, for writing; like
// WriteFile, it never opens an existing name.
func (d *Dir) Create(name string) (*os.File, error) {
	if err := checkName(name); err != nil {
		return nil, fmt.Errorf("creating in %s: %w", d.path, err)
	}
	f, err := d.d.create(name)
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", filepath.Join(d.path, name), err)
	}
	return f, nil
}

// Open opens name in d for reading, without following a symbolic link,
// and only if it is a regular file.
func (d *Dir) Open(name string) (*os.File, error) {
	if err := checkName(name); err != nil {
		return nil, fmt.Errorf("opening in %s: %w", d.path, err)
	}
	f, err := d.d.open(name)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", filepath.Join(d.path, name), err)
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file (%s)", st.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("opening %s: %w", filepath.Join(d.path, name), err)
	}
	return f, nil
}

// Rename renames old to new inside d (replacing new).
func (d *Dir) Rename(old, new string) error {
	if err := errors.Join(checkName(old), checkName(new)); err != nil {
		return fmt.Errorf("renaming in %s: %w", d.path, err)
	}
	if err := d.d.rename(old, new); err != nil {
		return fmt.Errorf("renaming %s to %s in %s: %w", old, new, d.path, err)
	}
	return nil
}

// Remove removes the entry name of d (a link itself, not its target).
func (d *Dir) Remove(name string) error {
	if err := checkName(name); err != nil {
		return fmt.Errorf("removing in %s: %w", d.path, err)
	}
	if err := d.d.remove(name); err != nil {
		return fmt.Errorf("removing %s: %w", filepath.Join(d.path, name), err)
	}
	return nil
}

// Names lists the names of d's entries, in directory order. (Names, not
// os.DirEntry: an entry's Info would stat by path, outside the descriptor;
// Open a name to learn its size.)
func (d *Dir) Names() ([]string, error) {
	names, err := d.d.names()
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", d.path, err)
	}
	return names, nil
}

// Close releases the directory; later calls fail. Close is idempotent.
func (d *Dir) Close() error {
	err := d.d.close()
	d.d = closedDir
	return err
}

// ReplaceFile writes the file the user named at path: write fills a new
// temporary file (0600) in path's directory, which is then renamed over
// path, so a failed write leaves the old file, and a symbolic link at path
// is replaced rather than followed (in a sticky directory such as /tmp,
// one that another user owns cannot be replaced: that is an error).
func ReplaceFile(path string, write func(io.Writer) error) error {
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() && st.Mode()&os.ModeSymlink == 0 {
		return fmt.Errorf("writing %s: not a regular file (%s)", path, st.Mode().Type())
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	err = write(tmp)
	// CreateTemp makes 0600 already; say so here, where the rule is.
	err = errors.Join(err, tmp.Chmod(FileMode), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
