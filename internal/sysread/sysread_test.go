package sysread

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFileRegular(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "proc/self/status", "Name:\tx\n")
	got, err := File(dir, "/proc/self/status", 100)
	if err != nil || string(got) != "Name:\tx\n" {
		t.Fatalf("File = %q, %v", got, err)
	}
	// Exactly the cap is allowed; one byte more is refused, naming the file.
	if _, err := File(dir, "/proc/self/status", 8); err != nil {
		t.Fatalf("file of exactly the cap: %v", err)
	}
	_, err = File(dir, "/proc/self/status", 7)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "status") || !strings.Contains(err.Error(), "7 bytes") {
		t.Fatalf("over the cap: %v", err)
	}
	data, trunc, err := Prefix(dir, "/proc/self/status", 4)
	if err != nil || !trunc || string(data) != "Name" {
		t.Fatalf("Prefix = %q, %v, %v", data, trunc, err)
	}
	data, trunc, err = Prefix(dir, "/proc/self/status", 0)
	if err != nil || trunc || len(data) != 8 {
		t.Fatalf("Prefix with default cap = %q, %v, %v", data, trunc, err)
	}
}

func TestFileMissing(t *testing.T) {
	_, err := File(t.TempDir(), "/proc/1/status", 0)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

// TestProcfs reads a real procfs file, which stat calls empty: the cap, not
// the size, must bound the read.
func TestProcfs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("procfs is Linux")
	}
	data, err := File("/", "/proc/self/status", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("Name:")) {
		t.Fatalf("status without Name: %q", data)
	}
	if _, err := File("", "/proc/self/status", 16); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("status over a 16-byte cap: %v", err)
	}
}

func TestReader(t *testing.T) {
	data, trunc, err := Reader(strings.NewReader("abcdef"), "stdin", 3)
	if err != nil || !trunc || string(data) != "abc" {
		t.Fatalf("Reader = %q, %v, %v", data, trunc, err)
	}
	data, trunc, err = Reader(strings.NewReader(strings.Repeat("x", 200_000)), "stdin", 300_000)
	if err != nil || trunc || len(data) != 200_000 {
		t.Fatalf("Reader of a long stream = %d, %v, %v", len(data), trunc, err)
	}
}

func TestPath(t *testing.T) {
	if got := Path("/", "/proc/1/stat"); got != filepath.FromSlash("/proc/1/stat") {
		t.Errorf("Path(/) = %s", got)
	}
	if got := Path("/tmp/root", "/proc/1/stat"); got != filepath.Join("/tmp/root", "proc", "1", "stat") {
		t.Errorf("Path(/tmp/root) = %s", got)
	}
}

func TestGunzip(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(bytes.Repeat([]byte("abc"), 1000))
	zw.Close()
	got, err := Gunzip(z.Bytes(), 3000)
	if err != nil || len(got) != 3000 || cap(got) != 3000 {
		t.Fatalf("Gunzip = %d bytes (cap %d), %v", len(got), cap(got), err)
	}
	if _, err := Gunzip(z.Bytes(), 2999); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the cap: %v", err)
	}
	if _, err := Gunzip(z.Bytes()[:z.Len()-5], 0); err == nil {
		t.Errorf("cut gzip: no error")
	}
	if _, err := Gunzip([]byte("plain"), 0); err == nil {
		t.Errorf("not gzip: no error")
	}
}

func TestReaderFileHint(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, bytes.Repeat([]byte("x"), 100_000), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, trunc, err := Reader(f, p, 1<<20)
	if err != nil || trunc || len(data) != 100_000 || cap(data) > 100_001 {
		t.Errorf("Reader = %d bytes (cap %d), %v, %v", len(data), cap(data), trunc, err)
	}
}
