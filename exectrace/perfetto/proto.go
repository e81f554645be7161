package perfetto

// The field numbers of Perfetto's trace protos that the export writes,
// from google/perfetto at commit ec5d16b14b743ba6063d720956d6d6af6610fd72
// (2026-08-22):
//
//	protos/perfetto/trace/trace.proto
//	protos/perfetto/trace/trace_packet.proto
//	protos/perfetto/trace/track_event/track_event.proto
//	protos/perfetto/trace/track_event/track_descriptor.proto
//	protos/perfetto/trace/track_event/counter_descriptor.proto
//	protos/perfetto/trace/track_event/debug_annotation.proto
//
// Flows are written as the trace processor reads them
// (src/trace_processor/importers/proto/track_event_event_importer.h,
// MaybeParseTrackEventFlows): a flow id on an event's flow_ids begins the
// flow there, or steps it when it is already active; terminating_flow_ids
// end an active flow at the slice the event opens.
const (
	// Trace
	fTracePacket = 1 // repeated TracePacket packet

	// TracePacket
	fPacketTimestamp  = 8  // optional uint64 timestamp (ns, the default clock)
	fPacketSequenceID = 10 // uint32 trusted_packet_sequence_id
	fPacketTrackEvent = 11 // TrackEvent track_event
	fPacketSeqFlags   = 13 // optional uint32 sequence_flags
	fPacketTrackDesc  = 60 // TrackDescriptor track_descriptor

	// TracePacket.SequenceFlags
	seqIncrementalStateCleared = 1

	// TrackEvent
	fEventDebugAnnotation = 4  // repeated DebugAnnotation debug_annotations
	fEventType            = 9  // optional Type type
	fEventTrackUUID       = 11 // optional uint64 track_uuid
	fEventName            = 23 // string name
	fEventCounterValue    = 30 // int64 counter_value
	fEventFlowIDs         = 47 // repeated fixed64 flow_ids
	fEventTerminatingFlow = 48 // repeated fixed64 terminating_flow_ids

	// TrackEvent.Type
	typeSliceBegin = 1
	typeSliceEnd   = 2
	typeInstant    = 3
	typeCounter    = 4

	// TrackDescriptor
	fTrackUUID          = 1  // optional uint64 uuid
	fTrackName          = 2  // string name
	fTrackParentUUID    = 5  // optional uint64 parent_uuid
	fTrackCounter       = 8  // optional CounterDescriptor counter
	fTrackChildOrdering = 11 // optional ChildTracksOrdering child_ordering
	fTrackSiblingRank   = 12 // optional int32 sibling_order_rank
	fTrackDescription   = 14 // optional string description

	// TrackDescriptor.ChildTracksOrdering
	childOrderingExplicit = 3

	// CounterDescriptor
	fCounterUnit = 3 // optional Unit unit

	// CounterDescriptor.Unit
	unitCount     = 2
	unitSizeBytes = 3

	// DebugAnnotation
	fAnnotIntValue    = 4  // int64 int_value
	fAnnotStringValue = 6  // string string_value
	fAnnotName        = 10 // string name
)
