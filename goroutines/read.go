package goroutines

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/sniff"
	"github.com/schedoctor/schedoctor/internal/sysread"
)

// Format is how a dump was written.
type Format string

const (
	FormatDebug2 Format = "debug=2" // one record per goroutine, with states, waits and creators
	FormatDebug1 Format = "debug=1" // identical stacks counted, runtime frames left out
	FormatProto  Format = "proto"   // the protobuf profile (debug=0)
)

// Profile names which profile a dump is.
const (
	ProfileGoroutine     = "goroutine"     // every goroutine
	ProfileGoroutineLeak = "goroutineleak" // only the goroutines the GC proved leaked
)

// Defaults of ReadOptions.
const (
	DefaultMaxBytes = 256 << 20 // a debug=2 dump of 100k goroutines is about 200 MB
	DefaultMaxLine  = 64 << 10  // frames print at most 10 words of arguments
	// DefaultMaxGoroutines: half a million records. A debug=2 dump within
	// DefaultMaxBytes holds about 130k goroutines (2 KB each); debug=1 and
	// proto hold one record per distinct stack, far fewer.
	DefaultMaxGoroutines = 500_000
	// DefaultMaxFrames bounds the frames kept over all records: each costs
	// about 40 bytes, so 4 million are 160 MB. 100k goroutines of 20
	// frames (a 200 MB debug=2 dump) hold 2 million.
	DefaultMaxFrames = 4_000_000
	// maxDepth is the deepest stack kept per record: the runtime prints at
	// most 100 frames of a traceback (then "...additional frames
	// elided...") and profiles record at most 128; deeper is not Go's.
	maxDepth = 1024
	// maxCount caps one record's goroutine count (debug=1, proto): an
	// int32 is more goroutines than a machine can hold.
	maxCount = 1<<31 - 1
	// maxLocations bounds the locations (and functions, mappings,
	// strings) of a proto profile, as the profile package does.
	maxLocations = 250_000
)

// ReadOptions bound what Read accepts. The zero value gives the defaults.
type ReadOptions struct {
	MaxBytes      int64 // largest input, compressed or not; 0 means DefaultMaxBytes
	MaxLine       int   // longer text lines are skipped and counted; 0 means DefaultMaxLine
	MaxGoroutines int   // records past this are dropped (Dump.Truncated); 0 means DefaultMaxGoroutines
	// MaxFrames bounds the frames kept over all records; past it, records
	// keep no more frames (Dump.Truncated). 0 means DefaultMaxFrames. A
	// proto profile claiming more location references is refused before
	// it is parsed.
	MaxFrames int
}

func (o ReadOptions) maxFrames() int {
	if o.MaxFrames > 0 {
		return o.MaxFrames
	}
	return DefaultMaxFrames
}

// frameBudget hands out frames up to the dump's bound and interns the
// function and file names, which repeat across records: a dump of 100k
// goroutines names a few hundred functions.
type frameBudget struct {
	left    int
	names   map[string]string
	dropped int // frames not kept: over the budget or over maxDepth
}

func newFrameBudget(opt ReadOptions) *frameBudget {
	return &frameBudget{left: opt.maxFrames(), names: map[string]string{}}
}

func (b *frameBudget) intern(s string) string {
	if v, ok := b.names[s]; ok {
		return v
	}
	if len(b.names) < 1<<20 {
		s = strings.Clone(s) // do not keep the whole line alive
		b.names[s] = s
	}
	return s
}

// add appends f to stack if the budget and the depth allow.
func (b *frameBudget) add(stack []Frame, f Frame) []Frame {
	if b.left <= 0 || len(stack) >= maxDepth {
		b.dropped++
		return stack
	}
	b.left--
	f.Func, f.File = b.intern(f.Func), b.intern(f.File)
	return append(stack, f)
}

func (o ReadOptions) maxBytes() int64 {
	if o.MaxBytes > 0 {
		return o.MaxBytes
	}
	return DefaultMaxBytes
}

