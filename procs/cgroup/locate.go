package cgroup

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// ErrNoCgroup means the process is in no hierarchy that has the controller.
var ErrNoCgroup = errors.New("not in a cgroup with this controller")

// Dir is where a process's cgroup for one controller lives.
type Dir struct {
	Version    int    // 1 or 2
	MountPoint string // where the hierarchy is mounted: /sys/fs/cgroup or /sys/fs/cgroup/cpu,cpuacct
	Rel        string // the cgroup below the mount point: "" for the mount's root, or "/kubepods/pod1/ctr"
}

// Leaf is the directory of the process's own cgroup.
func (d Dir) Leaf() string { return d.MountPoint + d.Rel }

// Levels lists the cgroup directories from the leaf up to the mount point,
// which is the highest ancestor the process can see.
func (d Dir) Levels() []string {
	var out []string
	rel := d.Rel
	for {
		out = append(out, d.MountPoint+rel)
		if rel == "" || rel == "/" {
			return out
		}
		rel = path.Dir(rel)
		if rel == "/" {
			rel = ""
		}
	}
}

// Locate finds the cgroup of the process for controller ("cpu", "memory",
// "cpuset") the way the Go runtime does for "cpu": a v1 hierarchy that has
// the controller takes precedence (a controller cannot be bound to both); otherwise
// the v2 hierarchy (line "0::PATH"). The mount is the first of the right type
// whose root is a path prefix of the cgroup path; a path outside the mount
// (the reader's cgroup namespace shows "/..") is not reachable.
func Locate(mounts []Mount, entries []Entry, controller string) (Dir, error) {
	var v2 *Entry
	for i, e := range entries {
		if e.Hierarchy == 0 {
			v2 = &entries[i]
			continue
		}
		if slices.Contains(e.Controllers, controller) {
			return find(mounts, e.Path, 1, func(m Mount) bool {
				return m.FSType == "cgroup" && slices.Contains(m.SuperOptions, controller)
			}, controller)
		}
	}
	if v2 == nil {
		return Dir{}, ErrNoCgroup
	}
	return find(mounts, v2.Path, 2, func(m Mount) bool { return m.FSType == "cgroup2" }, controller)
}

func find(mounts []Mount, cgPath string, version int, match func(Mount) bool, controller string) (Dir, error) {
	for _, m := range mounts {
		if !match(m) || !hasPathPrefix(cgPath, m.Root) {
			continue
		}
		rel := cgPath
		if m.Root != "/" {
			rel = cgPath[len(m.Root):]
		}
		if rel == "/" {
			rel = ""
		}
		if rel == "/.." || strings.HasPrefix(rel, "/../") {
			continue
		}
		return Dir{Version: version, MountPoint: m.MountPoint, Rel: rel}, nil
	}
	kind := "cgroup2"
	if version == 1 {
		kind = "cgroup (v1) with the " + controller + " controller"
	}
	return Dir{}, fmt.Errorf("no %s mount in mountinfo reaches cgroup %s", kind, cgPath)
}

// hasPathPrefix reports whether prefix is p or one of its ancestors.
func hasPathPrefix(p, prefix string) bool {
	if prefix == "/" {
		return true
	}
	return p == prefix || strings.HasPrefix(p, prefix+"/")
}
