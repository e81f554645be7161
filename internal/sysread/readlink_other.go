//go:build !unix

package sysread

import (
	"os"
	"path/filepath"
)

// ReadlinkAt reads the target of the symlink name in the directory dir.
func ReadlinkAt(dir *os.File, name string) (string, error) {
	return os.Readlink(filepath.Join(dir.Name(), name))
}