func (o ReadOptions) maxLine() int {
	if o.MaxLine > 0 {
		return o.MaxLine
	}
	return DefaultMaxLine
}

func (o ReadOptions) maxGoroutines() int {
	if o.MaxGoroutines > 0 {
		return o.MaxGoroutines
	}
	return DefaultMaxGoroutines
}

// ErrNotDump is wrapped by the error for input that is no goroutine dump in
// any format (an HTML page, a CPU profile).
var ErrNotDump = errors.New("not a goroutine dump")

// Frame is one call in a stack.
type Frame struct {
	Func string `json:"function"`
	File string `json:"file"`
	Line int    `json:"line"`
}

func (f Frame) String() string {
	if f.File == "" {
		return f.Func
	}
	return fmt.Sprintf("%s (%s:%d)", f.Func, f.File, f.Line)
}

// Label is one pprof label.
type Label struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Labels are a goroutine's pprof labels.
type Labels []Label

// String is the set as the runtime prints it, {"k": "v", ...}, every key
// and value quoted (strconv.Quote: control characters escaped).
func (ls Labels) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, l := range ls {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(l.Key) + ": " + strconv.Quote(l.Value))
	}
	b.WriteByte('}')
	return b.String()
}

// Goroutine is one record of a dump: one goroutine (debug=2), or Count
// goroutines with the same stack (debug=1, proto).
type Goroutine struct {
	ID    int64  // 0 when the format has none
	Count int    // goroutines this record stands for; 1 for debug=2
	State string // "chan send", "IO wait", ...; "" when unknown
	// StateInferred is set when State was inferred from the stack (proto,
	// debug=1), not printed by the runtime.
	StateInferred bool
	// WaitMinutes is from the debug=2 header; 0 below one minute or
	// unknown. The runtime stamps a blocked goroutine at the start of the
	// first GC that sees it blocked (runtime/mgcmark.go), so the figure is
	// a lower bound, late by up to a GC interval (at most the 2-minute
	// forced GC), and absent in a program that has not collected since.
	WaitMinutes int
	Locked      bool // locked to thread
	Leaked      bool // the GC proved it blocked forever (goroutineleak)
	// Durable is set when the runtime marked the wait "(durable)": a
	// goroutine of a testing/synctest bubble that only the bubble's own
	// progress can wake. That is a known long wait, not a leak.
	Durable bool
	// Labels are the goroutine's pprof labels as its header prints them
	// (" labels:{"k": "v", ...}", GODEBUG=tracebacklabels=1 in Go 1.26,
	// which orders them by key); nil when none were printed.
	Labels    Labels
	Stack     []Frame
	Elided    bool   // "...additional frames elided..." (stacks deeper than 100 frames)
	CreatedBy *Frame // the function and line of the go statement; nil when unknown
	CreatorID int64  // the goroutine that ran the go statement; 0 when unknown
}

// Dump is one goroutine dump or leak profile.
//
// Reading is bounded (ReadOptions): records past MaxGoroutines and frames
// past MaxFrames (or deeper than 1024 in one stack) are dropped and
// Truncated is set; malformed lines and records are skipped and counted.
type Dump struct {
	Name    string
	Format  Format
	Profile string // ProfileGoroutine or ProfileGoroutineLeak
	// Time is when the dump was taken, when known (the proto's time, the
	// fetch's, or given by the caller); the zero Time otherwise.
	Time       time.Time
	Goroutines []Goroutine
	// Total is the number of goroutines the dump holds (counts summed);
	// Declared is the total its header announces (debug=1), or -1.
	Total, Declared int
	Skipped         int  // malformed lines or records skipped
	Truncated       bool // MaxGoroutines or MaxFrames reached: later records or frames were dropped
	// DroppedFrames counts the frames not kept (over MaxFrames, or deeper
	// than a Go stack can be).
	DroppedFrames int
}

// HasIDs, HasWaits and HasCreators tell what the format gives.
func (d *Dump) HasIDs() bool      { return d.Format == FormatDebug2 }
func (d *Dump) HasWaits() bool    { return d.Format == FormatDebug2 }
func (d *Dump) HasCreators() bool { return d.Format == FormatDebug2 }

