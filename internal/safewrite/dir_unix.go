//go:build unix

package safewrite

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// dirImpl holds the directory's descriptor: every call below is relative
// to it, so renaming or replacing the path after open changes nothing.
type dirImpl struct{ fd int }

// open opens path as a directory without following a symbolic link and
// checks the directory it got (fstat on the descriptor, not the name, so
// that what was checked is what is written to). fresh: CreateNew's rules;
// else OpenOwned's.
func open(path string, fresh bool) (*Dir, error) {
	if path == "" {
		return nil, errors.New("no directory named")
	}
	var err error
	if fresh {
		err = os.Mkdir(path, DirMode)
	} else {
		if parent := filepath.Dir(path); parent != path {
			if perr := os.MkdirAll(parent, DirMode); perr != nil {
				return nil, fmt.Errorf("creating %s: %w", parent, perr)
			}
		}
		err = os.Mkdir(path, DirMode)
	}
	created := err == nil
	if err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("creating %s: %w", path, err)
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return nil, fmt.Errorf("%s: %w: a symbolic link or not a directory", path, ErrUnsafe)
		}
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	d := &Dir{path: path, d: dirImpl{fd: fd}}
	if err := d.d.check(path, fresh && !created); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// check refuses a directory another user owns or that group or others can
// write (they could add links or swap files between our calls), and, when
// empty is set, one that holds anything.
func (d dirImpl) check(path string, empty bool) error {
	var st unix.Stat_t
	if err := unix.Fstat(d.fd, &st); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		return fmt.Errorf("%s: %w: owned by uid %d, not by this user (uid %d)", path, ErrUnsafe, st.Uid, uid)
	}
	if perm := os.FileMode(st.Mode) & os.ModePerm; perm&0o022 != 0 {
		return fmt.Errorf("%s: %w: mode %04o lets group or others write it (chmod go-w, or name a new directory)", path, ErrUnsafe, perm)
	}
	if empty {
		names, err := d.names()
		if err != nil {
			return fmt.Errorf("listing %s: %w", path, err)
		}
		if len(names) > 0 {
			return fmt.Errorf("%s: %w: not empty (%d entries, e.g. %q): name a new or empty directory", path, ErrUnsafe, len(names), names[0])
		}
	}
	return nil
}

func (d dirImpl) create(name string) (*os.File, error) {
	fd, err := unix.Openat(d.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(FileMode))
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

// open adds O_NONBLOCK so that a FIFO (refused after fstat) cannot block.
func (d dirImpl) open(name string) (*os.File, error) {
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

func (d dirImpl) rename(old, new string) error { return unix.Renameat(d.fd, old, d.fd, new) }

func (d dirImpl) remove(name string) error {
	err := unix.Unlinkat(d.fd, name, 0)
	if errors.Is(err, unix.ENOENT) {
		return os.ErrNotExist
	}
	return err
}

// names lists through a new descriptor of the same directory, so that
// listings do not share an offset.
func (d dirImpl) names() ([]string, error) {
	fd, err := unix.Openat(d.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), ".")
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err == io.EOF {
		err = nil
	}
	return names, err
}

var closedDir = dirImpl{fd: -1}

func (d dirImpl) close() error {
	if d.fd < 0 {
		return nil
	}
	return unix.Close(d.fd)
}
