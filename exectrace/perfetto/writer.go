package perfetto

import (
	"bufio"
	"io"

	"github.com/schedoctor/schedoctor/internal/pbwire"
)

// sequenceID is the trusted_packet_sequence_id of every packet: one
// writer, one sequence, in time order.
const sequenceID = 1

// Bounds on what closing the window costs, kept free under the size
// limit while the window is written: an end packet is at most
// maxEndPacket bytes (two tags and lengths framing it, a timestamp and a
// track's uuid as full varints, the type, the sequence id and flags), and
// the note that says the window was cut, with its track, fits in
// noteReserve.
const (
	maxEndPacket = 2 + 2*pbwire.MaxVarint + 1 + pbwire.MaxVarint + 2*2 + 2 + 2 + 2
	noteReserve  = 1024
)

// writer frames packets into a Trace (each a `repeated TracePacket packet
// = 1` field, so the file is a concatenation of them) and keeps the
// output under its limit: a packet that would leave too little room to
// end the open slices and say so is refused, and the caller cuts there.
type writer struct {
	w       *bufio.Writer
	max     int64
	n       int64
	packets int
	open    int   // slices begun and not ended: each needs an end packet
	err     error // the first write error

	pkt, frame []byte // scratch
}

func newWriter(w io.Writer, max int64) *writer {
	return &writer{w: bufio.NewWriterSize(w, 64<<10), max: max}
}

// reserve is what closing the window may still write.
func (w *writer) reserve() int64 { return int64(w.open)*maxEndPacket + noteReserve }

// packet writes one TracePacket holding msg as field (a TrackEvent or a
// TrackDescriptor) at ts. Unless closing, it refuses (false) a packet
// that would leave less than the reserve under the limit.
func (w *writer) packet(ts uint64, field int, msg []byte, closing bool) bool {
	if w.err != nil {
		return false
	}
	p := pbwire.AppendUint(w.pkt[:0], fPacketTimestamp, ts)
	p = pbwire.AppendUint(p, fPacketSequenceID, sequenceID)
	if w.packets == 0 {
		// No interned data or incremental timestamps are used, but the
		// trace processor drops the packets of a sequence until it is
		// told the incremental state is valid.
		p = pbwire.AppendUint(p, fPacketSeqFlags, seqIncrementalStateCleared)
	}
	p = pbwire.AppendBytes(p, field, msg)
	w.pkt = p
	w.frame = pbwire.AppendBytes(w.frame[:0], fTracePacket, p)
	if !closing && w.n+int64(len(w.frame))+w.reserve() > w.max {
		return false
	}
	if _, err := w.w.Write(w.frame); err != nil {
		w.err = err
		return false
	}
	w.n += int64(len(w.frame))
	w.packets++
	return true
}

func (w *writer) flush() error {
	if w.err != nil {
		return w.err
	}
	w.err = w.w.Flush()
	return w.err
}

// annot is a debug annotation: a name and an integer or a string.
type annot struct {
	name  string
	i     int64
	s     string
	isStr bool
}

// event is a TrackEvent to encode.
type event struct {
	typ    int
	track  uint64
	name   string
	value  int64 // counters
	annots []annot
	flows  []uint64 // flow_ids: begins or steps a flow
	ends   []uint64 // terminating_flow_ids
}

func appendEvent(b []byte, e *event) []byte {
	b = pbwire.AppendUint(b, fEventType, uint64(e.typ))
	b = pbwire.AppendUint(b, fEventTrackUUID, e.track)
	if e.name != "" {
		b = pbwire.AppendString(b, fEventName, e.name)
	}
	if e.typ == typeCounter {
		b = pbwire.AppendInt(b, fEventCounterValue, e.value)
	}
	for _, a := range e.annots {
		var m []byte
		m = pbwire.AppendString(m, fAnnotName, a.name)
		if a.isStr {
			m = pbwire.AppendString(m, fAnnotStringValue, a.s)
		} else {
			m = pbwire.AppendInt(m, fAnnotIntValue, a.i)
		}
		b = pbwire.AppendBytes(b, fEventDebugAnnotation, m)
	}
	for _, f := range e.flows {
		b = pbwire.AppendFixed64(b, fEventFlowIDs, f)
	}
	for _, f := range e.ends {
		b = pbwire.AppendFixed64(b, fEventTerminatingFlow, f)
	}
	return b
}

// track is a TrackDescriptor to encode.
type track struct {
	uuid, parent uint64
	name         string
	description  string
	rank         int32 // sibling_order_rank under a parent with explicit ordering
	ranked       bool
	explicit     bool // order the children by their rank
	counterUnit  int  // a counter track of this CounterDescriptor.Unit; 0: not a counter
}

func appendTrack(b []byte, t *track) []byte {
	b = pbwire.AppendUint(b, fTrackUUID, t.uuid)
	b = pbwire.AppendString(b, fTrackName, t.name)
	if t.parent != 0 {
		b = pbwire.AppendUint(b, fTrackParentUUID, t.parent)
	}
	if t.counterUnit != 0 {
		b = pbwire.AppendBytes(b, fTrackCounter, pbwire.AppendUint(nil, fCounterUnit, uint64(t.counterUnit)))
	}
	if t.explicit {
		b = pbwire.AppendUint(b, fTrackChildOrdering, childOrderingExplicit)
	}
	if t.ranked {
		b = pbwire.AppendInt(b, fTrackSiblingRank, int64(t.rank))
	}
	if t.description != "" {
		b = pbwire.AppendString(b, fTrackDescription, t.description)
	}
	return b
}
