//go:build unix

package sysread

import (
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// ReadlinkAt reads the target of the symlink name in the open directory
// dir (from OpenDir): relative to the descriptor, so that under a root the
// directory resolved inside it is the one read, not whatever its path
// names on this machine.
func ReadlinkAt(dir *os.File, name string) (string, error) {
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(int(dir.Fd()), name, buf)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: filepath.Join(dir.Name(), name), Err: err}
	}
	return string(buf[:n]), nil
}
