// Package gobin reads what a Go binary records about how it was built and
// what decides its GOMAXPROCS: the toolchain's Go version, DefaultGODEBUG
// (containermaxprocs, updatemaxprocs), the main module's go line as far as
// DefaultGODEBUG reveals it, and whether it links go.uber.org/automaxprocs.
//
// Go binaries do not record the main module's go line. They record
// DefaultGODEBUG, which the go command fills with the old value of every
// GODEBUG setting whose default changed after that go line; so the settings
// present and absent bound the go line, and GoLine says how tightly.
package gobin

import (
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/schedoctor/schedoctor/internal/sysread"
)

// ErrNotGo means the file is an executable (or other file) that is not a Go
// binary, or one built without build information.
var ErrNotGo = errors.New("not a Go binary")

// AutomaxprocsModule is the module whose init sets GOMAXPROCS from the leaf
// cgroup's quota, rounded down.
const AutomaxprocsModule = "go.uber.org/automaxprocs"

// Info is what the binary says about itself.
type Info struct {
	GoVersion      string `json:"go_version"`      // toolchain, "go1.24.3"
	Minor          int    `json:"go_minor"`        // 24 for go1.24.3; 0 if unknown
	MainModule     string `json:"main_module"`     // module path of the main package
	DefaultGODEBUG string `json:"default_godebug"` // as recorded, "" when none
	GoLine         GoLine `json:"go_line"`
	// Automaxprocs is the version of go.uber.org/automaxprocs linked in, or "".
	Automaxprocs string `json:"automaxprocs,omitempty"`
}

// GoLine is the main module's go line, as far as DefaultGODEBUG bounds it:
// Min ≤ go line ≤ Max (minor versions; Min == Max when exact, Min 0 when
// only bounded above). Known is false
// when nothing bounds it (toolchains before 1.21 recorded no DefaultGODEBUG).
type GoLine struct {
	Known bool `json:"known"`
	Min   int  `json:"min,omitempty"`
	Max   int  `json:"max,omitempty"`
}

func (g GoLine) String() string {
	switch {
	case !g.Known:
		return "unknown"
	case g.Min == g.Max:
		return fmt.Sprintf("1.%d", g.Min)
	case g.Min == 0:
		return fmt.Sprintf("1.%d or older", g.Max)
	default:
		return fmt.Sprintf("1.%d to 1.%d", g.Min, g.Max)
	}
}

// MaxBinaryBytes is the largest file ReadFile reads: far above any real
// executable (a large Go service is 100-300 MB), small enough that a
// hostile sysroot cannot make us scan a sparse file of terabytes.
const MaxBinaryBytes = sysread.BinaryMax

// ReadFile reads the build information of the binary at name. A file that is
// not a Go binary gives an error wrapping ErrNotGo. A FIFO, a device or a
// file larger than MaxBinaryBytes is refused without blocking.
func ReadFile(name string) (*Info, error) {
	f, st, err := sysread.Open("", name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > MaxBinaryBytes {
		return nil, fmt.Errorf("%s: %d bytes is larger than the limit of %d bytes for a binary", name, st.Size(), int64(MaxBinaryBytes))
	}
	// debug/buildinfo reads only the headers and the build-information
	// blob, at offsets bounded by the size checked above.
	bi, err := buildinfo.Read(io.NewSectionReader(f, 0, st.Size()))
	if err != nil {
		return nil, classify(name, err)
	}
	return fromBuildInfo(bi), nil
}

// Read is ReadFile for an open file.
func Read(r io.ReaderAt, name string) (*Info, error) {
	bi, err := buildinfo.Read(r)
	if err != nil {
		return nil, classify(name, err)
	}
	return fromBuildInfo(bi), nil
}

func classify(name string, err error) error {
	msg := err.Error()
	if strings.Contains(msg, "not a Go executable") || strings.Contains(msg, "unrecognized file format") {
		return fmt.Errorf("%s: %w (no Go build information)", name, ErrNotGo)
	}
	return fmt.Errorf("reading build information of %s: %w", name, err)
}

func fromBuildInfo(bi *buildinfo.BuildInfo) *Info {
	info := &Info{GoVersion: bi.GoVersion, Minor: Minor(bi.GoVersion), MainModule: bi.Main.Path}
	for _, s := range bi.Settings {
		if s.Key == "DefaultGODEBUG" {
			info.DefaultGODEBUG = s.Value
		}
	}
	for _, d := range bi.Deps {
		if d.Path == AutomaxprocsModule {
			info.Automaxprocs = d.Version
			if d.Replace != nil {
				info.Automaxprocs += " => " + d.Replace.Path
			}
		}
	}
	info.GoLine = inferGoLine(info.Minor, info.DefaultGODEBUG)
	return info
}

var minorRE = regexp.MustCompile(`go1\.([0-9]+)`)

// Minor returns 24 for "go1.24.3", "go1.24rc1" or "devel go1.24-abcdef", and
// 0 when the version has no such form.
func Minor(version string) int {
	m := minorRE.FindStringSubmatch(version)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return 0
	}
	return n
}

