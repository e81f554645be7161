package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/safewrite"
)

// Snapshot files are named by time and trigger:
// 20261123T111500.123Z-runnable.trace. Only names of this form are ever
// listed, served or removed, so other files in Dir are left alone and a
// request cannot name a path outside it.
const nameLayout = "20060102T150405.000Z"

var nameRE = regexp.MustCompile(`^(\d{8}T\d{6}\.\d{3}Z)-([a-z]+)\.trace$`)

func snapshotName(at time.Time, kind string) string {
	return at.UTC().Format(nameLayout) + "-" + kind + ".trace"
}

// diagnoseTimeout bounds one background diagnosis.
const diagnoseTimeout = 2 * time.Minute

// adopt opens Dir (safewrite.OpenOwned: created 0700 when missing; refused
// when it is a link, another user's, or writable by group or others, for
// whoever can write there can swap a snapshot for a link to the service's
// secrets) and lists the snapshots an earlier run left there, so that the
// bounds on count and bytes hold across restarts. It reports whether Dir
// is usable; when not, State.DirRefused says why.
func (m *Monitor) adopt() bool {
	d, err := safewrite.OpenOwned(m.o.Dir)
	if err != nil {
		m.st.DirRefused = err.Error()
		m.errLocked(fmt.Sprintf("snapshot dir refused: %v", err))
		return false
	}
	m.dir = d
	names, err := d.Names()
	if err != nil {
		m.errLocked(fmt.Sprintf("listing snapshot dir: %v", err))
		return true
	}
	for _, name := range names {
		sub := nameRE.FindStringSubmatch(name)
		if sub == nil {
			continue
		}
		// Open (no link followed, regular files only) for the size.
		f, err := d.Open(name)
		if err != nil {
			continue
		}
		info, err := f.Stat()
		f.Close()
		if err != nil {
			continue
		}
		at, _ := time.Parse(nameLayout, sub[1])
		m.snaps = append(m.snaps, &Snapshot{Name: name, Trigger: sub[2], Time: at, Bytes: info.Size(),
			Diagnosis: "none", Why: "left by an earlier run"})
	}
	slices.SortFunc(m.snaps, func(a, b *Snapshot) int { return strings.Compare(a.Name, b.Name) })
	return true
}

func (m *Monitor) worker(ctx context.Context) {
	defer m.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case j := <-m.work:
			if !m.settle(ctx, j) {
				return
			}
			m.snapshot(ctx, j)
			m.mu.Lock()
			m.busy = false
			m.mu.Unlock()
		}
	}
}

// settle waits, after a latency or runnable trigger, until goroutines no
// longer queue (no more runnable goroutines than Ps at a reading), at most
// SnapshotDelay, so that the snapshot ends with the trouble and its window
// holds as much of it as it can. Growth triggers are slow trends: their
// snapshot is taken at once. It returns false when ctx ended.
func (m *Monitor) settle(ctx context.Context, j job) bool {
	if m.o.SnapshotDelay <= 0 || (j.kind != "latency" && j.kind != "runnable") {
		return ctx.Err() == nil
	}
	deadline := time.NewTimer(m.o.SnapshotDelay)
	defer deadline.Stop()
	// A quarter interval: the snapshot follows the first reading without
	// a queue by at most that.
	poll := time.NewTicker(max(m.o.Interval/4, 10*time.Millisecond))
	defer poll.Stop()
	for {
		m.mu.Lock()
		queued := m.st.GOMAXPROCS > 0 && m.st.Goroutines.Runnable > m.st.GOMAXPROCS
		m.mu.Unlock()
		if !queued {
			return ctx.Err() == nil
		}
		select {
		case <-ctx.Done():
			return false
		case <-deadline.C:
			return true
		case <-poll.C:
		}
	}
}

// snapshot writes the flight recorder's window to Dir and diagnoses it.
func (m *Monitor) snapshot(ctx context.Context, j job) {
	defer m.guard("snapshot")
	name := snapshotName(j.at, j.kind)
	n, err := m.write(name)
	if err != nil {
		m.record(fmt.Errorf("writing snapshot %s for trigger %s: %w", name, j.kind, err))
		return
	}
	s := &Snapshot{Name: name, Trigger: j.kind, Time: j.at, Bytes: n, Why: j.why, Diagnosis: "none"}
	if m.o.Diagnose != nil {
		s.Diagnosis = "pending"
	}
	m.mu.Lock()
	m.written++
	m.snaps = append(m.snaps, s)
	m.trimLocked(name, 0)
	m.mu.Unlock()
	m.logf("live: snapshot %s (%d bytes) for trigger %s: %s", name, n, j.kind, j.why)
	if m.o.Diagnose == nil {
		return
	}
	fs, err := m.diagnose(ctx, filepath.Join(m.o.Dir, name))
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		s.Diagnosis = "failed: " + err.Error()
		m.errLocked(fmt.Sprintf("diagnosing snapshot %s: %v", name, err))
		return
	}
	for i := range fs {
		fs[i].Note(finding.NoteLink, "snapshot "+name)
	}
	s.Findings = fs
	s.Diagnosis = "done"
}