// ReadFile reads the dump in the named file. Anything but a regular file
// (a FIFO would block, /dev/zero never ends) is refused at once: give "-"
// to read a pipe through Read.
func ReadFile(ctx context.Context, name string, opt ReadOptions) (*Dump, error) {
	// The file's modification time is when it was written, not when the
	// dump was taken: Time stays zero unless the format records it.
	return sysread.WithFile(name, func(f *os.File) (*Dump, error) { return Read(ctx, name, f, opt) })
}

// Read parses one dump in any of the formats from r; name (a file, "stdin"
// or a URL) is used in errors. It reads at most opt.MaxBytes; when ctx is
// done by the end of the read, the error wraps context.Cause(ctx) (a reader
// that blocks must be made to return by its owner).
func Read(ctx context.Context, name string, r io.Reader, opt ReadOptions) (*Dump, error) {
	limit := opt.maxBytes()
	data, truncated, err := sysread.Reader(r, name, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: reading: %w", name, err)
	}
	if truncated {
		return nil, finding.WithHint(fmt.Errorf("%s: larger than the limit of %d bytes", name, limit), finding.HintInputLimit)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: %w", name, context.Cause(ctx))
	}
	return parse(name, data, opt)
}

// parse is Read on bytes in memory.
func parse(name string, data []byte, opt ReadOptions) (*Dump, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%s: empty: %w", name, ErrNotDump)
	}
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		limit := opt.maxBytes()
		raw, err := sysread.Gunzip(data, limit)
		if errors.Is(err, sysread.ErrTooLarge) {
			return nil, finding.WithHint(fmt.Errorf("%s: uncompresses to more than the limit of %d bytes", name, limit), finding.HintInputLimit)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		data = raw
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case bytes.HasPrefix(trimmed, []byte("goroutine profile: total ")),
		bytes.HasPrefix(trimmed, []byte("goroutineleak profile: total ")):
		return parseDebug1(name, trimmed, opt)
	case bytes.HasPrefix(trimmed, []byte("goroutine ")):
		return parseDebug2(name, trimmed, opt)
	}
	if sniff.LooksLikeText(data) {
		return nil, fmt.Errorf("%s: text starting %q is %w: give /debug/pprof/goroutine?debug=2 (or debug=1, or the protobuf profile)",
			name, sniff.FirstLine(data), ErrNotDump)
	}
	return parseProto(name, data, opt)
}

// lines iterates over data's lines, skipping (and counting) those longer
// than max so that one absurd line cannot cost memory or time.
type lines struct {
	data    []byte
	max     int
	tooLong int
}

func (l *lines) next() (string, bool) {
	for len(l.data) > 0 {
		i := bytes.IndexByte(l.data, '\n')
		var line []byte
		if i < 0 {
			line, l.data = l.data, nil
		} else {
			line, l.data = l.data[:i], l.data[i+1:]
		}
		if len(line) > l.max {
			l.tooLong++
			continue
		}
		return string(bytes.TrimRight(line, "\r")), true
	}
	return "", false
}

