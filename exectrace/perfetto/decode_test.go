package perfetto

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// A wire decoder for what the export writes, written apart from the
// encoder and keyed by the field numbers of Perfetto's own protos
// (google/perfetto ec5d16b14b743ba6063d720956d6d6af6610fd72,
// protos/perfetto/trace/...), spelled out here rather than taken from
// proto.go's constants: a wrong number in the encoder must fail here. It
// is strict: a field the export does not write, a wire type the proto
// does not give the field, an event on an undeclared track, an end
// without a begin or a slice left open is an error.

type field struct {
	num  int
	wire int
	v    uint64 // varint and fixed64
	b    []byte // length-delimited
}

func fields(b []byte) ([]field, error) {
	var out []field
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, fmt.Errorf("bad tag")
		}
		b = b[n:]
		f := field{num: int(tag >> 3), wire: int(tag & 7)}
		switch f.wire {
		case 0:
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return nil, fmt.Errorf("field %d: bad varint", f.num)
			}
			f.v, b = v, b[n:]
		case 1:
			if len(b) < 8 {
				return nil, fmt.Errorf("field %d: short fixed64", f.num)
			}
			f.v, b = binary.LittleEndian.Uint64(b), b[8:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				return nil, fmt.Errorf("field %d: bad length", f.num)
			}
			f.b, b = b[n:n+int(l)], b[n+int(l):]
		default:
			return nil, fmt.Errorf("field %d: wire type %d", f.num, f.wire)
		}
		out = append(out, f)
	}
	return out, nil
}

// want checks a field's wire type against the proto's.
func want(f field, msg string, wire int) error {
	if f.wire != wire {
		return fmt.Errorf("%s field %d: wire type %d, the proto says %d", msg, f.num, f.wire, wire)
	}
	return nil
}

type dTrack struct {
	uuid, parent uint64
	name, desc   string
	unit         uint64 // CounterDescriptor.unit; 0: not a counter
	counter      bool
	rank         int64
	explicit     bool
}

type dAnnot struct {
	name string
	i    int64
	s    string
	str  bool
}

type dEvent struct {
	ts     uint64
	typ    uint64
	track  uint64
	name   string
	value  int64
	annots []dAnnot
	flows  []uint64
	ends   []uint64
}

func (e dEvent) annot(name string) (dAnnot, bool) {
	for _, a := range e.annots {
		if a.name == name {
			return a, true
		}
	}
	return dAnnot{}, false
}

type dSlice struct {
	track      uint64
	name       string
	start, end uint64
	begin      dEvent
	depth      int
}

type dFlow struct {
	id    uint64
	steps []dSlice // the slices (or instants, as 0-length slices) it passes, in order
	ended bool
}

type decoded struct {
	packets  int
	tracks   map[uint64]*dTrack
	order    []uint64 // tracks in declaration order
	slices   []dSlice // in order of their begin
	instants []dSlice
	counters map[uint64][]dEvent
	flows    map[uint64]*dFlow
	byTrack  map[uint64][]dSlice // depth-0 slices per track, for enclosing
}

func (d *decoded) byName(name string) []*dTrack {
	var out []*dTrack
	for _, u := range d.order {
		if d.tracks[u].name == name {
			out = append(out, d.tracks[u])
		}
	}
	return out
}

func (d *decoded) children(parent uint64) []*dTrack {
	var out []*dTrack
	for _, u := range d.order {
		if d.tracks[u].parent == parent {
			out = append(out, d.tracks[u])
		}
	}
	return out
}

