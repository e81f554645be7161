// Package remote asks a continuous profiler for the merged CPU profile of
// many processes, and hands it to the profile package's contract
// (profile.Read's limits, then profile.Analyze) as if it had been read from
// a file: schedoctor keeps no store, it reads the profiles people already
// keep.
//
//	c, err := remote.New(remote.Pyroscope, "http://pyroscope:4040", remote.Options{Tenant: "team-a"})
//	p, err := c.Merge(ctx, remote.Query{Selector: `{service_name="api"}`, From: from, Until: until})
//	res, err := profile.Analyze([]*pprof.Profile{p.Profile}, profile.Options{})
//	split, err := c.Split(ctx, "pod", q, remote.SplitOptions{}) // one merged profile per pod
//	findings := remote.Group("pod", n, perPod)                  // "in 2 of 5 pods: pod-a, pod-c"
//
// Pyroscope is asked through its Connect API (querier.v1.QuerierService):
// SelectMergeStacktraces with the pprof format, and SelectMergeProfile
// when the server is older than that format (it answers no pprof field)
// or has no such method (Connect's "unimplemented"), the order of
// Pyroscope's own profilecli. Parca is asked through the HTTP gateway of
// its QueryService (GET /api/profiles/query, merge mode, pprof report):
// Parca's server speaks gRPC, gRPC-web and that gateway, not Connect. The
// few request messages are encoded by hand (wire.go), not through the
// servers' API modules. docs/profile.md, "Profiles from Pyroscope and
// Parca", has the details and what each server's merged profile lacks.
//
// Every request goes through internal/httpfetch: one deadline per request
// (Options.Timeout), a size limit from Options.Read.MaxBytes, an idle
// limit, and redirects only to the scheme and host:port given, so the
// tenant and credentials are sent to that server alone; errors name the
// URL with its password replaced, and replace the credentials wherever a
// server echoes them.
//
// A Client is safe for concurrent use; a Split runs a few merges at once.
package remote
