package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/schedoctor/schedoctor/internal/safewrite"
)

// ManifestName is the file Save writes and Load reads in a check directory.
const ManifestName = "manifest.json"

// fileNames are the files of each kind in a saved directory: the names
// pprof users know, so the directory is useful without schedoctor too.
var fileNames = map[string]string{
	KindGoroutineStartProto: "goroutine-start.pb.gz",
	KindGoroutineEndProto:   "goroutine-end.pb.gz",
	KindGoroutineStart:      "goroutine-start.txt",
	KindProfile:             "profile.pb.gz",
	KindTrace:               "trace.out",
	KindMutex:               "mutex.pb.gz",
	KindBlock:               "block.pb.gz",
	KindLeak:                "goroutineleak.txt",
	KindGoroutineEnd:        "goroutine-end.txt",
	KindLive:                "live.json",
	KindLiveSnapshot:        "live-snapshot.trace",
}

const procsFile = "procs.json"

// manifest is the JSON of manifest.json.
type manifest struct {
	Set
	Saved     time.Time `json:"saved"`
	ProcsFile string    `json:"procs_file,omitempty"`
}

// Save writes every capture that holds data and manifest.json to dir,
// which Save creates (0700), or which must be an empty directory of this
// user that nobody else can write (safewrite.CreateNew): a directory
// another user prepared could hold links to files of ours, and one check
// never mixes with another's files.
func (s *Set) Save(dir string) error {
	d, err := safewrite.CreateNew(dir)
	if err != nil {
		return fmt.Errorf("saving the captures: %w", err)
	}
	defer d.Close()
	return s.SaveTo(d)
}

// SaveTo is Save into a directory already opened by safewrite.CreateNew
// (check opens it before capturing, so that a refused directory costs the
// target nothing). Every file is new, 0600, created relative to d without
// following links; manifest.json is written last, so a directory without
// it is an interrupted save.
func (s *Set) SaveTo(d *safewrite.Dir) error {
	for _, c := range s.Captures {
		c.File = ""
		if !c.OK() {
			continue
		}
		name := fileNames[c.Kind]
		if name == "" {
			return fmt.Errorf("saving the captures: unknown kind %q", c.Kind)
		}
		if err := d.WriteFile(name, c.Data); err != nil {
			return fmt.Errorf("saving the captures: %w", err)
		}
		c.File = name
	}
	m := manifest{Set: *s, Saved: time.Now().UTC()}
	if len(s.Procs) > 0 {
		if err := d.WriteFile(procsFile, s.Procs); err != nil {
			return fmt.Errorf("saving the captures: %w", err)
		}
		m.ProcsFile = procsFile
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("saving the manifest: %w", err)
	}
	if err := d.WriteFile(ManifestName, append(b, '\n')); err != nil {
		return fmt.Errorf("saving the manifest: %w", err)
	}
	return nil
}

// IsDir reports whether arg names a saved check directory.
func IsDir(arg string) bool {
	_, err := os.Stat(filepath.Join(arg, ManifestName))
	return err == nil
}

// Load reads a directory Save wrote. A capture file that is missing or
// too large becomes that capture's error; the rest is still returned.
func Load(dir string) (*Set, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
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
		c.Data, err = readCapped(filepath.Join(dir, c.File))
		if err != nil {
			c.Error = err.Error()
		}
	}
	s.Captures = compact(s.Captures)
	if m.ProcsFile == procsFile {
		if s.Procs, err = readCapped(filepath.Join(dir, procsFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
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

func readCapped(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > MaxBytes {
		return nil, fmt.Errorf("%s: %d bytes, larger than the limit of %d", path, st.Size(), MaxBytes)
	}
	return os.ReadFile(path)
}