// parseDebug2 reads the traceback format: records separated by blank
// lines, each a header, frames (function line, then "\tfile:line +0x..")
// and an optional "created by" pair.
func parseDebug2(name string, data []byte, opt ReadOptions) (*Dump, error) {
	d := &Dump{Name: name, Format: FormatDebug2, Profile: ProfileGoroutine, Declared: -1}
	ls := &lines{data: data, max: opt.maxLine()}
	maxG := opt.maxGoroutines()
	fb := newFrameBudget(opt)
	// One allocation for the records: a dump of 100k goroutines would
	// otherwise cost several times its records in regrown slices.
	d.Goroutines = make([]Goroutine, 0, min(bytes.Count(data, []byte("\ngoroutine "))+1, maxG))
	var slot Goroutine // the record being read; cur points to it
	var cur *Goroutine
	var pending *Frame // a function line waiting for its file line
	var pendingCreator bool
	flush := func() {
		if cur == nil {
			return
		}
		if pending != nil {
			d.Skipped++ // a function line without its file line
			pending = nil
		}
		if len(d.Goroutines) < maxG {
			d.Goroutines = append(d.Goroutines, *cur)
			d.Total++
		} else {
			d.Truncated = true
		}
		cur = nil
	}
	for !d.Truncated { // past MaxGoroutines the rest is not read
		line, ok := ls.next()
		if !ok {
			break
		}
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "goroutine ") && strings.HasSuffix(line, "]:"):
			flush()
			g, ok := parseHeader(line)
			if !ok {
				d.Skipped++
				continue
			}
			g.State = fb.intern(g.State) // not a slice of the whole header line
			for i := range g.Labels {
				g.Labels[i] = Label{Key: fb.intern(g.Labels[i].Key), Value: fb.intern(g.Labels[i].Value)}
			}
			slot = g
			cur = &slot
		case cur == nil:
			// Text between records (a panic message, "[signal ...]", log
			// lines around a SIGQUIT dump): not ours.
			d.Skipped++
		case strings.HasPrefix(line, "\t"):
			body := strings.TrimSpace(line)
			if body == "goroutine running on other thread; stack unavailable" {
				continue
			}
			file, ln, ok := parseFileLine(body)
			if !ok || pending == nil {
				d.Skipped++
				pending = nil
				continue
			}
			pending.File, pending.Line = file, ln
			if pendingCreator {
				pending.Func, pending.File = fb.intern(pending.Func), fb.intern(pending.File)
				cur.CreatedBy = pending
			} else {
				cur.Stack = fb.add(cur.Stack, *pending)
			}
			pending = nil
		case line == "...additional frames elided...":
			cur.Elided = true
		case strings.HasPrefix(line, "created by "):
			fn, id := parseCreatedBy(strings.TrimPrefix(line, "created by "))
			if fn == "" {
				d.Skipped++
				continue
			}
			cur.CreatorID = id
			pending, pendingCreator = &Frame{Func: fn}, true
		default:
			fn, ok := parseCall(line)
			if !ok {
				d.Skipped++
				continue
			}
			if pending != nil {
				d.Skipped++
			}
			pending, pendingCreator = &Frame{Func: fn}, false
		}
	}
	flush()
	d.Skipped += ls.tooLong
	d.noteDropped(fb)
	if len(d.Goroutines) == 0 {
		return nil, fmt.Errorf("%s: no goroutine record could be read (%d lines skipped): %w", name, d.Skipped, ErrNotDump)
	}
	markLeakDump(d)
	return d, nil
}

func (d *Dump) noteDropped(fb *frameBudget) {
	if fb.dropped > 0 {
		d.DroppedFrames = fb.dropped
		d.Truncated = true
	}
}

// markLeakDump names a debug=2 dump with "(leaked)" goroutines as what it
// is: goroutineleak?debug=2 prints every goroutine and marks the leaked.
func markLeakDump(d *Dump) {
	for _, g := range d.Goroutines {
		if g.Leaked {
			d.Profile = ProfileGoroutineLeak
			return
		}
	}
}

