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
	if err := s.Save(dir); err == nil || !strings.Contains(err.Error(), "exists") {
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
