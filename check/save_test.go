package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSaveLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chk")
	s := &Set{Target: "http://127.0.0.1:1", Start: time.Now(), Captures: []*Capture{
		{Kind: KindGoroutineStart, Endpoint: "e1", Data: []byte("goroutine 1 [running]:\n")},
		{Kind: KindProfile, Endpoint: "e2", Error: "e2: server answered 403"},
		{Kind: KindLeak, Endpoint: "e3", Absent: true},
	}, Procs: []byte(`{"summary":null}`)}
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(dir); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("second Save into the same directory: %v; want a refusal", err)
	}
	if !IsDir(dir) {
		t.Fatal("IsDir = false")
	}
	l, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(l.Get(KindGoroutineStart).Data); got != "goroutine 1 [running]:\n" {
		t.Errorf("data %q", got)
	}
	if l.Get(KindProfile).Error == "" || !l.Get(KindLeak).Absent || l.Captured() != 1 || string(l.Procs) != `{"summary":null}` {
		t.Errorf("loaded %+v", l)
	}
}

// TestSaveIntoPlantedDir (issue 19): a directory that someone else
// prepared, with links to a 0600 file where the capture files will go, is
// refused before anything is written; the file keeps its bytes and no file
// appears where a link points. Saved files are 0600 in a 0700 directory.
func TestSaveIntoPlantedDir(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	want := "root-only\n"
	if err := os.WriteFile(secret, []byte(want), 0o600); err != nil {
		t.Fatal(err)
	}
	absent := filepath.Join(t.TempDir(), "created-by-link")
	s := &Set{Target: "http://127.0.0.1:1", Captures: []*Capture{
		{Kind: KindGoroutineStart, Endpoint: "e1", Data: []byte("target's bytes")},
		{Kind: KindProfile, Endpoint: "e2", Data: []byte("target's profile")},
	}}
	for _, mode := range []os.FileMode{0o700, 0o777 | os.ModeSticky} {
		dir := filepath.Join(t.TempDir(), "planted")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Symlink(secret, filepath.Join(dir, fileNames[KindGoroutineStart]))
		os.Symlink(absent, filepath.Join(dir, fileNames[KindProfile]))
		os.Chmod(dir, mode)
		if err := s.Save(dir); err == nil {
			t.Errorf("mode %v: Save into a directory with planted links succeeded", mode)
		}
		if b, _ := os.ReadFile(secret); string(b) != want {
			t.Fatalf("mode %v: the linked file now holds %q", mode, b)
		}
		if _, err := os.Lstat(absent); err == nil {
			t.Fatalf("mode %v: a file was created where a link pointed", mode)
		}
	}
	// A world-writable empty directory (anyone could add links later) and
	// one that is a link are refused as well.
	ww := filepath.Join(t.TempDir(), "ww")
	os.Mkdir(ww, 0o700)
	os.Chmod(ww, 0o777)
	if err := s.Save(ww); err == nil {
		t.Error("Save into a world-writable directory succeeded")
	}
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(real, link)
	if err := s.Save(link); err == nil {
		t.Error("Save into a symbolic link to a directory succeeded")
	}

	dir := filepath.Join(t.TempDir(), "fresh")
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".", fileNames[KindGoroutineStart], fileNames[KindProfile], ManifestName} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		want := os.FileMode(0o600)
		if name == "." {
			want = 0o700
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s: mode %04o, want %04o", name, st.Mode().Perm(), want)
		}
	}
}

func TestLoadRefusesOutsideFiles(t *testing.T) {
	dir := t.TempDir()
	m := `{"target":"x","captures":[{"kind":"profile","file":"../../etc/passwd"}]}`
	if err := os.WriteFile(filepath.Join(dir, ManifestName), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c := l.Get(KindProfile); c.Data != nil || !strings.Contains(c.Error, "not a file of the directory") {
		t.Errorf("capture %+v", c)
	}
}