// parseHeader reads "goroutine 18 [chan send, 2 minutes, locked to thread]:"
// and its variants: " gp=0x.. m=.." before the bracket (GOTRACEBACK=system),
// " (leaked)", " (scan)", " (durable)" after the state, ", synctest bubble
// N" and the pprof labels inside it. Go 1.26's runtime (traceback.go,
// goroutineheader) prints, in this order: the wait reason (whose name may
// end in "(durable)"), " (leaked)", " (scan)", " (durable)" unless the name
// has it, ", N minutes", ", locked to thread", ", synctest bubble N", then
// " labels:{"k": "v", ...}" with each key and value quoted (\n, \", \xHH,
// \uHHHH escapes). ", labels:{" is read too. Labels that do not parse are
// dropped; the header is still read.
func parseHeader(line string) (Goroutine, bool) {
	rest := strings.TrimPrefix(line, "goroutine ")
	idStr, rest, ok := strings.Cut(rest, " ")
	if !ok {
		return Goroutine{}, false
	}
	id, err := strconv.ParseInt(idStr, 10, 64)
	if err != nil || id < 0 {
		return Goroutine{}, false
	}
	open := strings.IndexByte(rest, '[')
	if open < 0 {
		return Goroutine{}, false
	}
	inner := strings.TrimSuffix(rest[open+1:], "]:")
	g := Goroutine{ID: id, Count: 1}
	// Labels are quoted and may hold anything; they come last, and
	// nothing before them (runtime wait reasons, numbers) holds " labels:{".
	if i := strings.Index(inner, " labels:{"); i >= 0 {
		g.Labels, _ = parseLabels(inner[i+len(" labels:{"):])
		inner = strings.TrimRight(inner[:i], ", ")
	}
	parts := strings.Split(inner, ", ")
	state := parts[0]
	durable := false
	if s, ok := strings.CutSuffix(state, " (durable)"); ok {
		state, durable = s, true
	}
	state, _ = strings.CutSuffix(state, " (scan)")
	if s, ok := strings.CutSuffix(state, " (leaked)"); ok {
		state, g.Leaked = s, true
	}
	// "chan receive (durable)" is the wait reason's own name; keep the
	// mark in the state, once, so durable waits group apart.
	if s, ok := strings.CutSuffix(state, " (durable)"); ok {
		state, durable = s, true
	}
	if state == "" {
		return Goroutine{}, false
	}
	if durable {
		state += " (durable)"
	}
	g.State, g.Durable = state, durable
	for _, p := range parts[1:] {
		switch {
		case strings.HasSuffix(p, " minutes"):
			n, err := strconv.Atoi(strings.TrimSuffix(p, " minutes"))
			if err == nil && n >= 0 {
				g.WaitMinutes = n
			}
		case p == "locked to thread":
			g.Locked = true
		}
	}
	return g, true
}

// maxLabels bounds the labels kept per goroutine: a header is at most one
// line (ReadOptions.MaxLine), and a program sets a handful.
const maxLabels = 64

// parseLabels reads `"k": "v", "k2": "v2"}`, the rest of a header after
// "labels:{". It reports false, with no labels, on anything else.
func parseLabels(s string) (Labels, bool) {
	var out Labels
	for !strings.HasPrefix(s, "}") {
		k, rest, ok := cutQuoted(s)
		if !ok {
			return nil, false
		}
		if rest, ok = strings.CutPrefix(rest, ": "); !ok {
			return nil, false
		}
		v, rest, ok := cutQuoted(rest)
		if !ok || len(out) == maxLabels {
			return nil, false
		}
		out = append(out, Label{Key: k, Value: v})
		if r, ok := strings.CutPrefix(rest, ", "); ok {
			rest = r
		} else if !strings.HasPrefix(rest, "}") {
			return nil, false
		}
		s = rest
	}
	if s != "}" {
		return nil, false
	}
	return out, true
}

// cutQuoted reads the quoted string that s starts with, as the runtime's
// printquoted writes it (a subset of Go's escapes), and returns it
// unquoted with what follows.
func cutQuoted(s string) (string, string, bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", "", false
	}
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			v, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return "", "", false
			}
			return v, s[i+1:], true
		}
	}
	return "", "", false
}

func parseCall(line string) (string, bool) {
	if !strings.HasSuffix(line, ")") {
		return "", false
	}
	i := strings.LastIndexByte(line, '(')
	if i <= 0 {
		return "", false
	}
	fn := line[:i]
	if strings.ContainsAny(fn, " \t") && !strings.HasPrefix(fn, "panic") {
		return "", false
	}
	return fn, true
}

// parseCreatedBy reads "main.serve in goroutine 1" (Go 1.21+) or "main.serve".
func parseCreatedBy(s string) (string, int64) {
	fn, gid, ok := strings.Cut(s, " in goroutine ")
	if !ok {
		return strings.TrimSpace(s), 0
	}
	id, err := strconv.ParseInt(gid, 10, 64)
	if err != nil || id < 0 {
		id = 0
	}
	return strings.TrimSpace(fn), id
}

