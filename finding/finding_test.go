package finding

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestCatalogValid(t *testing.T) {
	if err := Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestCatalogCoversDesign checks that every rule of the catalog as first
// designed is present: IDs are a contract and are never dropped.
func TestCatalogCoversDesign(t *testing.T) {
	var want []string
	for _, r := range []struct{ from, to int }{{101, 106}, {201, 209}, {301, 309}, {401, 408}, {501, 502}, {601, 608}, {701, 704}} {
		for i := r.from; i <= r.to; i++ {
			want = append(want, "SD"+itoa(i))
		}
	}
	for _, id := range want {
		if _, ok := Lookup(id); !ok {
			t.Errorf("rule %s missing from the catalog", id)
		}
	}
}

func itoa(i int) string {
	return string(rune('0'+i/100)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10))
}

func TestLookup(t *testing.T) {
	for _, q := range []string{"SD101", "sd101", "busy-select", "BUSY-SELECT"} {
		r, ok := Lookup(q)
		if !ok || r.ID != "SD101" {
			t.Errorf("Lookup(%q) = %v, %v; want SD101", q, r.ID, ok)
		}
	}
	if _, ok := Lookup("SD999"); ok {
		t.Error("Lookup(SD999) found a rule")
	}
	if _, ok := Lookup(""); ok {
		t.Error("Lookup(\"\") found a rule")
	}
}

func TestSeverity(t *testing.T) {
	for _, s := range []Severity{Info, Warning, Critical} {
		got, err := ParseSeverity(strings.ToUpper(s.String()))
		if err != nil || got != s {
			t.Errorf("ParseSeverity(%v) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseSeverity("fatal"); err == nil {
		t.Error("ParseSeverity(fatal): want an error")
	}
	if got := Severity(7).String(); got != "Severity(7)" {
		t.Errorf("Severity(7) = %q", got)
	}
}

func TestFindingJSONRoundTrip(t *testing.T) {
	f := Finding{
		Rule:      "SD102",
		Severity:  Warning,
		Message:   "loop polls with time.Sleep(5µs)",
		Locations: []Location{{File: "a/b.go", Line: 12, Column: 3, Function: "main.poll"}},
		Evidence:  []Evidence{{Label: "sleep", Value: 5, Unit: "µs"}},
		Fix:       "block on a channel",
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"rule", "name", "severity", "message", "locations", "evidence", "fix", "url"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	if m["name"] != "sleep-poll" || m["severity"] != "warning" || !strings.HasSuffix(m["url"].(string), "SD102.md") {
		t.Errorf("JSON = %s", b)
	}
	var back Finding
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Rule != f.Rule || back.Locations[0] != f.Locations[0] || back.Evidence[0] != f.Evidence[0] || back.Severity != f.Severity {
		t.Errorf("round trip: got %+v, want %+v", back, f)
	}
	// Empty lists are [] in the contract, never null.
	b, _ = json.Marshal(Finding{Rule: "SD101"})
	if !strings.Contains(string(b), `"locations":[]`) || !strings.Contains(string(b), `"evidence":[]`) {
		t.Errorf("empty finding JSON = %s", b)
	}
}

func TestSortAndMax(t *testing.T) {
	fs := []Finding{
		{Rule: "SD102", Severity: Warning, Locations: []Location{{File: "b.go", Line: 3}}},
		{Rule: "SD401", Severity: Critical},
		{Rule: "SD102", Severity: Warning, Locations: []Location{{File: "a.go", Line: 9}}},
		{Rule: "SD101", Severity: Info},
	}
	Sort(fs)
	var got []string
	for _, f := range fs {
		l := ""
		if len(f.Locations) > 0 {
			l = f.Locations[0].File
		}
		got = append(got, f.Rule+l)
	}
	if strings.Join(got, " ") != "SD401 SD102a.go SD102b.go SD101" {
		t.Errorf("Sort = %v", got)
	}
	if m, ok := Max(fs); !ok || m != Critical {
		t.Errorf("Max = %v, %v", m, ok)
	}
	if _, ok := Max(nil); ok {
		t.Error("Max(nil) ok")
	}
}

func TestLocationString(t *testing.T) {
	for _, c := range []struct {
		l    Location
		want string
	}{
		{Location{File: "x.go", Line: 3, Column: 4, Function: "f"}, "x.go:3:4 (f)"},
		{Location{File: "x.go"}, "x.go"},
		{Location{Function: "runtime.futex"}, "(runtime.futex)"},
	} {
		if got := c.l.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.l, got, c.want)
		}
	}
}

// TestEveryRuleHasFamilyAndSources: the join (diagnose) reads a rule's
// family and sources from the catalog, never from its ID, so every rule
// must carry both, and a family of the constants.
func TestEveryRuleHasFamilyAndSources(t *testing.T) {
	for _, r := range Rules() {
		if r.Family == "" || !slices.Contains(families, r.Family) {
			t.Errorf("%s: family %q, want one of %v", r.ID, r.Family, families)
		}
		if len(r.Sources) == 0 {
			t.Errorf("%s: no source", r.ID)
		}
	}
	// Each family names some rule: a constant no rule uses is dead.
	for _, f := range families {
		if !slices.ContainsFunc(Rules(), func(r Rule) bool { return r.Family == f }) {
			t.Errorf("family %q: no rule", f)
		}
	}
}

// TestValidateFamily: Validate refuses a rule without a family, with one
// that is not a constant, or without a source.
func TestValidateFamily(t *testing.T) {
	ok := MustLookup("SD101")
	if err := validate([]Rule{ok}); err != nil {
		t.Fatalf("a catalog rule refused: %v", err)
	}
	for name, tc := range map[string]struct {
		edit func(*Rule)
		want string
	}{
		"no family":     {func(r *Rule) { r.Family = "" }, "SD101: no family"},
		"other family":  {func(r *Rule) { r.Family = "spin" }, `SD101: family "spin" is not one`},
		"no source":     {func(r *Rule) { r.Sources = nil }, "SD101: no source"},
		"empty sources": {func(r *Rule) { r.Sources = []Source{} }, "SD101: no source"},
	} {
		r := ok
		tc.edit(&r)
		err := validate([]Rule{r})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: validate = %v, want %q", name, err, tc.want)
		}
	}
}