func (m *Monitor) diagnose(ctx context.Context, path string) (fs []finding.Finding, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("diagnosis panicked: %v", r)
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, diagnoseTimeout)
	defer cancel()
	return m.o.Diagnose(ctx, path)
}

// errTooBig ends a snapshot larger than the per-file bound.
var errTooBig = errors.New("snapshot exceeds its size bound")

type limitWriter struct {
	w     io.Writer
	left  int64
	bound int64
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.left {
		return 0, fmt.Errorf("%w of %d bytes", errTooBig, l.bound)
	}
	n, err := l.w.Write(p)
	l.left -= int64(n)
	return n, err
}

// write makes room in Dir, then writes the flight recorder's window to
// name, 0600, through a temporary name so a reader never sees half a file.
// Room is made for the largest snapshot seen so far (at first,
// FlightRecorderBytes), so small snapshots do not evict each other; the
// write itself is cut at the room really left, so Dir never exceeds
// MaxSnapshotBytes, and a snapshot that does not fit is abandoned (and
// the next one makes room for its size).
func (m *Monitor) write(name string) (int64, error) {
	m.mu.Lock()
	expect := m.largest
	if expect == 0 {
		expect = m.o.FlightRecorderBytes
	}
	expect = min(expect, m.o.MaxSnapshotBytes)
	m.trimLocked("", expect)
	var kept int64
	for _, s := range m.snaps {
		kept += s.Bytes
	}
	m.mu.Unlock()
	bound := min(4*m.o.FlightRecorderBytes, m.o.MaxSnapshotBytes-kept)
	if bound <= 0 {
		return 0, fmt.Errorf("no room left under MaxSnapshotBytes (%d bytes kept)", kept)
	}

	// Only the worker writes, and Stop closes dir after the worker ended.
	m.mu.Lock()
	d := m.dir
	m.mu.Unlock()
	if d == nil {
		return 0, errors.New("no snapshot directory")
	}
	tmp := name + ".partial"
	f, err := d.Create(tmp)
	if err != nil {
		return 0, err
	}
	n, err := m.fr.WriteTo(&limitWriter{w: f, left: bound, bound: bound})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.Rename(tmp, name)
	}
	if err != nil {
		d.Remove(tmp)
		if errors.Is(err, errTooBig) {
			m.mu.Lock()
			m.largest = max(m.largest, bound+1)
			m.mu.Unlock()
		}
		return 0, err
	}
	m.mu.Lock()
	m.largest = max(m.largest, n)
	m.mu.Unlock()
	return n, nil
}

// trimLocked removes the oldest snapshots until there is room for one more
// of up to room bytes, never removing keep.
func (m *Monitor) trimLocked(keep string, room int64) {
	count := len(m.snaps)
	if room > 0 {
		count++ // the one about to be written
	}
	var total int64
	for _, s := range m.snaps {
		total += s.Bytes
	}
	for len(m.snaps) > 0 && (count > m.o.MaxSnapshots || total+room > m.o.MaxSnapshotBytes) {
		i := 0
		if m.snaps[0].Name == keep {
			if len(m.snaps) == 1 {
				return
			}
			i = 1
		}
		old := m.snaps[i]
		if m.dir == nil {
			return
		}
		if err := m.dir.Remove(old.Name); err != nil && !errors.Is(err, os.ErrNotExist) {
			m.errLocked(fmt.Sprintf("removing old snapshot: %v", err))
			return
		}
		m.snaps = slices.Delete(m.snaps, i, i+1)
		total -= old.Bytes
		count--
	}
}

// open returns the snapshot file called name, if the monitor wrote it (or
// adopted it) and lists it, and its name has the snapshots' form.
func (m *Monitor) open(name string) (*os.File, *Snapshot, error) {
	m.mu.Lock()
	var snap *Snapshot
	for _, s := range m.snaps {
		if s.Name == name {
			c := *s
			snap = &c
		}
	}
	if snap == nil || !nameRE.MatchString(name) || m.dir == nil {
		m.mu.Unlock()
		return nil, nil, os.ErrNotExist
	}
	// Under mu, so that Stop does not close dir meanwhile. Relative to
	// dir's descriptor, no link followed, regular files only: whatever
	// replaced a snapshot, the route serves no other file.
	f, err := m.dir.Open(name)
	m.mu.Unlock()
	return f, snap, err
}