// parseFileLine reads "/path/file.go:123 +0x1f" (the offset is absent for
// inlined frames).
func parseFileLine(s string) (string, int, bool) {
	s, _, _ = strings.Cut(s, " +0x")
	s, _, _ = strings.Cut(s, " fp=") // GOTRACEBACK=crash adds fp= sp= pc=
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n < 0 {
		return "", 0, false
	}
	return s[:i], n, true
}

// parseDebug1 reads the counted format:
//
//	goroutine profile: total 115
//	99 @ 0x48692e 0x41797c ...
//	#	0x6889a8	main.leakyHandler.func1+0x48	/tmp/gorec/main.go:61
//
// The runtime's frames are left out of the "#" lines.
func parseDebug1(name string, data []byte, opt ReadOptions) (*Dump, error) {
	d := &Dump{Name: name, Format: FormatDebug1, Profile: ProfileGoroutine, Declared: -1}
	ls := &lines{data: data, max: opt.maxLine()}
	maxG := opt.maxGoroutines()
	fb := newFrameBudget(opt)
	var slot Goroutine
	header, _ := ls.next()
	header = strings.TrimSpace(header)
	if strings.HasPrefix(header, "goroutineleak ") {
		d.Profile = ProfileGoroutineLeak
	}
	if _, n, ok := strings.Cut(header, "total "); ok {
		if v, err := strconv.Atoi(n); err == nil && v >= 0 {
			d.Declared = v
		}
	}
	var cur *Goroutine
	flush := func() {
		if cur == nil {
			return
		}
		if len(d.Goroutines) >= maxG {
			d.Truncated = true
		} else {
			inferState(cur)
			d.Goroutines = append(d.Goroutines, *cur)
			d.Total += cur.Count
		}
		cur = nil
	}
	for !d.Truncated { // past MaxGoroutines the rest is not read
		line, ok := ls.next()
		if !ok {
			break
		}
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case strings.HasPrefix(line, "# labels:"):
		case strings.HasPrefix(line, "#"):
			if cur == nil {
				d.Skipped++
				continue
			}
			f := strings.Fields(strings.TrimPrefix(line, "#"))
			if len(f) < 3 {
				d.Skipped++
				continue
			}
			fn, _, _ := strings.Cut(f[1], "+0x")
			file, ln, ok := parseFileLine(f[2])
			if !ok {
				d.Skipped++
				continue
			}
			cur.Stack = fb.add(cur.Stack, Frame{Func: fn, File: file, Line: ln})
		default:
			flush()
			cnt, _, ok := strings.Cut(line, " @ ")
			n, err := strconv.Atoi(cnt)
			if !ok || err != nil || n <= 0 {
				d.Skipped++
				continue
			}
			slot = Goroutine{Count: min(n, maxCount)}
			cur = &slot
			if d.Profile == ProfileGoroutineLeak {
				cur.Leaked = true
			}
		}
	}
	flush()
	d.Skipped += ls.tooLong
	d.noteDropped(fb)
	if len(d.Goroutines) == 0 && d.Declared != 0 {
		return nil, fmt.Errorf("%s: no stack could be read (%d lines skipped): %w", name, d.Skipped, ErrNotDump)
	}
	return d, nil
}

