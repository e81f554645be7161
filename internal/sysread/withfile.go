package sysread

import "os"

// WithFile opens the named file as Open does (no root: a FIFO or a device
// is refused before it can block) and hands it to read, closing it after.
// It is the file convenience of every source: a source's ReadFile is
// WithFile around its Read.
func WithFile[T any](name string, read func(f *os.File) (T, error)) (T, error) {
	f, _, err := Open("", name)
	if err != nil {
		var zero T
		return zero, err // *PathError names the file
	}
	defer f.Close()
	return read(f)
}