// Setting returns the value of key in a GODEBUG-style list ("a=1,b=0"); the
// last occurrence wins, as in the runtime.
func Setting(list, key string) (string, bool) {
	val, found := "", false
	for field := range strings.SplitSeq(list, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(field), "=")
		if ok && k == key {
			val, found = v, true
		}
	}
	return val, found
}

// changedGODEBUG lists the GODEBUG settings whose default changed with a go
// line, from Go 1.26's internal/godebugs table (Changed ≥ 21, when
// DefaultGODEBUG started being recorded): the minor version of the change and
// the value that restores the old behaviour.
var changedGODEBUG = []struct {
	name    string
	changed int
	old     string
}{
	{"asynctimerchan", 23, "1"},
	{"containermaxprocs", 25, "0"},
	{"cryptocustomrand", 26, "1"},
	{"decoratemappings", 25, "0"},
	{"gotestjsonbuildtext", 24, "1"},
	{"gotypesalias", 23, "0"},
	{"httpcookiemaxnum", 24, "0"},
	{"httplaxcontentlength", 22, "1"},
	{"httpmuxgo121", 22, "1"},
	{"httpservecontentkeepheaders", 23, "1"},
	{"multipathtcp", 24, "0"},
	{"panicnil", 21, "1"},
	{"randseednop", 24, "0"},
	{"rsa1024min", 24, "0"},
	{"tls10server", 22, "1"},
	{"tls3des", 23, "1"},
	{"tlsmlkem", 24, "0"},
	{"tlsrsakex", 22, "1"},
	{"tlssecpmlkem", 26, "0"},
	{"tlssha1", 25, "1"},
	{"tlsunsafeekm", 22, "1"},
	{"updatemaxprocs", 25, "0"},
	{"urlmaxqueryparams", 24, "0"},
	{"urlstrictcolons", 26, "0"},
	{"winreadlinkvolume", 23, "0"},
	{"winsymlink", 23, "0"},
	{"x509keypairleaf", 23, "0"},
	{"x509negativeserial", 23, "1"},
	{"x509rsacrt", 24, "0"},
	{"x509sha256skid", 25, "0"},
	{"x509usepolicies", 24, "0"},
}

// inferGoLine bounds the go line from DefaultGODEBUG: the go command records
// key=old for every setting the toolchain knows whose default changed after
// the go line. A setting present with its old value puts the go line below
// its change; a known setting absent puts it at or above. Settings present
// with another value came from //go:debug or a godebug line and say nothing.
func inferGoLine(toolchain int, defaults string) GoLine {
	if toolchain < 21 {
		return GoLine{}
	}
	lo, hi := 0, toolchain // lo 0: no lower bound
	for _, s := range changedGODEBUG {
		if s.changed > toolchain {
			continue
		}
		v, ok := Setting(defaults, s.name)
		switch {
		case !ok:
			lo = max(lo, s.changed)
		case v == s.old:
			hi = min(hi, s.changed-1)
		}
	}
	if lo > hi {
		// Contradictory (a godebug directive removed a setting): give up
		// rather than guess.
		return GoLine{}
	}
	return GoLine{Known: true, Min: lo, Max: hi}
}
