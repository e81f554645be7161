//go:build unix

package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLoadLinksStayInside: a saved directory is untrusted input (a bug
// report, a colleague's capture): a capture file or the manifest that is
// a symlink names a file of the directory, never one of this machine. On
// the old code the capture held the outside file and the manifest was
// read through the link.
func TestLoadLinksStayInside(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("goroutine 1 [SECRET of this machine]:\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "chk")
	s := &Set{Target: "http://127.0.0.1:1", Start: time.Now(), Captures: []*Capture{
		{Kind: KindGoroutineStart, Endpoint: "e1", Data: []byte("goroutine 1 [running]:\n")},
	}}
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	start := filepath.Join(dir, fileNames[KindGoroutineStart])
	os.Remove(start)
	if err := os.Symlink(secret, start); err != nil {
		t.Fatal(err)
	}
	l, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c := l.Get(KindGoroutineStart); strings.Contains(string(c.Data), "SECRET") || c.Error == "" {
		t.Errorf("capture through a link out of the directory: data %q, error %q; want not found", c.Data, c.Error)
	}

	// A manifest linked out of the directory: the directory's own copy
	// of that path is what a link names, and it has none.
	man := filepath.Join(outside, ManifestName)
	if err := os.Rename(filepath.Join(dir, ManifestName), man); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(man, filepath.Join(dir, ManifestName)); err != nil {
		t.Fatal(err)
	}
	if IsDir(dir) {
		t.Error("IsDir: a manifest linked out of the directory counts")
	}
	if _, err := Load(dir); err == nil {
		t.Error("Load read a manifest through a link out of the directory")
	}

	// A FIFO as a capture is refused at once.
	if err := os.Rename(man, filepath.Join(dir, ManifestName)); err != nil {
		t.Fatal(err)
	}
	os.Remove(start)
	if err := mkfifo(start); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan *Set, 1)
	go func() { l, _ := Load(dir); done <- l }()
	select {
	case l := <-done:
		if c := l.Get(KindGoroutineStart); c.Error == "" || !strings.Contains(c.Error, "FIFO") {
			t.Errorf("FIFO capture: error %q, want it named as a FIFO", c.Error)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Load blocked on a FIFO for 20s")
	}
}