// parseProto reads the protobuf goroutine or goroutineleak profile.
func parseProto(name string, data []byte, opt ReadOptions) (*Dump, error) {
	// Count the records before pprof parses them: it allocates for every
	// record a profile claims, so a small crafted file could cost gigabytes.
	counts, err := sysread.CountProto(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a pprof profile (%v): %w", name, err, ErrNotDump)
	}
	if counts.Frames > opt.maxFrames() {
		return nil, fmt.Errorf("%s: %d stack frames, over the limit of %d", name, counts.Frames, opt.maxFrames())
	}
	// Samples past MaxGoroutines are dropped after parsing (Truncated);
	// far past it, parsing them at all is the cost to refuse.
	if limit := 4 * opt.maxGoroutines(); counts.Samples > limit {
		return nil, fmt.Errorf("%s: %d samples, over the limit of %d (four times the goroutine records allowed)", name, counts.Samples, limit)
	}
	if n := counts.Max(); n > maxLocations {
		return nil, fmt.Errorf("%s: %d locations, functions, mappings or strings, over the limit of %d: a goroutine profile names some thousands", name, n, maxLocations)
	}
	p, err := pprof.ParseUncompressed(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a pprof profile (%v): %w", name, err, ErrNotDump)
	}
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("%s: malformed profile: %v", name, err)
	}
	if len(p.SampleType) != 1 || p.SampleType[0].Unit != "count" ||
		(p.SampleType[0].Type != ProfileGoroutine && p.SampleType[0].Type != ProfileGoroutineLeak) {
		var types []string
		for _, st := range p.SampleType {
			types = append(types, st.Type+"/"+st.Unit)
		}
		return nil, fmt.Errorf("%s: sample types are %s, want goroutine/count or goroutineleak/count: %w",
			name, strings.Join(types, ", "), ErrNotDump)
	}
	d := &Dump{Name: name, Format: FormatProto, Profile: p.SampleType[0].Type, Declared: -1}
	if p.TimeNanos > 0 {
		d.Time = time.Unix(0, p.TimeNanos).UTC()
	}
	maxG := opt.maxGoroutines()
	fb := newFrameBudget(opt)
	d.Goroutines = make([]Goroutine, 0, min(len(p.Sample), maxG))
	for _, s := range p.Sample {
		if len(s.Value) != 1 || s.Value[0] <= 0 {
			d.Skipped++
			continue
		}
		if len(d.Goroutines) >= maxG {
			d.Truncated = true
			break
		}
		g := Goroutine{Count: int(min(s.Value[0], maxCount)), Leaked: d.Profile == ProfileGoroutineLeak}
		for _, loc := range s.Location {
			// Line[0] is the innermost of the inlined calls at this PC.
			for _, ln := range loc.Line {
				if ln.Function == nil {
					continue
				}
				g.Stack = fb.add(g.Stack, Frame{Func: ln.Function.Name, File: ln.Function.Filename, Line: int(max(ln.Line, 0))})
			}
		}
		inferState(&g)
		d.Goroutines = append(d.Goroutines, g)
		d.Total += g.Count
	}
	d.noteDropped(fb)
	return d, nil
}

// parkStates maps the frame that parks a goroutine to the state debug=2
// would print. The runtime frames are present in the proto only; debug=1
// keeps the sync, poll and time frames.
var parkStates = []struct{ fn, state string }{
	{"runtime.chansend", "chan send"},
	{"runtime.chansend1", "chan send"},
	{"runtime.chanrecv", "chan receive"},
	{"runtime.chanrecv1", "chan receive"},
	{"runtime.chanrecv2", "chan receive"},
	{"runtime.selectgo", "select"},
	{"runtime.block", "select (no cases)"},
	{"internal/sync.(*Mutex).lockSlow", "sync.Mutex.Lock"},
	{"sync.(*Mutex).lockSlow", "sync.Mutex.Lock"},
	{"sync.(*Mutex).Lock", "sync.Mutex.Lock"},
	{"sync.(*RWMutex).RLock", "sync.RWMutex.RLock"},
	{"sync.(*RWMutex).Lock", "sync.RWMutex.Lock"},
	{"sync.(*WaitGroup).Wait", "sync.WaitGroup.Wait"},
	{"sync.(*Cond).Wait", "sync.Cond.Wait"},
	{"internal/poll.runtime_pollWait", "IO wait"},
	{"time.Sleep", "sleep"},
}

// inferState sets State from the stack, leaf first: the first frame that
// parks a goroutine names its state.
func inferState(g *Goroutine) {
	for _, f := range g.Stack {
		for _, ps := range parkStates {
			if f.Func == ps.fn {
				g.State, g.StateInferred = ps.state, true
				return
			}
		}
	}
}
