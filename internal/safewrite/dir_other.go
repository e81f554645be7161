//go:build !unix

package safewrite

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// dirImpl keeps every name inside the directory through os.Root. There is
// no owner to compare here (Windows ACLs); the symbolic-link and emptiness
// rules still hold.
type dirImpl struct{ r *os.Root }

var closedDir = dirImpl{}

func open(path string, fresh bool) (*Dir, error) {
	if path == "" {
		return nil, errors.New("no directory named")
	}
	if !fresh {
		if parent := filepath.Dir(path); parent != path {
			if err := os.MkdirAll(parent, DirMode); err != nil {
				return nil, fmt.Errorf("creating %s: %w", parent, err)
			}
		}
	}
	err := os.Mkdir(path, DirMode)
	created := err == nil
	if err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("creating %s: %w", path, err)
	}
	st, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: %w: a symbolic link or not a directory", path, ErrUnsafe)
	}
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	d := &Dir{path: path, d: dirImpl{r: r}}
	if fresh && !created {
		names, err := d.d.names()
		if err == nil && len(names) > 0 {
			err = fmt.Errorf("%s: %w: not empty (%d entries, e.g. %q): name a new or empty directory", path, ErrUnsafe, len(names), names[0])
		}
		if err != nil {
			d.Close()
			return nil, err
		}
	}
	return d, nil
}

func (d dirImpl) root() (*os.Root, error) {
	if d.r == nil {
		return nil, os.ErrClosed
	}
	return d.r, nil
}

func (d dirImpl) create(name string) (*os.File, error) {
	r, err := d.root()
	if err != nil {
		return nil, err
	}
	return r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, FileMode)
}

func (d dirImpl) open(name string) (*os.File, error) {
	r, err := d.root()
	if err != nil {
		return nil, err
	}
	if st, err := r.Lstat(name); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", st.Mode().Type())
	}
	return r.Open(name)
}

func (d dirImpl) rename(old, new string) error {
	r, err := d.root()
	if err != nil {
		return err
	}
	return r.Rename(old, new)
}

func (d dirImpl) remove(name string) error {
	r, err := d.root()
	if err != nil {
		return err
	}
	return r.Remove(name)
}

func (d dirImpl) names() ([]string, error) {
	r, err := d.root()
	if err != nil {
		return nil, err
	}
	f, err := r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err == io.EOF {
		err = nil
	}
	return names, err
}

func (d dirImpl) close() error {
	if d.r == nil {
		return nil
	}
	return d.r.Close()
}
