//go:build !unix

package sysread

import (
	"io/fs"
	"os"
)

// openInRoot outside Unix: os.Root resolves inside root and refuses what
// would escape it (an absolute symlink, ".." above the root) rather than
// resolving it in the root; a sysroot's absolute links then fail, which
// is the safe side.
func openInRoot(root, rel string, w want) (*os.File, fs.FileInfo, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	st, err := r.Stat(rel)
	if err != nil {
		return nil, nil, err
	}
	if w == wantStat || wrongKind(w, st) {
		return nil, st, nil
	}
	f, err := r.Open(rel)
	if err != nil {
		return nil, nil, err
	}
	st2, err := f.Stat()
	if err != nil || !os.SameFile(st, st2) {
		f.Close()
		if err == nil {
			err = &fs.PathError{Op: "open", Path: rel, Err: errChanged}
		}
		return nil, nil, err
	}
	return f, st2, nil
}
