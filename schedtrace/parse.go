// Package schedtrace reads the scheduler snapshots the Go runtime prints on
// stderr with GODEBUG=schedtrace=N (and scheddetail=1), turns them into time
// series, and diagnoses run-queue backlog, spinning threads, idle Ps beside
// queued work, thread growth and scheduling churn. Its entry points are
// those of every source (docs/HACKING.md, "Sources"): Read(ctx, name, r,
// ReadOptions) or ReadFile(ctx, name, ReadOptions), streaming with the
// memory ReadOptions bounds, return a *Trace; Analyze(t, Options)
// (*Result, error) diagnoses it.
//
// The format is not specified anywhere but in the runtime's schedtrace
// function (runtime/proc.go). Go 1.26 prints, every N milliseconds, from
// sysmon:
//
//	SCHED 1004ms: gomaxprocs=8 idleprocs=0 threads=9 spinningthreads=0 needspinning=1 idlethreads=0 runqueue=0 [ 0 0 0 0 0 0 0 0 ] schedticks=[ 40 33 36 35 36 42 35 33 ]
//
// and with scheddetail=1 the same head followed by " gcwaiting=false
// nmidlelocked=0 stopwait=0 sysmonwait=false" and one line per P, M and G
// ("  P0: status=1 schedtick=40 ...", "  M0: p=0 curg=1 ...",
// "  G1: status=4(semacquire) m=nil lockedm=nil"). Older releases differ:
// needspinning appeared in Go 1.21 and schedticks=[...] later (it is in Go
// 1.25 and 1.26 output); before, the per-P list had no inner spaces
// ("[0 0 0 0]"), and the C runtime of Go 1.1 and 1.2 had no
// spinningthreads. The parser reads fields by name, so a missing or an
// unknown field does not stop it.
//
// The lines are interleaved with the program's own stderr, and the runtime
// writes them piecewise, so other output can cut a line in the middle.
// Unrelated lines are skipped and counted; a SCHED line that lacks a core
// field is counted as truncated; a line whose per-P list is cut keeps its
// counters but no queue lengths.
package schedtrace

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/schedoctor/schedoctor/internal/sysread"
)

// MaxLine is the longest line the parser reads; longer lines are skipped and
// counted in Stats.Overlong. A Go 1.26 SCHED line takes about 10 bytes per P,
// so this allows GOMAXPROCS in the tens of thousands.
const MaxLine = 1 << 20

// Default bounds of what a parse keeps in memory (ReadOptions). The input
// is streamed; only the ticks kept grow with it, so these bound the memory
// of an endless stdin as well as of a hostile file.
const (
	// DefaultMaxTicks keeps the last 100000 snapshots: 28 hours at
	// schedtrace=1000, 17 minutes at schedtrace=10.
	DefaultMaxTicks = 100_000
	// DefaultMaxValues bounds the per-P values (run-queue lengths,
	// schedticks, scheddetail P lines) and wait-reason counts kept over all
	// ticks: 8 million, about 32 MB.
	DefaultMaxValues = 8 << 20
	// maxReasons bounds the distinct wait reasons counted per tick; a
	// runtime has a few dozen, so more is foreign output.
	maxReasons = 256
)

// ReadOptions bounds a parse. The zero value takes the defaults.
type ReadOptions struct {
	// MaxTicks is how many snapshots are kept: beyond it the oldest are
	// dropped (Stats.Dropped), so a long input is analysed over its last
	// MaxTicks snapshots.
	MaxTicks int
	// MaxValues bounds the per-P values and wait-reason counts kept over
	// all ticks, dropping the oldest ticks in the same way.
	MaxValues int
}

// runqCap is the capacity of a P's local run queue (runtime.p.runq). The
// runtime reads head and tail without a lock, so a torn read can print a
// length above it; such values are clamped.
const runqCap = 256

// ErrNoSchedLines is returned (wrapped with the input's name) when the input
// holds no GODEBUG=schedtrace line at all.
var ErrNoSchedLines = errors.New("no GODEBUG=schedtrace lines found")

