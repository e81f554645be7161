package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/schedoctor/schedoctor/internal/sysread"
)

// ManifestName is the file Save writes and Load reads in a check directory.
const ManifestName = "manifest.json"

// fileNames are the files of each kind in a saved directory: the names
// pprof users know, so the directory is useful without schedoctor too.
var fileNames = map[string]string{
	KindGoroutineStart: "goroutine-start.txt",
	KindProfile:        "profile.pb.gz",
	KindTrace:          "trace.out",
	KindMutex:          "mutex.pb.gz",
	KindBlock:          "block.pb.gz",
	KindLeak:           "goroutineleak.txt",
	KindGoroutineEnd:   "goroutine-end.txt",
	KindLive:           "live.json",
	KindLiveSnapshot:   "live-snapshot.trace",
}

const procsFile = "procs.json"

// manifest is the JSON of manifest.json.
type manifest struct {
	Set
	Saved     time.Time `json:"saved"`
	ProcsFile string    `json:"procs_file,omitempty"`
}

// Save writes every capture that holds data and manifest.json to dir,
// which is created if needed; an existing manifest is not overwritten, so
// that one check never mixes with another's files.
func (s *Set) Save(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("saving the captures: %w", err)
	}
	mpath := filepath.Join(dir, ManifestName)
	if _, err := os.Stat(mpath); err == nil {
		return fmt.Errorf("saving the captures: %s exists: give an empty or new directory", mpath)
	}
	for _, c := range s.Captures {
		c.File = ""
		if !c.OK() {
			continue
		}
		name := fileNames[c.Kind]
		if name == "" {
			return fmt.Errorf("saving the captures: unknown kind %q", c.Kind)
		}
		if err := os.WriteFile(filepath.Join(dir, name), c.Data, 0o644); err != nil {
			return fmt.Errorf("saving the captures: %w", err)
		}
		c.File = name
	}
	m := manifest{Set: *s, Saved: time.Now().UTC()}
	if len(s.Procs) > 0 {
		if err := os.WriteFile(filepath.Join(dir, procsFile), s.Procs, 0o644); err != nil {
			return fmt.Errorf("saving the captures: %w", err)
		}
		m.ProcsFile = procsFile
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("saving the manifest: %w", err)
	}
	if err := os.WriteFile(mpath, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("saving the manifest: %w", err)
	}
	return nil
}

// IsDir reports whether arg names a saved check directory.
func IsDir(arg string) bool {
	_, err := sysread.Stat(arg, ManifestName)
	return err == nil
}

// Load reads a directory Save wrote. A capture file that is missing or
// too large becomes that capture's error; the rest is still returned.
func Load(dir string) (*Set, error) {
	b, err := readCapped(dir, ManifestName)
	if err != nil {
		return nil, fmt.Errorf("%s: not a saved check directory: %w", dir, err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestName), err)
	}
	s := m.Set
	for _, c := range s.Captures {
		if c == nil || c.File == "" {
			continue
		}
		// Only a plain name inside dir: a manifest never makes Load read elsewhere.
		if filepath.Base(c.File) != c.File || !filepath.IsLocal(c.File) {
			c.Error = fmt.Sprintf("manifest names %q, not a file of the directory", c.File)
			continue
		}
		c.Data, err = readCapped(dir, c.File)
		if err != nil {
			c.Error = err.Error()
		}
	}
	s.Captures = compact(s.Captures)
	if m.ProcsFile == procsFile {
		if s.Procs, err = readCapped(dir, procsFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return &s, nil
}

func compact(cs []*Capture) []*Capture {
	out := cs[:0]
	for _, c := range cs {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

// readCapped reads the file name of the saved directory dir: resolved
// inside dir (a link in it names a file of the directory, never one of
// this machine: sysread), a regular file only (a FIFO or a device is
// refused without blocking), at most MaxBytes.
func readCapped(dir, name string) ([]byte, error) {
	return sysread.File(dir, name, MaxBytes)
}