// decode parses a Trace and replays its events: slices nest per track,
// flows follow the trace processor's rule (flow_ids begins a flow or
// steps an active one; terminating_flow_ids ends an active one).
func decode(b []byte) (*decoded, error) {
	d := &decoded{tracks: map[uint64]*dTrack{}, counters: map[uint64][]dEvent{}, flows: map[uint64]*dFlow{}}
	top, err := fields(b)
	if err != nil {
		return nil, fmt.Errorf("Trace: %w", err)
	}
	open := map[uint64][]dSlice{}
	var lastTS uint64
	for i, f := range top {
		if f.num != 1 { // Trace.packet
			return nil, fmt.Errorf("Trace: field %d", f.num)
		}
		if err := want(f, "Trace", 2); err != nil {
			return nil, err
		}
		pf, err := fields(f.b)
		if err != nil {
			return nil, fmt.Errorf("packet %d: %w", i, err)
		}
		var ts, seq, flags uint64
		var hasTS bool
		var te, td []byte
		for _, p := range pf {
			switch p.num {
			case 8: // timestamp
				ts, hasTS = p.v, true
				err = want(p, "TracePacket", 0)
			case 10: // trusted_packet_sequence_id
				seq = p.v
				err = want(p, "TracePacket", 0)
			case 13: // sequence_flags
				flags = p.v
				err = want(p, "TracePacket", 0)
			case 11: // track_event
				te = p.b
				err = want(p, "TracePacket", 2)
			case 60: // track_descriptor
				td = p.b
				err = want(p, "TracePacket", 2)
			default:
				return nil, fmt.Errorf("packet %d: field %d", i, p.num)
			}
			if err != nil {
				return nil, fmt.Errorf("packet %d: %w", i, err)
			}
		}
		if seq == 0 {
			return nil, fmt.Errorf("packet %d: no trusted_packet_sequence_id", i)
		}
		if (i == 0) != (flags == 1) { // SEQ_INCREMENTAL_STATE_CLEARED on the first packet only
			return nil, fmt.Errorf("packet %d: sequence_flags %d", i, flags)
		}
		if !hasTS {
			return nil, fmt.Errorf("packet %d: no timestamp", i)
		}
		if ts < lastTS {
			return nil, fmt.Errorf("packet %d: timestamp %d before the last, %d", i, ts, lastTS)
		}
		lastTS = ts
		d.packets++
		switch {
		case td != nil && te == nil:
			t, err := decodeTrack(td)
			if err != nil {
				return nil, fmt.Errorf("packet %d: %w", i, err)
			}
			if d.tracks[t.uuid] != nil {
				return nil, fmt.Errorf("packet %d: track %#x declared twice", i, t.uuid)
			}
			if t.parent != 0 && d.tracks[t.parent] == nil {
				return nil, fmt.Errorf("packet %d: track %q under undeclared parent %#x", i, t.name, t.parent)
			}
			d.tracks[t.uuid] = t
			d.order = append(d.order, t.uuid)
		case te != nil && td == nil:
			e, err := decodeEvent(te)
			if err != nil {
				return nil, fmt.Errorf("packet %d: %w", i, err)
			}
			e.ts = ts
			t := d.tracks[e.track]
			if t == nil {
				return nil, fmt.Errorf("packet %d: event on undeclared track %#x", i, e.track)
			}
			if (e.typ == 4) != t.counter {
				return nil, fmt.Errorf("packet %d: event type %d on track %q (counter: %v)", i, e.typ, t.name, t.counter)
			}
			var s dSlice
			switch e.typ {
			case 1: // TYPE_SLICE_BEGIN
				s = dSlice{track: e.track, name: e.name, start: ts, begin: e, depth: len(open[e.track])}
				open[e.track] = append(open[e.track], s)
				d.slices = append(d.slices, s)
			case 2: // TYPE_SLICE_END
				st := open[e.track]
				if len(st) == 0 {
					return nil, fmt.Errorf("packet %d: end on track %q with no open slice", i, t.name)
				}
				open[e.track] = st[:len(st)-1]
				for j := len(d.slices) - 1; j >= 0; j-- {
					if d.slices[j].track == e.track && d.slices[j].depth == len(st)-1 && d.slices[j].end == 0 && d.slices[j].start == st[len(st)-1].start {
						d.slices[j].end = ts
						break
					}
				}
				continue
			case 3: // TYPE_INSTANT
				s = dSlice{track: e.track, name: e.name, start: ts, end: ts, begin: e, depth: len(open[e.track])}
				d.instants = append(d.instants, s)
			case 4: // TYPE_COUNTER
				d.counters[e.track] = append(d.counters[e.track], e)
				continue
			default:
				return nil, fmt.Errorf("packet %d: event type %d", i, e.typ)
			}
			for _, id := range e.flows {
				fl := d.flows[id]
				if fl == nil || fl.ended {
					fl = &dFlow{id: id}
					d.flows[id] = fl
				}
				fl.steps = append(fl.steps, s)
			}
			for _, id := range e.ends {
				fl := d.flows[id]
				if fl == nil || fl.ended {
					continue // the trace processor ignores the end of a flow not active
				}
				fl.steps = append(fl.steps, s)
				fl.ended = true
			}
		default:
			return nil, fmt.Errorf("packet %d: neither one event nor one descriptor", i)
		}
	}
	for u, st := range open {
		if len(st) > 0 {
			return nil, fmt.Errorf("track %q: %d slices left open", d.tracks[u].name, len(st))
		}
	}
	return d, nil
}