// Absent marks a counter that the Go release which wrote the input did not
// print (needspinning before Go 1.21, for instance).
const Absent = -1

// Tick is one SCHED snapshot.
type Tick struct {
	Line         int   `json:"line"` // line number of the SCHED line in the input, from 1
	Ms           int64 `json:"ms"`   // milliseconds since the runtime's first snapshot
	GOMAXPROCS   int   `json:"gomaxprocs"`
	IdleProcs    int   `json:"idleprocs"`
	Threads      int   `json:"threads"`
	Spinning     int   `json:"spinningthreads"` // Absent when not printed
	NeedSpinning int   `json:"needspinning"`    // Absent when not printed
	IdleThreads  int   `json:"idlethreads"`     // Absent when not printed
	RunQueue     int   `json:"runqueue"`        // the global run queue
	// LocalQueues are the per-P run-queue lengths, nil when the list was cut
	// (or, with scheddetail, when not every P line arrived).
	LocalQueues []int32 `json:"local_queues,omitempty"`
	// SchedTicks are the per-P schedtick counters (goroutines started on a
	// fresh time slice), nil when the release does not print them.
	SchedTicks []uint32 `json:"schedticks,omitempty"`
	Detail     *Detail  `json:"detail,omitempty"` // scheddetail=1 only
}

// Queued is the number of runnable goroutines waiting in run queues: the
// global queue plus the per-P queues. ok is false when the per-P lengths are
// unknown (the line was cut).
func (t *Tick) Queued() (n int, ok bool) {
	if t.LocalQueues == nil {
		return t.RunQueue, false
	}
	n = t.RunQueue
	for _, q := range t.LocalQueues {
		n += int(q)
	}
	return n, true
}

// Detail is what scheddetail=1 adds to a tick.
type Detail struct {
	GCWaiting    int     `json:"gcwaiting"`
	NMIdleLocked int     `json:"nmidlelocked"`
	StopWait     int     `json:"stopwait"`
	SysmonWait   int     `json:"sysmonwait"`
	Ps           []PLine `json:"ps"`
	Ms           MCounts `json:"ms"`
	Gs           GCounts `json:"gs"`
}

// PLine is one "  Pn:" line.
type PLine struct {
	ID          int    `json:"id"`
	Status      string `json:"status"` // idle, running, syscall, gcstop, dead
	SchedTick   uint32 `json:"schedtick"`
	SyscallTick uint32 `json:"syscalltick"`
	M           int    `json:"m"` // -1 for nil
	RunqSize    int32  `json:"runqsize"`
	GFreeCnt    int    `json:"gfreecnt"`
	TimersLen   int    `json:"timerslen"`
}

// MCounts sums the "  Mn:" lines of a tick.
type MCounts struct {
	Total    int `json:"total"`
	WithP    int `json:"with_p"`   // threads holding a P
	Running  int `json:"running"`  // threads running a goroutine (curg set)
	Spinning int `json:"spinning"` // spinning=true
	Blocked  int `json:"blocked"`  // blocked=true (parked on a note)
	Locked   int `json:"locked"`   // locked to a goroutine (lockedg set)
}

// GCounts sums the "  Gn:" lines of a tick by status and, for waiting
// goroutines, by wait reason.
type GCounts struct {
	Total        int            `json:"total"`
	ByStatus     map[string]int `json:"by_status"`
	ByWaitReason map[string]int `json:"by_wait_reason,omitempty"`
	// RunnableFrom counts runnable goroutines by the wait reason they still
	// carry: what they were woken from ("sync.Mutex.Lock" means the queue
	// holds lock waiters, not new work).
	RunnableFrom map[string]int `json:"runnable_from,omitempty"`
}

