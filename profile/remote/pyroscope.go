package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/internal/httpfetch"
	"github.com/schedoctor/schedoctor/internal/pbwire"
	"github.com/schedoctor/schedoctor/profile"
)

// Pyroscope's query API is Connect (connectrpc.com) over HTTP: a unary
// call is a POST of the request message to /<service>/<method> with
// Content-Type application/proto and Connect-Protocol-Version: 1; the
// answer is the response message with status 200, or an error as JSON,
// {"code":"unimplemented","message":"..."}, with the HTTP status of the
// code. The messages (api/querier/v1/querier.proto,
// api/types/v1/types.proto of grafana/pyroscope):
//
//	SelectMergeStacktracesRequest { string profile_typeID = 1; string label_selector = 2;
//	    int64 start = 3; int64 end = 4; ProfileFormat format = 6; ... }   // ms since the epoch
//	SelectMergeStacktracesResponse { ...; PprofProfile pprof = 5; }
//	PprofProfile { google.v1.Profile profile = 1; }
//	SelectMergeProfileRequest { string profile_typeID = 1; string label_selector = 2;
//	    int64 start = 3; int64 end = 4; ... }                          // returns google.v1.Profile
//	LabelValuesRequest { string name = 1; repeated string matchers = 2; int64 start = 3; int64 end = 4; }
//	LabelValuesResponse { repeated string names = 1; }
const (
	querierService = "querier.v1.QuerierService"

	// formatPprof is ProfileFormat's PROFILE_FORMAT_PPROF (Pyroscope
	// 2026-07, #5358): SelectMergeStacktraces answers the merged pprof in
	// its field pprof.
	formatPprof = 4
)

// errNoPprof: a SelectMergeStacktraces answer without the pprof field,
// from a server older than PROFILE_FORMAT_PPROF, which ignores the format
// and answers a flame graph.
var errNoPprof = errors.New("answer has no pprof profile")

// pyroscopeMerge asks SelectMergeStacktraces for the pprof format, and
// falls back to SelectMergeProfile (deprecated since, but what every
// older server has) when the server does not know that format or that
// method: the order of Pyroscope's own profilecli.
func (c *Client) pyroscopeMerge(ctx context.Context, q Query) (*Profile, error) {
	typ, _ := typeID(Pyroscope, q.Type)
	var req []byte
	req = appendString(req, 1, typ)
	req = appendString(req, 2, q.Selector)
	req = appendInt(req, 3, q.From.UnixMilli())
	req = appendInt(req, 4, q.Until.UnixMilli())
	req = appendInt(req, 6, formatPprof)
	p, err := c.connect(ctx, "SelectMergeStacktraces", req, c.readStacktraces)
	if err == nil {
		return &Profile{Profile: p, Method: "SelectMergeStacktraces"}, nil
	}
	var why string
	switch {
	case errors.Is(err, errNoPprof):
		why = "SelectMergeStacktraces answered no pprof profile (a server older than its pprof format)"
	case unimplemented(err):
		why = "SelectMergeStacktraces: " + err.Error()
	default:
		return nil, err
	}
	// The same request without the format: fields 1 to 4 are the same in
	// SelectMergeProfileRequest.
	req = req[:0]
	req = appendString(req, 1, typ)
	req = appendString(req, 2, q.Selector)
	req = appendInt(req, 3, q.From.UnixMilli())
	req = appendInt(req, 4, q.Until.UnixMilli())
	p, err = c.connect(ctx, "SelectMergeProfile", req, c.readProfile)
	if err != nil {
		var nf *apiNotFound
		if unimplemented(err) && !errors.As(err, &nf) {
			return nil, fmt.Errorf("%w (after %s)", err, why)
		}
		return nil, err // the same 404 twice: the address is wrong
	}
	return &Profile{Profile: p, Method: "SelectMergeProfile", Fallback: why}, nil
}

