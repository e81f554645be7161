//go:build unix && !linux

package sysread

import (
	"io/fs"
	"os"
)

// openInRoot on Unix systems without openat2: the walk.
func openInRoot(root, rel string, w want) (*os.File, fs.FileInfo, error) {
	return walkInRoot(root, rel, w)
}