// Stats counts the lines of the input by what became of them.
type Stats struct {
	Lines       int `json:"lines"`        // lines read
	SchedLines  int `json:"sched_lines"`  // SCHED lines kept as ticks
	DetailLines int `json:"detail_lines"` // P, M and G lines kept
	Skipped     int `json:"skipped"`      // unrelated lines (the program's own output)
	Truncated   int `json:"truncated"`    // SCHED lines too damaged to keep
	PartialP    int `json:"partial"`      // ticks kept without per-P queue lengths
	Overlong    int `json:"overlong"`     // lines longer than MaxLine, skipped
	// Dropped is how many of the oldest ticks were let go to stay within
	// ReadOptions (counted in SchedLines; not in Trace.Ticks).
	Dropped int `json:"dropped,omitempty"`
	// ExtraDetail counts scheddetail lines beyond what a tick can hold (P
	// lines past gomaxprocs, wait reasons past 256): counted, not kept.
	ExtraDetail int `json:"extra_detail,omitempty"`
}

// Trace is a parsed input.
type Trace struct {
	Name  string `json:"file"`
	Ticks []Tick `json:"-"`
	Stats Stats  `json:"stats"`
}

// Read reads GODEBUG=schedtrace output from r as a stream, within the
// bounds of opt; name (a file, "stdin") is used in messages. It fails only
// when r cannot be read, holds no usable SCHED line, or ctx is done (checked
// every few thousand lines: a reader that blocks must be made to return by
// its owner; the error then wraps context.Cause(ctx)); what it skipped on
// the way is in Trace.Stats.
func Read(ctx context.Context, name string, r io.Reader, opt ReadOptions) (*Trace, error) {
	return parse(ctx, r, name, MaxLine, opt)
}

// ReadFile reads the schedtrace output in the named file, as Read does.
// Anything but a regular file (a FIFO would block, /dev/zero never ends)
// is refused at once: give a pipe to Read.
func ReadFile(ctx context.Context, name string, opt ReadOptions) (*Trace, error) {
	return sysread.WithFile(name, func(f *os.File) (*Trace, error) { return Read(ctx, name, f, opt) })
}

// ctxLines is how many lines a parse reads between looks at its context.
const ctxLines = 4096

func parse(ctx context.Context, r io.Reader, name string, maxLine int, opt ReadOptions) (*Trace, error) {
	if opt.MaxTicks <= 0 {
		opt.MaxTicks = DefaultMaxTicks
	}
	if opt.MaxValues <= 0 {
		opt.MaxValues = DefaultMaxValues
	}
	p := &parser{t: &Trace{Name: name}, opt: opt}
	br := bufio.NewReaderSize(r, maxLine)
	discarding := false // inside an overlong line
	for n := 1; ; n++ {
		if n%ctxLines == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("reading %s: %w", name, context.Cause(ctx))
		}
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if !discarding {
				p.t.Stats.Overlong++
				p.t.Stats.Lines++
				discarding = true
			}
			continue
		}
		if len(line) > 0 || err == nil {
			if discarding {
				discarding = false
			} else {
				p.t.Stats.Lines++
				p.line(bytes.TrimRight(line, "\r\n"))
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
	}
	p.closeTick()
	p.trim(opt.MaxTicks, opt.MaxValues)
	st := p.t.Stats
	switch {
	case len(p.t.Ticks) > 0:
		return p.t, nil
	case st.Lines == 0:
		return nil, noSchedLines("%s is empty; run the program with GODEBUG=schedtrace=1000", name)
	case st.Truncated > 0:
		return nil, noSchedLines("%s: %d SCHED lines, none complete enough to use (each lacks gomaxprocs, idleprocs, threads or runqueue)", name, st.Truncated)
	case st.Overlong == st.Lines:
		return nil, noSchedLines("%s: every line is longer than %d bytes; no GODEBUG=schedtrace line can be that long", name, maxLine)
	}
	return nil, noSchedLines("no GODEBUG=schedtrace lines found in %s (%d lines read); run the program with GODEBUG=schedtrace=1000", name, st.Lines)
}