// pyroscopeValues asks LabelValues.
func (c *Client) pyroscopeValues(ctx context.Context, label string, q Query) ([]string, error) {
	typ, _ := typeID(Pyroscope, q.Type)
	// The profile type is a label of every series (__profile_type__):
	// without it, a value of another type's series would be listed and
	// then match no CPU profile.
	sel, err := WithLabel(q.Selector, "__profile_type__", typ)
	if err != nil {
		return nil, err
	}
	var req []byte
	req = appendString(req, 1, label)
	req = appendString(req, 2, sel)
	req = appendInt(req, 3, q.From.UnixMilli())
	req = appendInt(req, 4, q.Until.UnixMilli())
	var out []string
	_, err = c.connect(ctx, "LabelValues", req, func(ctx context.Context, name string, r io.Reader, limit int64) (*pprof.Profile, error) {
		var err error
		out, err = readStrings(r, 1, limit)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return nil, nil
	})
	return out, err
}

// maxValuesBytes bounds a LabelValues answer: 64 K values of 64 bytes.
const maxValuesBytes = 4 << 20

// reader reads an answer's body of at most limit bytes; name is for its
// errors.
type reader func(ctx context.Context, name string, r io.Reader, limit int64) (*pprof.Profile, error)

// connect makes one unary Connect call and reads its answer with read.
func (c *Client) connect(ctx context.Context, method string, req []byte, read reader) (*pprof.Profile, error) {
	u := c.base.JoinPath(querierService, method)
	h := http.Header{}
	h.Set("Content-Type", "application/proto")
	h.Set("Connect-Protocol-Version", "1")
	h.Set("Connect-Timeout-Ms", strconv.FormatInt(c.opt.Timeout.Milliseconds(), 10))
	c.auth(h)
	limit := int64(maxValuesBytes)
	if method != "LabelValues" {
		// The profile and the few bytes of the messages around it.
		limit = c.limits().MaxBytes + 64
	}
	opt := c.fetchOptions(limit, h)
	opt.Method, opt.Body = http.MethodPost, req
	resp, err := httpfetch.Get(ctx, u, opt)
	if err != nil {
		return nil, c.rpcError(method, err)
	}
	defer resp.Close()
	name := resp.Name
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct != "application/proto" {
		return nil, fmt.Errorf("%s: answer's Content-Type is %q, not application/proto: is this Pyroscope's address (its HTTP port, 4040 by default)?",
			name, clean(truncate(resp.Header.Get("Content-Type"), 80)))
	}
	p, err := read(resp.Context(), name, resp.Body, limit)
	return p, resp.Err(err)
}

// readStacktraces finds SelectMergeStacktracesResponse.pprof.profile in
// the answer as it streams and reads the profile from it; errNoPprof when
// the answer has no pprof field.
func (c *Client) readStacktraces(ctx context.Context, name string, r io.Reader, limit int64) (*pprof.Profile, error) {
	pr := newProtoReader(r, limit)
	for {
		f, w, err := pr.tag()
		if err == io.EOF {
			return nil, errNoPprof
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if f != 5 || w != pbwire.Len {
			if err := pr.skip(w, pr.rest()); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			continue
		}
		n, err := pr.length(pr.rest())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		end := pr.pos + n
		for pr.pos < end {
			f, w, err := pr.tag()
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if f == 1 && w == pbwire.Len {
				m, err := pr.length(end - pr.pos)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
				if m == 0 {
					return nil, ErrNoData // the empty profile of an empty range
				}
				return profile.Read(ctx, name, io.LimitReader(pr, m), c.limits())
			}
			if err := pr.skip(w, end-pr.pos); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		return nil, ErrNoData // a PprofProfile without its profile
	}
}

// readProfile reads SelectMergeProfile's answer: a google.v1.Profile,
// which is pprof's profile.proto on the wire.
func (c *Client) readProfile(ctx context.Context, name string, r io.Reader, limit int64) (*pprof.Profile, error) {
	pr := newProtoReader(r, limit)
	if _, err := pr.r.Peek(1); err == io.EOF {
		return nil, ErrNoData // the empty profile: no bytes at all
	}
	return profile.Read(ctx, name, pr, c.limits())
}

// Read lets a protoReader hand the rest of its input on.
func (p *protoReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.pos += int64(n)
	return n, err
}
