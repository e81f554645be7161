package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/debug"
	rpprof "runtime/pprof"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/profile"
	"github.com/schedoctor/schedoctor/profile/classify"
)

// profileData names a real CPU profile of a lab program (2s each, Go 1.26,
// on the 2-CPU development machine), kept in profile/testdata/lab.
func profileData(name string) string {
	return filepath.Join("..", "..", "profile", "testdata", "lab", name)
}

// TestProfileGolden renders each lab profile as text and JSON into the
// goldens of testdata/profile.
func TestProfileGolden(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
		code   int
	}{
		{"busyselect", []string{"busyselect.pb.gz"}, ExitFindings},
		{"mutex", []string{"mutex.pb.gz"}, ExitFindings},
		{"gcpressure", []string{"gcpressure.pb.gz"}, ExitFindings},
		{"syscallheavy", []string{"syscallheavy.pb.gz"}, ExitFindings},
		{"timerloop", []string{"timerloop.pb.gz"}, ExitFindings},
		{"sleeppoll", []string{"sleeppoll.pb.gz"}, ExitFindings},
		{"overprocs-merged", []string{"overprocs.pb.gz", "overprocs2.pb.gz"}, ExitFindings},
		{"workerpool", []string{"workerpool.pb.gz"}, ExitClean},
	} {
		var files []string
		for _, a := range c.args {
			files = append(files, profileData(a))
		}
		for _, format := range []string{"txt", "json"} {
			// -nosrc: the lab profiles record paths under this checkout,
			// whose source moves; TestProfileSrcGolden covers the join.
			args := append([]string{"profile", "-nosrc"}, files...)
			if format == "json" {
				args = append([]string{"profile", "-nosrc", "-json"}, files...)
			}
			code, out, errOut := run(t, "", args...)
			if code != c.code {
				t.Errorf("%s %s: exit %d, want %d; stderr:\n%s", c.golden, format, code, c.code, errOut)
			}
			checkGolden(t, filepath.Join("profile", c.golden+"."+format), out)
		}
	}
}