// noSchedLinesError is what Read returns when nothing could be used; it
// matches ErrNoSchedLines with errors.Is.
type noSchedLinesError struct{ msg string }

func (e *noSchedLinesError) Error() string        { return e.msg }
func (e *noSchedLinesError) Is(target error) bool { return target == ErrNoSchedLines }

func noSchedLines(format string, args ...any) error {
	return &noSchedLinesError{fmt.Sprintf(format, args...)}
}

type parser struct {
	t      *Trace
	opt    ReadOptions
	values int // per-P values and reason counts held by t.Ticks
	lineNo int
	open   *Tick // the last tick, while scheddetail lines may still follow
	// overfull is set when the open tick got more P lines than Ps.
	overfull bool
	scratch  []int64 // reused by cutList
	slab32   []int32 // blocks the per-tick slices are cut from
	slabU32  []uint32
}

var (
	schedPrefix  = []byte("SCHED ")
	detailMarker = []byte(" gcwaiting=")
)

func (p *parser) line(b []byte) {
	p.lineNo = p.t.Stats.Lines
	if i := bytes.Index(b, schedPrefix); i >= 0 {
		p.closeTick()
		tk, ok := p.parseSched(b[i+len(schedPrefix):])
		if !ok {
			p.t.Stats.Truncated++
			return
		}
		tk.Line = p.lineNo
		p.t.Stats.SchedLines++
		// Trim with slack (twice the bounds), so that the copy is paid once
		// per MaxTicks ticks, not once per tick.
		if len(p.t.Ticks) >= 2*p.opt.MaxTicks || p.values >= 2*p.opt.MaxValues {
			p.trim(p.opt.MaxTicks, p.opt.MaxValues)
		}
		p.values += tickValues(&tk)
		p.t.Ticks = append(p.t.Ticks, tk)
		if tk.Detail != nil {
			p.open = &p.t.Ticks[len(p.t.Ticks)-1]
		} else if tk.LocalQueues == nil {
			p.t.Stats.PartialP++
		}
		return
	}
	if p.open != nil && p.detail(bytes.TrimLeft(b, " \t")) {
		p.t.Stats.DetailLines++
		return
	}
	p.t.Stats.Skipped++
}

// tickValues is what a tick holds beyond its fixed fields.
func tickValues(tk *Tick) int {
	n := len(tk.LocalQueues) + len(tk.SchedTicks)
	if d := tk.Detail; d != nil {
		n += len(d.Ps) + len(d.Gs.ByStatus) + len(d.Gs.ByWaitReason) + len(d.Gs.RunnableFrom)
	}
	return n
}

// trim drops the oldest ticks until at most maxTicks remain holding at most
// maxValues values. The last tick is always kept.
func (p *parser) trim(maxTicks, maxValues int) {
	ticks := p.t.Ticks
	k := max(0, len(ticks)-maxTicks)
	vals := 0
	for i := k; i < len(ticks); i++ {
		vals += tickValues(&ticks[i])
	}
	for k < len(ticks)-1 && vals > maxValues {
		vals -= tickValues(&ticks[k])
		k++
	}
	if k == 0 {
		return
	}
	open := -1
	if p.open != nil {
		open = len(ticks) - 1 // the open tick is always the last
	}
	n := copy(ticks, ticks[k:])
	clear(ticks[n:]) // let the dropped ticks' slices be collected
	p.t.Ticks = ticks[:n]
	p.t.Stats.Dropped += k
	p.values = vals
	if open >= 0 {
		p.open = &p.t.Ticks[n-1]
	}
}

// closeTick completes a scheddetail tick: its per-P queues and schedticks
// come from the P lines, and only when every P's line arrived.
func (p *parser) closeTick() {
	tk := p.open
	if tk == nil {
		return
	}
	p.open = nil
	ps := tk.Detail.Ps
	complete := len(ps) > 0 && len(ps) == tk.GOMAXPROCS && !p.overfull
	p.overfull = false
	for i, pl := range ps {
		if pl.ID != i {
			complete = false
		}
	}
	if !complete {
		p.t.Stats.PartialP++
		return
	}
	tk.LocalQueues = make([]int32, len(ps))
	tk.SchedTicks = make([]uint32, len(ps))
	for i, pl := range ps {
		tk.LocalQueues[i] = pl.RunqSize
		tk.SchedTicks[i] = pl.SchedTick
	}
}