// TestFindingParts: the renderers compose a finding from its parts; the
// JSON form keeps "message" as that composition (what older consumers
// read) and adds the parts, which a reader gets back as they were.
func TestFindingParts(t *testing.T) {
	f := Finding{Rule: "SD204", Severity: Info, What: "12% of CPU (0.20 cores) busy-waits yielding with runtime.Gosched, at q.go:9",
		Because: "parking takes only 1% of CPU"}
	f.Note(NoteQualifier, "only 0.020 cores, cheap at this load")
	f.Note(NoteQualifier, "") // adds nothing
	f.AddHint(HintSourceDir, "give the module's source directory")
	if got, want := f.Headline(), f.What; got != want {
		t.Errorf("Headline = %q, want %q", got, want)
	}
	want := f.What + " because parking takes only 1% of CPU; only 0.020 cores, cheap at this load; give the module's source directory"
	if got := f.Text(); got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if len(f.Notes) != 2 || !f.HasNote(NoteQualifier) || f.HasNote(NoteCause) || !slices.Equal(f.Hints(), []Hint{HintSourceDir}) {
		t.Errorf("notes = %+v", f.Notes)
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["message"] != want || m["what"] != f.What || m["because"] != f.Because {
		t.Errorf("JSON = %s", b)
	}
	notes, _ := m["notes"].([]any)
	if len(notes) != 2 || notes[1].(map[string]any)["kind"] != "hint" || notes[1].(map[string]any)["hint"] != "source-dir" ||
		notes[0].(map[string]any)["kind"] != "qualifier" {
		t.Errorf("JSON notes = %s", b)
	}
	if _, ok := notes[0].(map[string]any)["hint"]; ok {
		t.Errorf("a note with no hint carries one: %s", b)
	}
	var back Finding
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.What != f.What || back.Because != f.Because || !slices.Equal(back.Notes, f.Notes) || back.Message != "" || back.Text() != want {
		t.Errorf("round trip: got %+v", back)
	}

	// A legacy finding (older JSON, no "what"): its message is the headline.
	var old Finding
	if err := json.Unmarshal([]byte(`{"rule":"SD101","severity":"warning","message":"select with default spins"}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.Headline() != "select with default spins" || old.Text() != old.Headline() {
		t.Errorf("legacy: %+v", old)
	}
	b, _ = json.Marshal(old)
	if strings.Contains(string(b), `"what"`) || !strings.Contains(string(b), `"message":"select with default spins"`) {
		t.Errorf("legacy JSON = %s", b)
	}
	// A note added to a legacy finding: the parts name its headline.
	old.Note(NoteCorroboration, "the source confirms: a select with a default")
	b, _ = json.Marshal(old)
	if !strings.Contains(string(b), `"what":"select with default spins"`) ||
		!strings.Contains(string(b), `"message":"select with default spins; the source confirms: a select with a default"`) {
		t.Errorf("legacy with a note, JSON = %s", b)
	}
	// A kind or hint of a newer version reads as a plain note: its text is
	// kept, the document is still read, and no flag is asked for.
	if err := json.Unmarshal([]byte(`{"rule":"SD101","what":"x","notes":[{"kind":"gossip","text":"y","hint":"telepathy"}]}`), &back); err != nil ||
		!slices.Equal(back.Notes, []Note{{Kind: NoteQualifier, Text: "y"}}) {
		t.Errorf("unknown kind and hint: %v, notes %+v", err, back.Notes)
	}
}

// TestNoteDoesNotAlias: a join copies a finding (g := f) and adds a note to
// the copy; the original must not see it.
func TestNoteDoesNotAlias(t *testing.T) {
	f := Finding{What: "x", Notes: make([]Note, 1, 4)}
	f.Notes[0] = Note{Kind: NoteLink, Text: "a"}
	g := f
	g.Note(NoteCorroboration, "b")
	h := f
	h.Note(NoteCause, "c")
	if len(f.Notes) != 1 || g.Notes[1].Text != "b" || h.Notes[1].Text != "c" {
		t.Errorf("f %+v, g %+v, h %+v", f.Notes, g.Notes, h.Notes)
	}
}