func decodeTrack(b []byte) (*dTrack, error) {
	fs, err := fields(b)
	if err != nil {
		return nil, fmt.Errorf("TrackDescriptor: %w", err)
	}
	t := &dTrack{}
	for _, f := range fs {
		switch f.num {
		case 1: // uuid
			t.uuid, err = f.v, want(f, "TrackDescriptor", 0)
		case 2: // name
			t.name, err = string(f.b), want(f, "TrackDescriptor", 2)
		case 5: // parent_uuid
			t.parent, err = f.v, want(f, "TrackDescriptor", 0)
		case 14: // description
			t.desc, err = string(f.b), want(f, "TrackDescriptor", 2)
		case 11: // child_ordering
			t.explicit, err = f.v == 3, want(f, "TrackDescriptor", 0)
		case 12: // sibling_order_rank (int32)
			t.rank, err = int64(int32(f.v)), want(f, "TrackDescriptor", 0)
		case 8: // counter: CounterDescriptor
			if err = want(f, "TrackDescriptor", 2); err != nil {
				break
			}
			t.counter = true
			cf, cerr := fields(f.b)
			if cerr != nil {
				return nil, fmt.Errorf("CounterDescriptor: %w", cerr)
			}
			for _, c := range cf {
				if c.num != 3 { // unit
					return nil, fmt.Errorf("CounterDescriptor: field %d", c.num)
				}
				t.unit, err = c.v, want(c, "CounterDescriptor", 0)
			}
		default:
			return nil, fmt.Errorf("TrackDescriptor: field %d", f.num)
		}
		if err != nil {
			return nil, err
		}
	}
	if t.uuid == 0 {
		return nil, fmt.Errorf("TrackDescriptor %q: no uuid", t.name)
	}
	return t, nil
}

func decodeEvent(b []byte) (dEvent, error) {
	fs, err := fields(b)
	if err != nil {
		return dEvent{}, fmt.Errorf("TrackEvent: %w", err)
	}
	var e dEvent
	for _, f := range fs {
		switch f.num {
		case 9: // type
			e.typ, err = f.v, want(f, "TrackEvent", 0)
		case 11: // track_uuid
			e.track, err = f.v, want(f, "TrackEvent", 0)
		case 23: // name
			e.name, err = string(f.b), want(f, "TrackEvent", 2)
		case 30: // counter_value (int64)
			e.value, err = int64(f.v), want(f, "TrackEvent", 0)
		case 47: // flow_ids (repeated fixed64)
			e.flows, err = append(e.flows, f.v), want(f, "TrackEvent", 1)
		case 48: // terminating_flow_ids (repeated fixed64)
			e.ends, err = append(e.ends, f.v), want(f, "TrackEvent", 1)
		case 4: // debug_annotations
			if err = want(f, "TrackEvent", 2); err != nil {
				break
			}
			a, aerr := decodeAnnot(f.b)
			if aerr != nil {
				return e, aerr
			}
			e.annots = append(e.annots, a)
		default:
			return e, fmt.Errorf("TrackEvent: field %d", f.num)
		}
		if err != nil {
			return e, err
		}
	}
	return e, nil
}

