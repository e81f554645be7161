package live

import (
	"context"
	"runtime/pprof"
	"runtime/trace"
	"strings"
)

// RegionPrefix starts the names of the trace regions Do opens; the
// snapshot diagnosis (live/livetrace) breaks its findings down by them.
const RegionPrefix = "schedoctor "

// Do runs f with pprof labels (CPU profiles break samples down by them)
// and inside a trace region carrying the same labels (execution traces,
// flight-recorder snapshots among them, have no pprof labels: the region
// is how a snapshot's scheduling waits are attributed to "endpoint=/v1/pay").
// kv alternates keys and values; an odd last key gets the value "?"
// rather than a panic.
//
//	live.Do(r.Context(), func(ctx context.Context) { serve(ctx, w, r) }, "endpoint", "/v1/pay")
//
// Outside tracing the region costs a check of a flag; pprof.Do allocates
// the label set, so tag a handler or a loop, not each iteration of a hot
// one.
func Do(ctx context.Context, f func(context.Context), kv ...string) {
	if len(kv)%2 == 1 {
		kv = append(kv[:len(kv):len(kv)], "?")
	}
	if len(kv) == 0 {
		f(ctx)
		return
	}
	pprof.Do(ctx, pprof.Labels(kv...), func(ctx context.Context) {
		trace.WithRegion(ctx, RegionName(kv...), func() { f(ctx) })
	})
}

// RegionName is the trace region name Do uses for kv: the prefix, then
// key=value pairs joined by commas.
func RegionName(kv ...string) string {
	var b strings.Builder
	b.WriteString(RegionPrefix)
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(kv[i])
		b.WriteByte('=')
		b.WriteString(kv[i+1])
	}
	return b.String()
}
