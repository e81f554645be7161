package goroutines

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestParseHeaderForms: the headers of every Go release the reader knows,
// the Go 1.26/1.27 marks and labels (issue 19) among them. The form
// "[chan receive (leaked), 3 minutes, locked to thread, labels:{...}]" is
// the issue's; the runtime itself writes " labels:{" (no comma), as the
// recording testdata/labels-end.goroutineleak.debug2.txt shows.
func TestParseHeaderForms(t *testing.T) {
	kv := func(s ...string) Labels {
		var ls Labels
		for i := 0; i+1 < len(s); i += 2 {
			ls = append(ls, Label{s[i], s[i+1]})
		}
		return ls
	}
	for _, tc := range []struct {
		line string
		want Goroutine
	}{
		{`goroutine 1 [running]:`, Goroutine{ID: 1, State: "running"}},
		{`goroutine 18 [chan send, 2 minutes, locked to thread]:`, Goroutine{ID: 18, State: "chan send", WaitMinutes: 2, Locked: true}},
		{`goroutine 1 gp=0xc000002380 m=0 mp=0x5b3c20 [running, locked to thread]:`, Goroutine{ID: 1, State: "running", Locked: true}},
		{`goroutine 22 [sync.RWMutex.RLock (scan)]:`, Goroutine{ID: 22, State: "sync.RWMutex.RLock"}},
		{`goroutine 7 [chan receive (leaked), 3 minutes, locked to thread, labels:{"k": "v"}]:`,
			Goroutine{ID: 7, State: "chan receive", Leaked: true, WaitMinutes: 3, Locked: true, Labels: kv("k", "v")}},
		{`goroutine 98 [chan send (leaked) labels:{"handler": "/work", "tenant": "in\"it, ]: {x}"}]:`,
			Goroutine{ID: 98, State: "chan send", Leaked: true, Labels: kv("handler", "/work", "tenant", `in"it, ]: {x}`)}},
		{`goroutine 9 [select, 5 minutes labels:{"a": "\x1b[2J\n", "b": "\u202e"}]:`,
			Goroutine{ID: 9, State: "select", WaitMinutes: 5, Labels: kv("a", "\x1b[2J\n", "b", "\u202e")}},
		{`goroutine 5 [chan receive (leaked) (scan)]:`, Goroutine{ID: 5, State: "chan receive", Leaked: true}},
		// testing/synctest: the wait reason's own name, and the mark the
		// runtime appends to other idle waits in a bubble.
		{`goroutine 11 [chan receive (durable), synctest bubble 1]:`, Goroutine{ID: 11, State: "chan receive (durable)", Durable: true}},
		{`goroutine 12 [sync.Cond.Wait (scan) (durable), 2 minutes, synctest bubble 3]:`,
			Goroutine{ID: 12, State: "sync.Cond.Wait (durable)", Durable: true, WaitMinutes: 2}},
		{`goroutine 13 [select (durable) (scan)]:`, Goroutine{ID: 13, State: "select (durable)", Durable: true}},
		// Labels that do not parse are dropped; the header is still read.
		{`goroutine 14 [chan send labels:{"k": v}]:`, Goroutine{ID: 14, State: "chan send"}},
		{`goroutine 15 [chan send labels:{"k": "v"]:`, Goroutine{ID: 15, State: "chan send"}},
		{`goroutine 16 [chan send labels:{}]:`, Goroutine{ID: 16, State: "chan send"}},
	} {
		got, ok := parseHeader(tc.line)
		tc.want.Count = 1
		if !ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseHeader(%q)\n got %+v, %v\nwant %+v", tc.line, got, ok, tc.want)
		}
	}
	for _, bad := range []string{`goroutine x [running]:`, `goroutine 1 running:`, `goroutine -1 [running]:`, `goroutine 1 []:`,
		`goroutine 1 [ (leaked)]:`, `goroutine 1 [ labels:{"k": "v"}]:`} {
		if g, ok := parseHeader(bad); ok {
			t.Errorf("parseHeader(%q) = %+v, want refused", bad, g)
		}
	}
}

// formatHeader writes g's header as the runtime does (labels quoted by
// strconv.Quote, whose escapes the runtime's are a subset of).
func formatHeader(g Goroutine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "goroutine %d [", g.ID)
	state, durable := strings.CutSuffix(g.State, " (durable)")
	b.WriteString(state)
	if g.Leaked {
		b.WriteString(" (leaked)")
	}
	if durable {
		b.WriteString(" (durable)")
	}
	if g.WaitMinutes > 0 {
		fmt.Fprintf(&b, ", %d minutes", g.WaitMinutes)
	}
	if g.Locked {
		b.WriteString(", locked to thread")
	}
	if len(g.Labels) > 0 {
		b.WriteString(" labels:{")
		for i, l := range g.Labels {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(l.Key) + ": " + strconv.Quote(l.Value))
		}
		b.WriteString("}")
	}
	b.WriteString("]:")
	return b.String()
}