// parseSched parses what follows "SCHED ". ok is false when the line lacks
// the time or a core field.
func (p *parser) parseSched(b []byte) (tk Tick, ok bool) {
	ms, rest, ok := cutInt(b)
	if !ok || !bytes.HasPrefix(rest, []byte("ms:")) {
		return tk, false
	}
	tk.Ms = ms
	tk.Spinning, tk.NeedSpinning, tk.IdleThreads = Absent, Absent, Absent
	have := 0
	const (
		hGOMAXPROCS = 1 << iota
		hIdle
		hThreads
		hRunq
		hCore = hGOMAXPROCS | hIdle | hThreads | hRunq
	)
	s := rest[len("ms:"):]
	var d *Detail
	for len(s) > 0 {
		if s[0] == ' ' {
			s = s[1:]
			continue
		}
		if s[0] == '[' {
			list, after, closed := cutList(s[1:], p.scratch[:0])
			p.scratch = list[:0]
			if closed && tk.LocalQueues == nil {
				tk.LocalQueues = cut(&p.slab32, len(list))
				for i, v := range list {
					tk.LocalQueues[i] = int32(min(v, runqCap))
				}
			}
			s = after
			continue
		}
		end := bytes.IndexByte(s, ' ')
		if end < 0 {
			end = len(s)
		}
		key, val, found := bytes.Cut(s[:end], []byte("="))
		if !found {
			s = s[end:]
			continue
		}
		if string(key) == "schedticks" && len(val) > 0 && val[0] == '[' {
			list, after, closed := cutList(s[len("schedticks=["):], p.scratch[:0])
			p.scratch = list[:0]
			if closed {
				tk.SchedTicks = cut(&p.slabU32, len(list))
				for i, v := range list {
					tk.SchedTicks[i] = uint32(v)
				}
			}
			s = after
			continue
		}
		s = s[end:]
		v, tail, vok := cutInt(val)
		switch string(val) { // scheddetail prints gcwaiting and sysmonwait as bools
		case "true":
			v, tail, vok = 1, nil, true
		case "false":
			v, tail, vok = 0, nil, true
		}
		if !vok || len(tail) > 0 || v > 1<<31-1 {
			// A value cut or glued to foreign output: a core field lost
			// this way makes the line unusable, checked below.
			continue
		}
		n := int(v)
		switch string(key) {
		case "gomaxprocs":
			tk.GOMAXPROCS, have = n, have|hGOMAXPROCS
		case "idleprocs":
			tk.IdleProcs, have = n, have|hIdle
		case "threads":
			tk.Threads, have = n, have|hThreads
		case "spinningthreads":
			tk.Spinning = n
		case "needspinning":
			tk.NeedSpinning = n
		case "idlethreads":
			tk.IdleThreads = n
		case "runqueue":
			tk.RunQueue, have = n, have|hRunq
		case "gcwaiting":
			d = detailOf(d)
			d.GCWaiting = n
		case "nmidlelocked":
			d = detailOf(d)
			d.NMIdleLocked = n
		case "stopwait":
			d = detailOf(d)
			d.StopWait = n
		case "sysmonwait":
			d = detailOf(d)
			d.SysmonWait = n
		}
	}
	if have != hCore || tk.GOMAXPROCS <= 0 {
		return tk, false
	}
	if d != nil {
		tk.Detail = d
		tk.LocalQueues = nil // a detailed line has no list; the P lines give it
	}
	return tk, true
}

func detailOf(d *Detail) *Detail {
	if d == nil {
		d = &Detail{Gs: GCounts{ByStatus: map[string]int{}}}
	}
	return d
}

