package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/golden"
)

type tableSummary struct {
	Samples int `json:"samples"`
}

func (s tableSummary) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "samples: %d\n", s.Samples)
	return err
}

var sample = Report{
	Source: finding.SourceProfile,
	Findings: []finding.Finding{
		{
			Rule:     "SD201",
			Severity: finding.Warning,
			What:     "56.5% of CPU samples (0.05 cores) are threads woken and parked over and over",
			Because:  "a loop polls with time.Sleep(5µs)",
			Notes: []finding.Note{
				{Kind: finding.NoteCorroboration, Text: "the source confirms: a loop around time.Sleep"},
				{Kind: finding.NoteHint, Hint: finding.HintSourceDir, Text: "give the module's source directory to read the other lines"},
			},
			Locations: []finding.Location{
				{File: "/src/app/poll.go", Line: 42, Function: "main.waitReady"},
				{File: "/src/app/main.go", Line: 17, Function: "main.main"},
			},
			Evidence: []finding.Evidence{
				{Label: "runtime.futex via wakep → startm → notewakeup", Value: 56.5, Unit: "% of samples"},
				{Label: "CPU used", Value: 0.0812, Unit: "cores"},
				{Label: "samples", Value: 812, Unit: ""},
			},
			Fix: "block on the event instead of polling: a channel closed by the goroutine that sets the flag",
		},
		{
			Rule:      "SD401",
			Severity:  finding.Critical,
			Message:   "GOMAXPROCS=8 is above the 2 CPUs of the cgroup quota",
			Locations: []finding.Location{{File: "/sys/fs/cgroup/cpu.max"}},
			Evidence:  []finding.Evidence{{Label: "GOMAXPROCS", Value: 8}, {Label: "CPU quota", Value: 2, Unit: "CPUs"}},
			Fix:       "unset GOMAXPROCS and build with go ≥ 1.25",
		},
		{Rule: "SD304", Severity: finding.Info, Message: "77% of goroutine starts changed thread"},
	},
	Summary: tableSummary{Samples: 812},
}

func TestText(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, sample, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "sample.txt"), b.Bytes())
	for i, line := range strings.Split(b.String(), "\n") {
		if n := len([]rune(line)); n > 80 && !strings.Contains(line, "://") && !strings.Contains(line, "/src/") {
			t.Errorf("line %d has %d columns: %q", i+1, n, line)
		}
	}
	if strings.Contains(b.String(), "\x1b[") {
		t.Error("plain text contains ANSI escapes")
	}
}

func TestTextColor(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, sample, TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "sample-color.txt"), b.Bytes())
}

func TestTextCompact(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, sample, TextOptions{Compact: true}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "sample-compact.txt"), b.Bytes())
}

func TestTextEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, Report{Source: finding.SourceLint}, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "schedoctor lint: no findings\n" {
		t.Errorf("empty report = %q", got)
	}
}

func TestJSON(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, sample); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "sample.json"), b.Bytes())
	var back struct {
		Source   string            `json:"source"`
		Findings []finding.Finding `json:"findings"`
		Summary  map[string]any    `json:"summary"`
	}
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Source != "profile" || len(back.Findings) != 3 || back.Summary["samples"] != float64(812) {
		t.Errorf("decoded %+v", back)
	}
	b.Reset()
	if err := JSON(&b, Report{Source: finding.SourceLint}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"findings": []`) || !strings.Contains(b.String(), `"summary": {}`) {
		t.Errorf("empty JSON = %s", b.String())
	}
}

func TestSARIF(t *testing.T) {
	var b bytes.Buffer
	if err := SARIF(&b, sample, SARIFOptions{ToolVersion: "v0.1.0", BaseDir: "/src/app"}); err != nil {
		t.Fatal(err)
	}
	norm, err := golden.NormalizeSARIF(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "sample.sarif"), norm)
	r208, _ := finding.Lookup("SD208")
	if !strings.Contains(b.String(), r208.Detection) {
		t.Error("the SARIF rules do not carry the catalog's detection text")
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex *int   `json:"ruleIndex"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI       string `json:"uri"`
							URIBaseID string `json:"uriBaseId"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("bad log: %s", b.String())
	}
	run := log.Runs[0]
	for _, r := range run.Results {
		if r.RuleIndex == nil || run.Tool.Driver.Rules[*r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %s: ruleIndex does not point at its rule", r.RuleID)
		}
	}
	if got := run.Results[0]; got.Level != "error" || got.RuleID != "SD401" {
		t.Errorf("first result = %+v; want the critical SD401 as error", got)
	}
	loc := run.Results[1].Locations[0].PhysicalLocation.ArtifactLocation
	if loc.URI != "poll.go" || loc.URIBaseID != "%SRCROOT%" {
		t.Errorf("location under BaseDir = %+v; want relative to %%SRCROOT%%", loc)
	}
}

func TestFormatValue(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{
		{56.5, "% of samples", "56.5% of samples"},
		{2.50, "x", "2.5 x"},
		{812, "", "812"},
		{0.0812, "cores", "0.0812 cores"},
		{1234.56, "ms", "1234.6 ms"},
		{-3, "µs", "-3 µs"},
	} {
		if got := FormatValue(c.v, c.unit); got != c.want {
			t.Errorf("FormatValue(%v, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}

func TestRuleMarkdown(t *testing.T) {
	var b bytes.Buffer
	r, _ := finding.Lookup("SD101")
	if err := RuleMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# SD101 busy-select", "## Wrong", "## Right", "```go"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("SD101 page lacks %q", want)
		}
	}
	b.Reset()
	r, _ = finding.Lookup("SD401")
	RuleMarkdown(&b, r)
	if strings.Contains(b.String(), "## Wrong") {
		t.Error("SD401 has no code examples but the page shows a Wrong section")
	}
}