func TestProfileJSONContract(t *testing.T) {
	code, out, _ := run(t, "", "profile", "-nosrc", "-json", profileData("mutex.pb.gz"))
	if code != ExitFindings {
		t.Fatalf("exit %d", code)
	}
	var got struct {
		Source   string `json:"source"`
		Findings []struct {
			Rule      string `json:"rule"`
			Locations []struct {
				File string `json:"file"`
				Line int    `json:"line"`
			} `json:"locations"`
		} `json:"findings"`
		Summary profile.Summary `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Source != "profile" || len(got.Findings) == 0 || got.Findings[0].Rule != "SD206" {
		t.Fatalf("got %+v", got)
	}
	if l := got.Findings[0].Locations[0]; !strings.HasSuffix(l.File, "internal/lab/mutex/main.go") || l.Line != 27 {
		t.Errorf("location %+v, want the mu.Lock() line of mutex/main.go", l)
	}
	if got.Summary.Share(classify.Mutex) <= 0 || got.Summary.Cores <= 0 {
		t.Errorf("summary %+v", got.Summary)
	}
}

func TestProfileStdinAndClassified(t *testing.T) {
	data, err := os.ReadFile(profileData("busyselect.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "classified.pb.gz")
	code, _, errOut := run(t, string(data), "profile", "-nosrc", "-fail", "none", "-o", out, "-")
	if code != ExitClean {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Read(context.Background(), out, f, profile.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	causes := map[classify.Cause]int{}
	for _, s := range p.Sample {
		c := profile.CauseOf(s.Label)
		if c == "" {
			t.Fatalf("a sample has no cause label: %v", s.Label)
		}
		causes[c]++
	}
	if causes[classify.Channel] == 0 {
		t.Errorf("causes %v, want channel among them", causes)
	}
}

func TestProfileURL(t *testing.T) {
	data, err := os.ReadFile(profileData("busyselect.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/profile", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("seconds") != "1" {
			http.Error(w, "want seconds=1", http.StatusBadRequest)
			return
		}
		w.Write(data)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	code, out, errOut := run(t, "", "profile", "-nosrc", "-seconds", "1", srv.URL+"/debug/pprof/profile")
	if code != ExitFindings || !strings.Contains(out, "SD204") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, _, errOut = run(t, "", "profile", srv.URL+"/nosuch")
	if code != ExitError || !strings.Contains(errOut, "404") {
		t.Errorf("404: exit %d, stderr %q", code, errOut)
	}
}

func TestProfileBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var heap bytes.Buffer
	rpprof.Lookup("heap").WriteTo(&heap, 0)
	good, _ := os.ReadFile(profileData("busyselect.pb.gz"))
	// A CPU profile of something that is not a Go program: no runtime frame.
	fn := &pprof.Function{ID: 1, Name: "compute", Filename: "/src/a.c"}
	loc := &pprof.Location{ID: 1, Address: 0x1000, Line: []pprof.Line{{Function: fn, Line: 3}}}
	var notGo bytes.Buffer
	(&pprof.Profile{
		SampleType:    []*pprof.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:    &pprof.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:        1e7,
		DurationNanos: 1e9,
		Sample:        []*pprof.Sample{{Location: []*pprof.Location{loc}, Value: []int64{5e8}}},
		Location:      []*pprof.Location{loc},
		Function:      []*pprof.Function{fn},
	}).Write(&notGo)
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "give at least one CPU profile"},
		{[]string{filepath.Join(dir, "nosuch.pb.gz")}, "no such file"},
		{[]string{write("heap.pb.gz", heap.Bytes())}, "this is a heap profile; give a CPU profile"},
		{[]string{write("cut.pb.gz", good[:len(good)/2])}, "cut.pb.gz: truncated gzip"},
		{[]string{write("page.html", []byte("<html>login</html>"))}, "page.html is an HTML page, not a CPU profile"},
		{[]string{write("notes.txt", []byte("some notes\n"))}, "notes.txt: this is text"}, // no kind known: the parser's words
		{[]string{write("empty", nil)}, "empty: empty file"},
		{[]string{write("c.pb.gz", notGo.Bytes())}, "no Go runtime frames"},
		{[]string{"-", "-"}, "stdin) given twice"},
		{[]string{"-seconds", "-1", "x"}, "-seconds -1: want 0 to 86400 seconds"},
		{[]string{"-seconds", "9999999999", "x"}, "-seconds 9999999999: want 0 to 86400 seconds"},
		{[]string{"-json", "-fail", "bogus", "x"}, "invalid value"},
	} {
		code, _, errOut := run(t, "", append([]string{"profile"}, c.args...)...)
		if code != ExitError || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
		if strings.Contains(errOut, "goroutine ") {
			t.Errorf("%v: stack dump in %q", c.args, errOut)
		}
	}
}

// srcProfile writes a CPU profile of a handler spinning in selectgo at
// /build/svc/handler.go:19 (the select of testdata/profilesrc/svc), a
// path that does not exist: only -src finds the file.
func srcProfile(t *testing.T) string {
	t.Helper()
	p := &pprof.Profile{
		SampleType:    []*pprof.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:    &pprof.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:        10_000_000,
		DurationNanos: 10e9,
	}
	fn := func(name, file string) *pprof.Function {
		f := &pprof.Function{ID: uint64(len(p.Function) + 1), Name: name, Filename: file}
		p.Function = append(p.Function, f)
		return f
	}
	loc := func(f *pprof.Function, line int64) *pprof.Location {
		l := &pprof.Location{ID: uint64(len(p.Location) + 1), Line: []pprof.Line{{Function: f, Line: line}}}
		p.Location = append(p.Location, l)
		return l
	}
	selectgo := loc(fn("runtime.selectgo", "/usr/local/go/src/runtime/select.go"), 100)
	lock := loc(fn("runtime.lock2", "/usr/local/go/src/runtime/lock_spinbit.go"), 200)
	sellock := loc(fn("runtime.sellock", "/usr/local/go/src/runtime/select.go"), 30)
	wait := loc(fn("example.com/svc.Wait", "/build/svc/handler.go"), 19)
	serve := loc(fn("net/http.HandlerFunc.ServeHTTP", "/usr/local/go/src/net/http/server.go"), 2300)
	p.Sample = []*pprof.Sample{
		{Value: []int64{400, 4e9}, Location: []*pprof.Location{selectgo, wait, serve}},
		{Value: []int64{550, 5.5e9}, Location: []*pprof.Location{lock, sellock, selectgo, wait, serve}},
	}
	path := filepath.Join(t.TempDir(), "spin.pb.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestProfileSrcGolden joins a profile's hot select with the source found
// under -src: SD204 at the select's line with both sources' evidence, and
// without -src the profile's own finding, by its cost, and a source report
// that asks for -src.
func TestProfileSrcGolden(t *testing.T) {
	prof := srcProfile(t)
	dir := filepath.Join("testdata", "profilesrc")
	code, out, errOut := run(t, "", "profile", "-src", dir, prof)
	if code != ExitFindings {
		t.Fatalf("exit %d, want findings; stderr:\n%s", code, errOut)
	}
	out = strings.ReplaceAll(out, prof, "PROFILE")
	checkGolden(t, filepath.Join("profile-src", "with-src.txt"), out)
	if !strings.Contains(out, "SD204") || !strings.Contains(out, "/build/svc/handler.go:18") {
		t.Errorf("no SD204 at the select's line:\n%s", out)
	}
	code, out, _ = run(t, "", "profile", "-json", "-src", dir, prof)
	var got struct {
		Findings []struct {
			Rule    string   `json:"rule"`
			Sources []string `json:"sources"`
		} `json:"findings"`
		Summary struct {
			Source struct {
				Looked, Found int
			} `json:"source"`
			Loops []struct {
				Kind string `json:"kind"`
				Spin bool   `json:"spin"`
			} `json:"loops"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Findings) == 0 || got.Findings[0].Rule != "SD204" || strings.Join(got.Findings[0].Sources, ",") != "profile,lint" ||
		got.Summary.Source.Found != 1 || len(got.Summary.Loops) != 1 || !got.Summary.Loops[0].Spin {
		t.Errorf("JSON %+v", got)
	}
	// Without -src the recorded path does not exist: the report says so,
	// and the select still warns by its cost (no parking, no
	// communication completed: issue 20's "warn by cost, explain by code").
	code, out, _ = run(t, "", "profile", prof)
	if code != ExitFindings || !strings.Contains(out, "1 finding (1 critical)") {
		t.Errorf("without -src: exit %d, want a critical SD204 by its cost:\n%s", code, out)
	}
	checkGolden(t, filepath.Join("profile-src", "without-src.txt"), out)
	if !strings.Contains(out, "hint: give the module's source directory") || !strings.Contains(out, "(-src DIR)") {
		t.Errorf("without -src the report does not ask for it:\n%s", out)
	}
	code, _, errOut = run(t, "", "profile", "-src", filepath.Join(dir, "nosuch"), prof)
	if code != ExitError || !strings.Contains(errOut, "nosuch") {
		t.Errorf("-src of a missing dir: exit %d, stderr %q", code, errOut)
	}
}

