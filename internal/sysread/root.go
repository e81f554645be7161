package sysread

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
)

// A sysroot (procs -sysroot, host -sysroot) and a saved check directory are
// trees of untrusted files: their symlinks were written by whoever made
// the tree. Under a root, Open, OpenDir and Stat resolve every path inside
// it, as the kernel does for a process chrooted there: ".." at the root
// stays at the root, and a symlink's target, absolute or relative, is
// resolved again inside the root. So "/proc/4242/exe -> /usr/bin/app" in a
// fixture means ROOT/usr/bin/app, which is what the target saw, and
// "cpu.max -> /dev/zero" or "status -> /etc/shadow" names a file of the
// tree (usually missing), never one of this machine.
//
// Why "resolve in the root" and not "refuse what escapes" (os.Root,
// openat2's RESOLVE_BENEATH): a sysroot is a copy of another machine's
// view, whose absolute symlinks are meant relative to its own "/"; refusing
// them would make /proc/self (-> "4242") work but /proc/4242/root/...,
// /proc/4242/exe and the /sys/fs/cgroup links of real trees fail. Source
// trees (lint/inspect) are the opposite case: an absolute symlink in a
// checkout means this machine's file, and there the escape is refused.
//
// On Linux 5.6+ the kernel resolves (openat2 with RESOLVE_IN_ROOT and
// RESOLVE_NO_MAGICLINKS); elsewhere, or where openat2 is refused (old
// kernels, seccomp filters), a walk opens one component at a time relative
// to the directory before it with O_NOFOLLOW and resolves symlinks itself
// (walk_unix.go). Outside Unix there is no walk: os.Root refuses escapes
// instead (root_other.go). The one difference between the two: a procfs
// mounted inside the tree has magic links (/proc/PID/exe), which openat2
// refuses and the walk reads as the text readlink gives, resolved inside
// the root like any link.
//
// Without a root ("" or "/": the live system) paths are opened as given and
// symlinks followed: /proc/self and /proc/PID/exe must work there.

// maxLinks bounds the symlinks one resolution follows, as Linux's 40
// (MAXSYMLINKS): a loop of links ends with ELOOP.
const maxLinks = 40

// maxSteps bounds the path components one resolution walks, symlink
// expansions included: links that each expand to long paths cannot make a
// resolution long.
const maxSteps = 4096

// want is what a rooted open accepts.
type want int

const (
	wantRegular want = iota // a regular file, opened for reading
	wantDir                 // a directory, opened for reading its entries
	wantStat                // anything: only its FileInfo, nothing opened
)

// rooted reports whether root confines resolution.
func rooted(root string) bool { return root != "" && root != "/" }

// relName turns a path as the target sees it ("/proc/self/status",
// "manifest.json") into one relative to the root, cleaned lexically only
// where that cannot change its meaning: "." and empty elements go, ".."
// stays for the resolver (it is taken at the root's level, never above).
func relName(name string) string {
	var out []string
	for _, e := range strings.Split(strings.ReplaceAll(name, `\`, "/"), "/") {
		if e == "" || e == "." {
			continue
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		return "."
	}
	return path.Join(out...)
}

// openRooted opens name resolved inside root; the errors are
// *fs.PathError naming Path(root, name).
func openRooted(root, name string, w want) (*os.File, fs.FileInfo, error) {
	p := Path(root, name)
	f, st, err := openInRoot(root, relName(name), w)
	if err != nil {
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			pe.Path = p
			return nil, nil, pe
		}
		return nil, nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	switch {
	case w == wantRegular && !st.Mode().IsRegular():
		if f != nil {
			f.Close()
		}
		return nil, nil, notRegular(p, st.Mode())
	case w == wantDir && !st.IsDir():
		if f != nil {
			f.Close()
		}
		return nil, nil, &fs.PathError{Op: "open", Path: p, Err: errors.New("not a directory")}
	}
	return f, st, nil
}

// errChanged: the file resolved for the type check is not the one opened
// (the tree changed in between).
var errChanged = errors.New("changed while being opened")

// Stat returns the FileInfo of root+name, resolved inside root like Open
// (the live system's path as given, following symlinks, when root is "" or
// "/"). Nothing is opened for reading.
func Stat(root, name string) (fs.FileInfo, error) {
	if !rooted(root) {
		return os.Stat(Path(root, name))
	}
	_, st, err := openRooted(root, name, wantStat)
	return st, err
}

func wrongKind(w want, st fs.FileInfo) bool {
	switch w {
	case wantRegular:
		return !st.Mode().IsRegular()
	case wantDir:
		return !st.IsDir()
	}
	return false
}