func decodeAnnot(b []byte) (dAnnot, error) {
	fs, err := fields(b)
	if err != nil {
		return dAnnot{}, fmt.Errorf("DebugAnnotation: %w", err)
	}
	var a dAnnot
	for _, f := range fs {
		switch f.num {
		case 10: // name
			a.name, err = string(f.b), want(f, "DebugAnnotation", 2)
		case 4: // int_value
			a.i, err = int64(f.v), want(f, "DebugAnnotation", 0)
		case 6: // string_value
			a.s, a.str, err = string(f.b), true, want(f, "DebugAnnotation", 2)
		default:
			return a, fmt.Errorf("DebugAnnotation: field %d", f.num)
		}
		if err != nil {
			return a, err
		}
	}
	return a, nil
}

// dump writes the decoded trace as text, for the golden files: the
// tracks as a tree, then every event in time order with its track's
// name. Flow ids are renumbered in order of appearance.
func (d *decoded) dump() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d packets\n", d.packets)
	var tree func(parent uint64, indent string)
	tree = func(parent uint64, indent string) {
		kids := d.children(parent)
		if parent != 0 && d.tracks[parent].explicit {
			sort.SliceStable(kids, func(i, j int) bool { return kids[i].rank < kids[j].rank })
		}
		for _, t := range kids {
			kind := ""
			if t.counter {
				kind = fmt.Sprintf(" [counter unit %d]", t.unit)
			}
			fmt.Fprintf(&b, "%strack %q%s\n", indent, t.name, kind)
			tree(t.uuid, indent+"  ")
		}
	}
	tree(0, "")
	type line struct {
		ts  uint64
		seq int
		s   string
	}
	var lines []line
	flowNum := map[uint64]int{}
	fl := func(ids []uint64) string {
		var s []string
		for _, id := range ids {
			if _, ok := flowNum[id]; !ok {
				flowNum[id] = len(flowNum) + 1
			}
			s = append(s, fmt.Sprint(flowNum[id]))
		}
		return strings.Join(s, ",")
	}
	annots := func(e dEvent) string {
		var s []string
		for _, a := range e.annots {
			if a.str {
				s = append(s, fmt.Sprintf("%s=%q", a.name, a.s))
			} else {
				s = append(s, fmt.Sprintf("%s=%d", a.name, a.i))
			}
		}
		return strings.Join(s, " ")
	}
	all := append(slices.Clone(d.slices), d.instants...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].start < all[j].start })
	for i, s := range all {
		kind := "slice"
		if s.begin.typ == 3 {
			kind = "instant"
		}
		l := fmt.Sprintf("%12d %-7s %-12q %q", s.start, kind, d.tracks[s.track].name, s.name)
		if kind == "slice" {
			l += fmt.Sprintf(" dur=%d", s.end-s.start)
		}
		if a := annots(s.begin); a != "" {
			l += " " + a
		}
		if len(s.begin.flows) > 0 {
			l += " flow=" + fl(s.begin.flows)
		}
		if len(s.begin.ends) > 0 {
			l += " endflow=" + fl(s.begin.ends)
		}
		lines = append(lines, line{s.start, i, l})
	}
	for _, u := range d.order {
		for _, e := range d.counters[u] {
			lines = append(lines, line{e.ts, math.MaxInt, fmt.Sprintf("%12d counter %q = %d", e.ts, d.tracks[u].name, e.value)})
		}
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].ts < lines[j].ts })
	for _, l := range lines {
		b.WriteString(l.s)
		b.WriteByte('\n')
	}
	return b.String()
}