// thinSummary is a summary whose evidence is too thin, nested the way
// check's summary holds the profile's.
type thinSummary struct{ note string }

func (s *thinSummary) ThinEvidence() string { return s.note }
func (s *thinSummary) WriteText(w io.Writer) error {
	_, err := io.WriteString(w, "CAUSE TABLE\n")
	return err
}

type nestedSummary struct {
	Profile *thinSummary
	Trace   *thinSummary
	Other   []int
}

// TestTextThin: a thin profile's note is the report's first line, above
// the tables, and "no findings" says the evidence could not rule causes
// out; enough evidence prints neither (the close negative). Fails on the
// renderer that printed "no findings" with the note only inside the table.
func TestTextThin(t *testing.T) {
	for _, tc := range []struct {
		name    string
		summary any
		fs      []finding.Finding
		first   string
		tail    string
	}{
		{"no findings", &thinSummary{"only 3 samples; profile for at least 30s"}, nil,
			"NOT ENOUGH EVIDENCE: only 3 samples; profile for at least 30s",
			"schedoctor profile: no findings, but not enough evidence to rule causes out (see the top)\n"},
		{"nested, with findings", nestedSummary{Profile: &thinSummary{"only 3 samples"}, Trace: &thinSummary{""}},
			sample.Findings[:1], "NOT ENOUGH EVIDENCE: only 3 samples",
			""},
		{"enough", &thinSummary{""}, nil, "CAUSE TABLE", "schedoctor profile: no findings\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Text(&b, Report{Source: finding.SourceProfile, Findings: tc.fs, Summary: tc.summary}, TextOptions{}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if first, _, _ := strings.Cut(out, "\n"); first != tc.first {
				t.Errorf("first line %q, want %q\n%s", first, tc.first, out)
			}
			if tc.tail != "" && !strings.HasSuffix(out, tc.tail) {
				t.Errorf("report does not end with %q:\n%s", tc.tail, out)
			}
			if tc.fs != nil && !strings.Contains(out, "1 finding (1 warning); not enough evidence to rule other causes out") {
				t.Errorf("header does not say the evidence is thin:\n%s", out)
			}
		})
	}
}

// hintSummary asks for an input, as exectrace's summary asks for -cpus.
type hintSummary struct{ hints []finding.Note }

func (h *hintSummary) Hints() []finding.Note { return h.hints }

// TestHints: what would sharpen the report travels as data (Report.Hints,
// filled from the summary by SummaryHints) and every renderer shows it:
// text as "hint:" lines above the findings, JSON as "hints" (absent when
// there are none, so older readers see the same document). Hostile text
// is escaped.
func TestHints(t *testing.T) {
	sum := &hintSummary{[]finding.Note{finding.HintNote(finding.HintCPUs, "give the CPUs \x1b[2J (-cpus)")}}
	if got := SummaryHints(sum); len(got) != 1 || got[0].Hint != finding.HintCPUs {
		t.Fatalf("SummaryHints = %+v", got)
	}
	if got := SummaryHints(struct{}{}); got != nil {
		t.Errorf("a summary that asks nothing: %+v", got)
	}
	r := Report{Source: finding.SourceTrace, Findings: sample.Findings[:1], Hints: SummaryHints(sum)}
	var b bytes.Buffer
	if err := Text(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "hint: give the CPUs ") || !strings.Contains(b.String(), " (-cpus)\n") || strings.Contains(b.String(), "\x1b") {
		t.Errorf("text does not show the hint, escaped:\n%s", b.String())
	}
	b.Reset()
	if err := JSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hints []finding.Note `json:"hints"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || len(doc.Hints) != 1 || doc.Hints[0].Hint != finding.HintCPUs || doc.Hints[0].Kind != finding.NoteHint {
		t.Errorf("JSON hints %+v (%v):\n%s", doc.Hints, err, b.String())
	}
	b.Reset()
	r.Hints = nil
	if err := JSON(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `"hints"`) {
		t.Errorf("no hints, yet the JSON has the field:\n%s", b.String())
	}
}
