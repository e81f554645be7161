package procs

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated fixture binaries")

// The fixture trees (testdata/fixtures, made by testdata/mkfixtures.sh) carry
// /proc/4242/exe files that are tiny ELF executables holding only a Go
// build-information blob, in the layout debug/buildinfo reads (a
// "\xff Go buildinf:" header with inline strings, Go 1.18+). They let the
// goldens name any Go version without checking in real binaries.
var fixtureBinaries = map[string]fakeBinary{
	"bare-host":       {goVersion: "go1.26.8", main: "example.com/api"},
	"v1-quota":        {goVersion: "go1.26.8", main: "example.com/server", godebug: "containermaxprocs=0,cryptocustomrand=1,decoratemappings=0,tlssecpmlkem=0,tlssha1=1,updatemaxprocs=0,urlstrictcolons=0,x509sha256skid=0"},
	"v2-quota":        {goVersion: "go1.26.8", main: "example.com/server"},
	"v2-nested":       {goVersion: "go1.26.8", main: "example.com/worker"},
	"cpuset-only":     {goVersion: "go1.22.12", main: "example.com/ingest"},
	"no-limit":        {goVersion: "go1.25.4", main: "example.com/api"},
	"throttled":       {goVersion: "go1.24.6", main: "example.com/checkout", deps: []*debug.Module{{Path: "go.uber.org/automaxprocs", Version: "v1.6.0", Sum: "h1:O3y2/QNTOdbF+e/dpXNNW7Rx2hZ4sTIPyybbxyNqTUs="}}},
	"hybrid":          {goVersion: "go1.25.3", main: "example.com/sandbox"},
	"no-cgroup-mount": {goVersion: "go1.26.8", main: "example.com/batch"},
	"host-pressure":   {goVersion: "go1.26.8", main: "example.com/broker"},
	"own-pressure":    {goVersion: "go1.26.8", main: "example.com/matcher"},
}

type fakeBinary struct {
	goVersion, main, godebug string
	deps                     []*debug.Module
}

// elf builds the executable.
func (fb fakeBinary) elf() []byte {
	bi := debug.BuildInfo{GoVersion: fb.goVersion, Path: fb.main, Main: debug.Module{Path: fb.main, Version: "(devel)"}, Deps: fb.deps}
	bi.Settings = append(bi.Settings, debug.BuildSetting{Key: "-buildmode", Value: "exe"}, debug.BuildSetting{Key: "-compiler", Value: "gc"})
	if fb.godebug != "" {
		bi.Settings = append(bi.Settings, debug.BuildSetting{Key: "DefaultGODEBUG", Value: fb.godebug})
	}
	bi.Settings = append(bi.Settings, debug.BuildSetting{Key: "GOARCH", Value: "amd64"}, debug.BuildSetting{Key: "GOOS", Value: "linux"})
	// The linker wraps modinfo in 16-byte sentinels (cmd/go/internal/modload).
	start, _ := hex.DecodeString("3077af0c9274080241e1c107e6d618e6")
	end, _ := hex.DecodeString("f932433186182072008242104116d8f2")
	mod := string(start) + bi.String() + string(end)

	var blob bytes.Buffer
	blob.WriteString("\xff Go buildinf:")
	blob.WriteByte(8)   // pointer size
	blob.WriteByte(0x2) // flags: little endian, inline strings
	blob.Write(make([]byte, 32-blob.Len()))
	for _, s := range []string{fb.goVersion, mod} {
		blob.Write(binary.AppendUvarint(nil, uint64(len(s))))
		blob.WriteString(s)
	}

	const dataOff, vaddr = 128, 0x500000 + 128
	var out bytes.Buffer
	le := binary.LittleEndian
	hdr := make([]byte, 64)
	copy(hdr, "\x7fELF\x02\x01\x01")
	le.PutUint16(hdr[16:], 2)     // ET_EXEC
	le.PutUint16(hdr[18:], 62)    // EM_X86_64
	le.PutUint32(hdr[20:], 1)     // EV_CURRENT
	le.PutUint64(hdr[24:], vaddr) // entry
	le.PutUint64(hdr[32:], 64)    // program headers right after
	le.PutUint16(hdr[52:], 64)    // ELF header size
	le.PutUint16(hdr[54:], 56)    // program header size
	le.PutUint16(hdr[56:], 1)     // one program header
	le.PutUint16(hdr[58:], 64)    // section header size (none present)
	out.Write(hdr)
	ph := make([]byte, 56)
	le.PutUint32(ph[0:], 1)                   // PT_LOAD
	le.PutUint32(ph[4:], 6)                   // PF_R|PF_W: a data segment
	le.PutUint64(ph[8:], dataOff)             // offset
	le.PutUint64(ph[16:], vaddr)              // vaddr
	le.PutUint64(ph[24:], vaddr)              // paddr
	le.PutUint64(ph[32:], uint64(blob.Len())) // filesz
	le.PutUint64(ph[40:], uint64(blob.Len())) // memsz
	le.PutUint64(ph[48:], 16)                 // align
	out.Write(ph)
	out.Write(make([]byte, dataOff-out.Len()))
	out.Write(blob.Bytes())
	return out.Bytes()
}

// TestFixtureBinaries keeps the checked-in exe files equal to what the table
// above generates; -update rewrites them.
func TestFixtureBinaries(t *testing.T) {
	for name, fb := range fixtureBinaries {
		path := filepath.Join("testdata", "fixtures", name, "proc", "4242", "exe")
		want := fb.elf()
		if *update {
			if err := os.WriteFile(path, want, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -run TestFixtureBinaries -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from its generator (run go test -run TestFixtureBinaries -update)", path)
		}
	}
}
