package gobin

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestMinor(t *testing.T) {
	for in, want := range map[string]int{
		"go1.24.3": 24, "go1.25rc1": 25, "devel go1.26-abcdef Tue": 26, "go1.9": 9,
		"go1.26.8 X:boringcrypto": 26, "gccgo": 0, "": 0,
	} {
		if got := Minor(in); got != want {
			t.Errorf("Minor(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestSetting(t *testing.T) {
	if v, ok := Setting("containermaxprocs=0,updatemaxprocs=0,containermaxprocs=1", "containermaxprocs"); !ok || v != "1" {
		t.Errorf("last one wins: got %q, %v", v, ok)
	}
	if _, ok := Setting("xcontainermaxprocs=0", "containermaxprocs"); ok {
		t.Error("a longer key must not match")
	}
}

// TestInferGoLine uses DefaultGODEBUG values recorded by go1.26.8 for
// modules at go 1.24, 1.21, 1.26 and 1.20 (go version -m on real builds).
func TestInferGoLine(t *testing.T) {
	for _, tc := range []struct {
		toolchain int
		defaults  string
		want      GoLine
		str       string
	}{
		{26, "containermaxprocs=0,cryptocustomrand=1,decoratemappings=0,tlssecpmlkem=0,tlssha1=1,updatemaxprocs=0,urlstrictcolons=0,x509sha256skid=0",
			GoLine{true, 24, 24}, "1.24"},
		{26, "asynctimerchan=1,containermaxprocs=0,cryptocustomrand=1,decoratemappings=0,gotestjsonbuildtext=1,gotypesalias=0,httpcookiemaxnum=0,httplaxcontentlength=1,httpmuxgo121=1,httpservecontentkeepheaders=1,multipathtcp=0,randseednop=0,rsa1024min=0,tls10server=1,tls3des=1,tlsmlkem=0,tlsrsakex=1,tlssecpmlkem=0,tlssha1=1,tlsunsafeekm=1,updatemaxprocs=0,urlmaxqueryparams=0,urlstrictcolons=0,winreadlinkvolume=0,winsymlink=0,x509keypairleaf=0,x509negativeserial=1,x509rsacrt=0,x509sha256skid=0,x509usepolicies=0",
			GoLine{true, 21, 21}, "1.21"},
		{26, "", GoLine{true, 26, 26}, "1.26"},
		// go 1.20: panicnil=1 too; only an upper bound.
		{26, "asynctimerchan=1,containermaxprocs=0,cryptocustomrand=1,decoratemappings=0,gotestjsonbuildtext=1,gotypesalias=0,httpcookiemaxnum=0,httplaxcontentlength=1,httpmuxgo121=1,httpservecontentkeepheaders=1,multipathtcp=0,panicnil=1,randseednop=0,rsa1024min=0,tls10server=1,tls3des=1,tlsmlkem=0,tlsrsakex=1,tlssecpmlkem=0,tlssha1=1,tlsunsafeekm=1,updatemaxprocs=0,urlmaxqueryparams=0,urlstrictcolons=0,winreadlinkvolume=0,winsymlink=0,x509keypairleaf=0,x509negativeserial=1,x509rsacrt=0,x509sha256skid=0,x509usepolicies=0",
			GoLine{true, 0, 20}, "1.20 or older"},
		// Contradictory (a godebug line removed a setting): unknown, not a guess.
		{26, "asynctimerchan=1,panicnil=1", GoLine{}, "unknown"},
		// A go1.24 toolchain knows nothing of the 1.25 settings.
		{24, "", GoLine{true, 24, 24}, "1.24"},
		// A //go:debug containermaxprocs=1 in a go 1.24 module: the setting
		// is not the old value, so it says nothing; the others still do.
		{26, "containermaxprocs=1,cryptocustomrand=1,tlssecpmlkem=0,urlstrictcolons=0", GoLine{true, 25, 25}, "1.25"},
		{20, "", GoLine{}, "unknown"},
	} {
		got := inferGoLine(tc.toolchain, tc.defaults)
		if got != tc.want || got.String() != tc.str {
			t.Errorf("inferGoLine(%d, %.40q) = %+v %q, want %+v %q", tc.toolchain, tc.defaults, got, got, tc.want, tc.str)
		}
	}
}

func TestReadFile(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	info, err := ReadFile(exe)
	if err != nil {
		t.Fatalf("reading the test binary: %v", err)
	}
	if info.Minor < 21 || info.MainModule == "" {
		t.Errorf("test binary: %+v", info)
	}

	dir := t.TempDir()
	script := filepath.Join(dir, "run.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho hi\n"), 0o755)
	if _, err := ReadFile(script); !errors.Is(err, ErrNotGo) {
		t.Errorf("shell script: err = %v, want ErrNotGo", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); err == nil || errors.Is(err, ErrNotGo) {
		t.Errorf("missing file: err = %v, want a read error", err)
	}
	if _, err := ReadFile(dir); err == nil || errors.Is(err, ErrNotGo) {
		t.Errorf("directory: err = %v, want an error", err)
	}
}

// FuzzInferGoLine checks that any DefaultGODEBUG gives a go line within the
// toolchain's reach, or none.
func FuzzInferGoLine(f *testing.F) {
	f.Add(26, "containermaxprocs=0,cryptocustomrand=1,tlssha1=1,updatemaxprocs=0")
	f.Add(24, "")
	f.Fuzz(func(t *testing.T, toolchain int, defaults string) {
		g := inferGoLine(toolchain, defaults)
		if g.Known && (g.Min > g.Max || g.Max > toolchain || g.Min < 0) {
			t.Fatalf("inferGoLine(%d, %q) = %+v", toolchain, defaults, g)
		}
		_ = g.String()
	})
}
