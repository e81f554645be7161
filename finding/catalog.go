package finding

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Source names the part of schedoctor that can produce a finding.
type Source string

const (
	SourceLint       Source = "lint"
	SourceProfile    Source = "profile"
	SourceTrace      Source = "trace"
	SourceSchedtrace Source = "schedtrace"
	SourceProcs      Source = "procs"
	SourceSweep      Source = "sweep"
	SourceHost       Source = "host"
	SourceLive       Source = "live"
	SourceCheck      Source = "check"
	SourceGoroutines Source = "goroutines"
)

// Status says whether a rule is detected by any source yet. The catalog lists
// planned rules too, so that IDs are stable; `schedoctor rules` marks them so
// no one mistakes the catalog for coverage.
type Status int

const (
	Planned Status = iota
	Implemented
)

func (s Status) String() string {
	if s == Implemented {
		return "implemented"
	}
	return "planned"
}

func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Rule is one entry of the catalog. IDs are stable and never reused.
type Rule struct {
	ID       string   `json:"id"`       // "SD101"
	Name     string   `json:"name"`     // "busy-select"
	Title    string   `json:"title"`    // one line
	Severity Severity `json:"severity"` // the default; a source may raise or lower it with the evidence
	Sources  []Source `json:"sources"`  // who detects it (or will)
	Status   Status   `json:"status"`
	// Family is the kind of cause the rule reports (FamilyLoop, ...):
	// diagnose joins findings by it, whatever their source.
	Family Family `json:"family"`

	// Since is the date (YYYY-MM-DD, UTC) of the commit that added the
	// rule's ID to the catalog. The project has no release tags yet, so a
	// date is the only "since" there is; it never changes once written.
	Since string `json:"since"`

	Explanation string `json:"explanation"` // why it costs, in runtime terms
	// Detection says what is looked for, in at most about 60 words; the
	// numbers are in Thresholds, the specifics in Details.
	Detection string `json:"detection"`
	// Details holds the specifics of the detection: the variants it
	// covers, the close negatives it leaves alone, the lab measurements
	// behind it.
	Details string `json:"details,omitempty"`
	Fix     string `json:"fix"` // what to do
	Wrong   string `json:"wrong,omitempty"`
	Right   string `json:"right,omitempty"`
	Effect  string `json:"effect,omitempty"` // measured effect, with where and how

	// Thresholds are the numbers the detecting code compares with. The
	// catalog leaves them empty: a rule's numbers are constants of the
	// source that detects it, which this package cannot import (it is the
	// bottom layer). internal/ruledocs fills them from each source's
	// RuleThresholds, so the docs, `schedoctor rules` and its JSON quote
	// the code's own values.
	Thresholds []Threshold `json:"thresholds,omitempty"`
}

// DocsBase is where the rule pages generated from this catalog live.
const DocsBase = "https://github.com/schedoctor/schedoctor/blob/main/docs/rules/"

// URL is the rule's documentation page.
func (r Rule) URL() string { return DocsBase + r.ID + ".md" }

// Layer groups: each file catalog_<layer>.go contributes one slice, so that
// the owners of a layer edit only their file.
var (
	catalogOnce sync.Once
	catalog     []Rule
	byID        map[string]int
)

func load() {
	catalogOnce.Do(func() {
		for _, layer := range [][]Rule{lintRules, profileRules, traceRules, schedtraceRules, procsRules, sweepRules, hostRules, liveRules} {
			catalog = append(catalog, layer...)
		}
		slices.SortFunc(catalog, func(a, b Rule) int { return strings.Compare(a.ID, b.ID) })
		byID = make(map[string]int, len(catalog))
		for i, r := range catalog {
			byID[r.ID] = i
			byID[strings.ToLower(r.Name)] = i
		}
	})
}

// Rules returns the whole catalog ordered by ID. The slice is a copy.
func Rules() []Rule {
	load()
	return slices.Clone(catalog)
}

// Lookup finds a rule by ID ("SD101", case-insensitive) or by name ("busy-select").
func Lookup(idOrName string) (Rule, bool) {
	load()
	i, ok := byID[idOrName]
	if !ok {
		i, ok = byID[strings.ToLower(idOrName)]
	}
	if !ok {
		i, ok = byID[strings.ToUpper(idOrName)]
	}
	if !ok {
		return Rule{}, false
	}
	return catalog[i], true
}

// MustLookup is Lookup for IDs known at compile time; sources use it to fill
// a finding's default severity.
func MustLookup(id string) Rule {
	r, ok := Lookup(id)
	if !ok {
		panic(fmt.Sprintf("finding: no rule %q in the catalog", id))
	}
	return r
}

// MaxDetectionWords bounds a rule's Detection: what is looked for, not
// the code in prose.
const MaxDetectionWords = 60

var (
	idPattern   = regexp.MustCompile(`^SD[1-9][0-9]{2}$`)
	namePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
)

// Validate checks the catalog's invariants; the package's tests call it, and
// so does `schedoctor rules` in debug builds of later tools.
func Validate() error {
	load()
	return validate(catalog)
}

// validate checks rules, ordered by ID.
func validate(catalog []Rule) error {
	var errs []string
	seenName := map[string]string{}
	for i, r := range catalog {
		if !idPattern.MatchString(r.ID) {
			errs = append(errs, fmt.Sprintf("%s: ID is not of the form SDnnn", r.ID))
		}
		if i > 0 && catalog[i-1].ID == r.ID {
			errs = append(errs, fmt.Sprintf("%s: duplicate ID", r.ID))
		}
		if !namePattern.MatchString(r.Name) {
			errs = append(errs, fmt.Sprintf("%s: name %q is not kebab-case", r.ID, r.Name))
		}
		if prev, ok := seenName[r.Name]; ok {
			errs = append(errs, fmt.Sprintf("%s: name %q already used by %s", r.ID, r.Name, prev))
		}
		seenName[r.Name] = r.ID
		for field, v := range map[string]string{"title": r.Title, "explanation": r.Explanation, "detection": r.Detection, "fix": r.Fix} {
			if strings.TrimSpace(v) == "" {
				errs = append(errs, fmt.Sprintf("%s: empty %s", r.ID, field))
			}
		}
		if _, err := time.Parse(time.DateOnly, r.Since); err != nil {
			errs = append(errs, fmt.Sprintf("%s: since %q is not a date YYYY-MM-DD", r.ID, r.Since))
		}
		if n := len(strings.Fields(r.Detection)); n > MaxDetectionWords {
			errs = append(errs, fmt.Sprintf("%s: detection has %d words, more than %d: move the specifics to Details", r.ID, n, MaxDetectionWords))
		}
		if len(r.Thresholds) > 0 {
			errs = append(errs, fmt.Sprintf("%s: thresholds come from the detecting source (internal/ruledocs), not the catalog", r.ID))
		}
		if len(r.Sources) == 0 {
			errs = append(errs, fmt.Sprintf("%s: no source", r.ID))
		}
		if r.Family == "" {
			errs = append(errs, fmt.Sprintf("%s: no family", r.ID))
		} else if !slices.Contains(families, r.Family) {
			errs = append(errs, fmt.Sprintf("%s: family %q is not one of finding's Family constants", r.ID, r.Family))
		}
		if (r.Wrong == "") != (r.Right == "") {
			errs = append(errs, fmt.Sprintf("%s: wrong and right examples go together", r.ID))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("catalog: %s", strings.Join(errs, "; "))
	}
	return nil
}