// cutList appends to list the space-separated non-negative integers up to
// ']'. closed is false when the list ends without ']' or holds something
// else.
func cutList(b []byte, list []int64) (_ []int64, rest []byte, closed bool) {
	for len(b) > 0 {
		switch b[0] {
		case ' ':
			b = b[1:]
			continue
		case ']':
			return list, b[1:], true
		}
		v, tail, ok := cutInt(b)
		if !ok || (len(tail) > 0 && tail[0] != ' ' && tail[0] != ']') {
			return list, skipField(b), false
		}
		list = append(list, v)
		b = tail
	}
	return list, b, false
}

// slabSize is how many per-P values the parser allocates at once: the
// per-tick slices are cut from shared blocks, so a long input costs a few
// large allocations instead of two small ones per tick.
const slabSize = 4096

// cut returns n values cut from *slab, refilling it when it runs short.
func cut[T any](slab *[]T, n int) []T {
	if n > slabSize/4 {
		return make([]T, n)
	}
	if len(*slab) < n {
		*slab = make([]T, slabSize)
	}
	out := (*slab)[:n:n]
	*slab = (*slab)[n:]
	return out
}

// skipField skips to the next space.
func skipField(b []byte) []byte {
	if i := bytes.IndexByte(b, ' '); i >= 0 {
		return b[i:]
	}
	return nil
}

// cutInt reads a non-negative decimal integer at the start of b. It refuses
// values above 2^40 (no counter gets there; a longer run of digits is two
// numbers glued together).
func cutInt(b []byte) (v int64, rest []byte, ok bool) {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		v = v*10 + int64(b[i]-'0')
		i++
		if v > 1<<40 {
			return 0, b, false
		}
	}
	return v, b[i:], i > 0
}

// detail parses a scheddetail line (leading spaces removed) into the open
// tick. It returns false for a line that is not one.
func (p *parser) detail(b []byte) bool {
	if len(b) < 3 {
		return false
	}
	kind := b[0]
	if kind != 'P' && kind != 'M' && kind != 'G' {
		return false
	}
	id, rest, ok := cutInt(b[1:])
	if !ok || !bytes.HasPrefix(rest, []byte(": ")) {
		return false
	}
	rest = rest[2:]
	d := p.open.Detail
	switch kind {
	case 'P':
		pl, ok := parsePLine(int(id), rest)
		if !ok {
			return false
		}
		if p.overfull || len(d.Ps) >= p.open.GOMAXPROCS {
			// More P lines than Ps: foreign or repeated output. Keeping
			// them would let one tick grow without bound; the tick's
			// per-P figures are dropped as incomplete.
			p.t.Stats.ExtraDetail++
			p.values -= len(d.Ps)
			d.Ps, p.overfull = nil, true
			return true
		}
		d.Ps = append(d.Ps, pl)
		p.values++
	case 'M':
		fields := keyValues(rest)
		if _, ok := fields["p"]; !ok {
			return false
		}
		m := &d.Ms
		m.Total++
		if !isNil(fields["p"]) {
			m.WithP++
		}
		if v, ok := fields["curg"]; ok && !isNil(v) {
			m.Running++
		}
		if isTrue(fields["spinning"]) {
			m.Spinning++
		}
		if isTrue(fields["blocked"]) {
			m.Blocked++
		}
		if v, ok := fields["lockedg"]; ok && !isNil(v) {
			m.Locked++
		}
	case 'G':
		status, reason, ok := parseGStatus(rest)
		if !ok {
			return false
		}
		g := &d.Gs
		g.Total++
		g.ByStatus[status]++
		var full bool
		before := len(g.ByStatus) + len(g.ByWaitReason) + len(g.RunnableFrom)
		defer func() { p.values += len(g.ByStatus) + len(g.ByWaitReason) + len(g.RunnableFrom) - before }()
		switch {
		case reason == "":
		case status == "waiting" || status == "leaked":
			g.ByWaitReason, full = addCount(g.ByWaitReason, reason)
		case status == "runnable":
			g.RunnableFrom, full = addCount(g.RunnableFrom, reason)
		}
		if full {
			p.t.Stats.ExtraDetail++
		}
	}
	return true
}