// FuzzParseHeader: no header makes parseHeader panic; what it reads is
// sane; and what it read, written again as the runtime writes it, reads
// back the same. Seeds: every form of TestParseHeaderForms.
func FuzzParseHeader(f *testing.F) {
	for _, s := range []string{
		`goroutine 1 [running]:`,
		`goroutine 18 [chan send, 2 minutes, locked to thread]:`,
		`goroutine 1 gp=0xc000002380 m=0 mp=0x5b3c20 [running, locked to thread]:`,
		`goroutine 7 [chan receive (leaked), 3 minutes, locked to thread, labels:{"k": "v"}]:`,
		`goroutine 98 [chan send (leaked) labels:{"handler": "/work", "tenant": "in\"it, ]: {x}"}]:`,
		`goroutine 9 [select, 5 minutes labels:{"a": "\x1b[2J\n", "b": "\u202e"}]:`,
		`goroutine 12 [sync.Cond.Wait (scan) (durable), 2 minutes, synctest bubble 3]:`,
		`goroutine 11 [chan receive (durable), synctest bubble 1]:`,
		`goroutine 14 [chan send labels:{"k": v}]:`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		g, ok := parseHeader(line)
		if !ok {
			return
		}
		if g.ID < 0 || g.Count != 1 || g.State == "" || g.WaitMinutes < 0 || len(g.Labels) > maxLabels {
			t.Fatalf("parseHeader(%q) = %+v", line, g)
		}
		if g.Durable != strings.HasSuffix(g.State, " (durable)") {
			t.Fatalf("parseHeader(%q): durable %v, state %q", line, g.Durable, g.State)
		}
		// Round trip, for states the runtime could print (no separators
		// of the header inside).
		if strings.ContainsAny(g.State, "[]") || strings.Contains(g.State, ", ") || strings.Contains(g.State, " labels:{") ||
			strings.HasSuffix(g.State, " (scan)") || strings.HasSuffix(strings.TrimSuffix(g.State, " (durable)"), " (leaked)") ||
			strings.HasSuffix(strings.TrimSuffix(g.State, " (durable)"), " (durable)") || strings.HasSuffix(strings.TrimSuffix(g.State, " (durable)"), " (scan)") ||
			strings.TrimSuffix(g.State, " (durable)") == "" {
			return
		}
		again, ok := parseHeader(formatHeader(g))
		if !ok || !reflect.DeepEqual(again, g) {
			t.Fatalf("round trip of %q:\n first %+v\nsecond %+v (%v)\nheader %q", line, g, again, ok, formatHeader(g))
		}
	})
}

// TestLabelsRecorded: a goroutineleak?debug=2 dump recorded on Go 1.26.8
// with GODEBUG=tracebacklabels=1 (gorec -mode labels): the leaked
// handler goroutines carry their request's labels, the group breaks them
// down by label set, and SD701 names the sets.
func TestLabelsRecorded(t *testing.T) {
	ds := read(t, "labels-start.debug2.txt", "labels-end.goroutineleak.debug2.txt")
	end := ds[1]
	if end.Profile != ProfileGoroutineLeak || end.Skipped != 0 {
		t.Fatalf("profile %s, %d skipped", end.Profile, end.Skipped)
	}
	var leaked, labelled int
	for _, g := range end.Goroutines {
		if g.Leaked {
			leaked++
			if len(g.Labels) == 2 && g.Labels[0] == (Label{"handler", "/work"}) {
				labelled++
			}
		}
	}
	if leaked == 0 || labelled != leaked {
		t.Fatalf("%d leaked, %d with the handler's labels: want all", leaked, labelled)
	}
	gs := Groups(end)
	top := gs[0]
	if top.State != "chan send" || top.Leaked == 0 || top.LabelSets != 3 || len(top.Labels) != 3 {
		t.Fatalf("largest group %+v: want the leaking send, 3 label sets", top.Key)
	}
	sum := 0
	for _, lc := range top.Labels {
		sum += lc.Count
	}
	if sum != top.Count {
		t.Errorf("label sets count %d goroutines, the group %d", sum, top.Count)
	}
	res, err := Analyze(ds, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 {
		t.Fatalf("%d findings, want the one leak", len(res.Findings))
	}
	f := res.Findings[0]
	var sets []string
	for _, e := range f.Evidence {
		if s, ok := strings.CutPrefix(e.Label, "of them labelled "); ok {
			sets = append(sets, s)
		}
	}
	if len(sets) != 3 || !slices.Contains(sets, `{"handler": "/work", "tenant": "in\"it, ]: {x}"}`) {
		t.Errorf("label evidence %q", sets)
	}
	if n, _ := evidence(f, "proved leaked"); n != float64(leaked) {
		t.Errorf("proved leaked %v, want %d", n, leaked)
	}
}

// TestDurableNotLeak: goroutines of a synctest bubble parked "(durable)"
// that grew between two dumps, first ones still there, are not a leak;
// the same dumps without the mark are (the close positive).
func TestDurableNotLeak(t *testing.T) {
	mark := func(d *Dump) *Dump {
		for i := range d.Goroutines {
			d.Goroutines[i].Durable = true
			d.Goroutines[i].State += " (durable)"
		}
		return d
	}
	for _, state := range []string{"chan receive", "chan send", "select", "sync.Mutex.Lock"} {
		res, err := Analyze([]*Dump{synth(ids(1, 20), state, 5), synth(ids(1, 40), state, 5)}, Options{})
		if err != nil || len(res.Findings) != 1 {
			t.Fatalf("%s, unmarked: %v, %d findings; want 1", state, err, len(res.Findings))
		}
		end := mark(synth(ids(1, 40), state, 5))
		for i := range end.Goroutines {
			end.Goroutines[i].WaitMinutes = 30 // the age method too
		}
		res, err = Analyze([]*Dump{mark(synth(ids(1, 20), state, 5)), end}, Options{})
		if err != nil || len(res.Findings) != 0 {
			t.Errorf("%s (durable): %v, findings %+v; want none", state, err, res.Findings)
		}
		if g := Groups(end)[0]; g.Durable != 40 {
			t.Errorf("%s (durable): group durable %d, want 40", state, g.Durable)
		}
	}
}
