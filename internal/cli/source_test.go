package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSourceOrigin: the same profile, naming a file of GOROOT (where a
// build on this machine records the standard library), is read in the
// source when it is a local file and not when it was fetched from a URL:
// a remote target's recorded paths are never opened as recorded (the old
// code read both).
func TestSourceOrigin(t *testing.T) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skip(err)
	}
	file := filepath.Join(strings.TrimSpace(string(out)), "src", "sync", "mutex.go")
	if _, err := os.Stat(file); err != nil {
		t.Skip(err)
	}
	var buf bytes.Buffer
	if err := readsProfile([]string{file}).Write(&buf); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(t.TempDir(), "cpu.pb.gz")
	if err := os.WriteFile(local, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(buf.Bytes()) }))
	defer srv.Close()

	_, stdout, stderr := run(t, "", "profile", local)
	if !strings.Contains(stdout, "source: read 1 of 1 file") {
		t.Errorf("local file: the GOROOT file was not read:\n%s\n%s", stdout, stderr)
	}
	_, stdout, stderr = run(t, "", "profile", "-seconds", "1", srv.URL+"/debug/pprof/profile")
	if !strings.Contains(stdout, "source: none of the 1 file(s)") {
		t.Errorf("URL: the recorded path was read:\n%s\n%s", stdout, stderr)
	}
}