// TestOutputFilesNotThroughLinks (issue 19): -o FILE and -html FILE,
// where FILE is a link someone planted to a 0600 file, replace the link
// with a new 0600 file and leave the linked file as it was.
func TestOutputFilesNotThroughLinks(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("root-only\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"-o", "-html"} {
		out := filepath.Join(dir, "out"+flag)
		if err := os.Symlink(secret, out); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := run(t, "", "profile", "-nosrc", "-fail", "none", flag, out, profileData("busyselect.pb.gz"))
		if code != ExitClean {
			t.Fatalf("%s: exit %d: %s", flag, code, errOut)
		}
		if b, _ := os.ReadFile(secret); string(b) != "root-only\n" {
			t.Fatalf("%s: the linked file was overwritten", flag)
		}
		st, err := os.Lstat(out)
		if err != nil {
			t.Fatal(err)
		}
		if !st.Mode().IsRegular() || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %s is %v, want a regular 0600 file", flag, out, st.Mode())
		}
	}
}

// TestAnalysisGC: the analysis runs at analysisGCPercent and the
// collector's percentage is restored after; a GOGC the user set, or a
// higher percentage, is left alone.
func TestAnalysisGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC")
	restore := analysisGC()
	if got := debug.SetGCPercent(analysisGCPercent); got != analysisGCPercent {
		t.Errorf("during the analysis: GOGC %d, want %d", got, analysisGCPercent)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after: GOGC %d, want 100 again", got)
	}
	debug.SetGCPercent(500)
	analysisGC()()
	if got := debug.SetGCPercent(100); got != 500 {
		t.Errorf("a higher GOGC became %d, want 500 left alone", got)
	}
	t.Setenv("GOGC", "50")
	debug.SetGCPercent(50)
	restore = analysisGC()
	if got := debug.SetGCPercent(50); got != 50 {
		t.Errorf("with GOGC=50 set: %d during the analysis, want 50", got)
	}
	restore()
}