func isNil(v string) bool { return v == "" || v == "nil" || v == "-1" }

// isTrue reads a flag printed as a bool, or as 0/1 by the C runtime.
func isTrue(v string) bool { return v == "true" || v == "1" }

// keyValues splits "k=v k=v" (values without spaces).
func keyValues(b []byte) map[string]string {
	out := map[string]string{}
	for _, f := range bytes.Fields(b) {
		if k, v, ok := bytes.Cut(f, []byte("=")); ok {
			out[string(k)] = string(v)
		}
	}
	return out
}

// pStatus names runtime P states (runtime2.go); 2 was _Psyscall before Go 1.26.
var pStatus = [...]string{"idle", "running", "syscall", "gcstop", "dead"}

func parsePLine(id int, b []byte) (PLine, bool) {
	pl := PLine{ID: id, M: -1}
	fields := keyValues(b)
	st, ok := fields["status"]
	if !ok {
		return pl, false
	}
	n, rest, ok := cutInt([]byte(st))
	if !ok || len(rest) > 0 {
		return pl, false
	}
	if int(n) < len(pStatus) {
		pl.Status = pStatus[n]
	} else {
		pl.Status = fmt.Sprintf("status %d", n)
	}
	num := func(k string) (int64, bool) {
		v, rest, ok := cutInt([]byte(fields[k]))
		return v, ok && len(rest) == 0
	}
	v, ok := num("runqsize")
	if !ok {
		return pl, false // cut before the queue length: useless for the series
	}
	pl.RunqSize = int32(min(v, runqCap))
	if v, ok := num("schedtick"); ok {
		pl.SchedTick = uint32(v)
	}
	if v, ok := num("syscalltick"); ok {
		pl.SyscallTick = uint32(v)
	}
	if v, ok := num("m"); ok {
		pl.M = int(v)
	}
	if v, ok := num("gfreecnt"); ok {
		pl.GFreeCnt = int(v)
	}
	if v, ok := num("timerslen"); ok {
		pl.TimersLen = int(v)
	}
	return pl, true
}

// gStatus names runtime G states (runtime2.go), without the _Gscan bit.
var gStatus = [...]string{"idle", "runnable", "running", "syscall", "waiting", "moribund", "dead", "enqueue", "copystack", "preempted", "leaked", "deadextra"}

// parseGStatus reads "status=4(chan receive) m=nil lockedm=nil". Wait
// reasons hold spaces and parentheses ("force gc (idle)"), so the reason
// ends at the last ") m=".
func parseGStatus(b []byte) (status, reason string, ok bool) {
	b, ok = bytes.CutPrefix(b, []byte("status="))
	if !ok {
		return "", "", false
	}
	n, rest, ok := cutInt(b)
	if !ok {
		return "", "", false
	}
	n &^= 0x1000 // _Gscan
	if int(n) < len(gStatus) {
		status = gStatus[n]
	} else {
		status = fmt.Sprintf("status %d", n)
	}
	if r, found := bytes.CutPrefix(rest, []byte("(")); found {
		if i := bytes.LastIndex(r, []byte(") m=")); i >= 0 {
			reason = string(r[:i])
		} else if i := bytes.LastIndexByte(r, ')'); i >= 0 {
			reason = string(r[:i])
		}
	}
	return status, reason, true
}

// addCount counts k in m, unless m already holds maxReasons other keys
// (full is then true and k is not counted): wait reasons are a fixed set,
// and thousands of distinct ones are foreign text, not the runtime's.
func addCount(m map[string]int, k string) (_ map[string]int, full bool) {
	if m == nil {
		m = map[string]int{}
	}
	if _, ok := m[k]; !ok && len(m) >= maxReasons {
		return m, true
	}
	m[k]++
	return m, false
}
