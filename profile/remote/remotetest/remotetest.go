// Package remotetest has fake Pyroscope and Parca query servers for tests:
// Pyroscope's and Parca's servers cannot be built here (neither is on the
// Go module proxy), so the tests of profile/remote and of the command
// line talk to fakes that speak the documented wire format exactly. The
// fakes decode every request by field number (Connect proto bodies) or by
// parameter name (Parca's gateway), record it, and fail the test on a
// request the real server would refuse; they answer pprof profiles the
// way each server does (a Connect proto message, gzipped when the client
// accepts gzip; the gateway's JSON with the gzipped profile in base64),
// and errors in each API's own shape.
//
// It imports only the standard library, so that any package's tests may
// use it.
package remotetest

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is one call a fake received, decoded.
type Request struct {
	Method string            // "SelectMergeStacktraces", "Query", "Values", ...
	Header http.Header       // as sent
	Fields map[int][]string  // Connect: the request's fields by number (varints in decimal)
	Params map[string]string // Parca: the query parameters
}

// recorder keeps the calls a fake received.
type recorder struct {
	mu       sync.Mutex
	requests []Request
}

func (r *recorder) record(req Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, req)
}

// Requests are the calls received so far.
func (r *recorder) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

// Field is the first value of field n, "" when absent.
func (r Request) Field(n int) string {
	if v := r.Fields[n]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Pyroscope is a fake Pyroscope (querier.v1.QuerierService over Connect).
type Pyroscope struct {
	*httptest.Server
	t testing.TB

	// Profiles answers a merge: the uncompressed pprof bytes for a label
	// selector (exactly as sent); a selector not in the map has no data
	// (an empty profile, as Pyroscope answers an empty range).
	Profiles map[string][]byte
	// Values answers LabelValues.
	Values []string
	// Legacy: a server older than PROFILE_FORMAT_PPROF, whose
	// SelectMergeStacktraces ignores the format and answers a flame graph.
	Legacy bool
	// NoStacktraces: SelectMergeStacktraces answers Connect's
	// "unimplemented" (HTTP 501), as a server without the method does.
	NoStacktraces bool
	// Answer, when set, may answer a call itself (an error, garbage, a
	// stall): it returns true when it wrote the answer.
	Answer func(w http.ResponseWriter, r *http.Request, method string) bool

	recorder
}

// NewPyroscope starts a fake Pyroscope; it is closed when the test ends.
func NewPyroscope(t testing.TB) *Pyroscope {
	f := &Pyroscope{t: t, Profiles: map[string][]byte{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

const prefix = "/querier.v1.QuerierService/"

func (f *Pyroscope) serve(w http.ResponseWriter, r *http.Request) {
	method, ok := strings.CutPrefix(r.URL.Path, prefix)
	if !ok {
		http.NotFound(w, r) // the mux's answer to an unknown path
		return
	}
	// What a connect-go handler refuses before the method runs.
	if r.Method != http.MethodPost {
		f.t.Errorf("%s: method %s, want POST", method, r.Method)
		connectError(w, 405, "unknown", "method not allowed")
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/proto" {
		f.t.Errorf("%s: Content-Type %q, want application/proto", method, ct)
		w.WriteHeader(http.StatusUnsupportedMediaType)
		return
	}
	if v := r.Header.Get("Connect-Protocol-Version"); v != "1" {
		f.t.Errorf("%s: Connect-Protocol-Version %q, want 1", method, v)
		connectError(w, 400, "invalid_argument", "missing required header: set Connect-Protocol-Version to \"1\"")
		return
	}
	if v := r.Header.Get("Connect-Timeout-Ms"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err != nil || n <= 0 || len(v) > 10 {
			f.t.Errorf("%s: bad Connect-Timeout-Ms %q", method, v)
		}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		f.t.Errorf("%s: reading the request: %v", method, err)
		return
	}
	fields, err := DecodeFields(body)
	if err != nil {
		f.t.Errorf("%s: request is not a protobuf message: %v", method, err)
		connectError(w, 400, "invalid_argument", "unmarshal message: "+err.Error())
		return
	}
	f.record(Request{Method: method, Header: r.Header.Clone(), Fields: fields})
	if f.Answer != nil && f.Answer(w, r, method) {
		return
	}
	switch method {
	case "SelectMergeStacktraces":
		if f.NoStacktraces {
			connectError(w, 501, "unimplemented", "querier.v1.QuerierService.SelectMergeStacktraces is not implemented")
			return
		}
		f.checkMerge(method, fields)
		if f.Legacy {
			// A flame graph: FlameGraph{names: ["total"], total: 1}.
			fg := appendBytes(nil, 1, []byte("total"))
			fg = appendVarint(fg, 3, 1)
			writeProto(w, r, appendBytes(nil, 1, fg))
			return
		}
		if fields[6] == nil || fields[6][0] != "4" {
			f.t.Errorf("SelectMergeStacktraces: format %v, want 4 (PROFILE_FORMAT_PPROF)", fields[6])
		}
		// SelectMergeStacktracesResponse{pprof: PprofProfile{profile: p}}
		inner := appendBytes(nil, 1, f.Profiles[Request{Fields: fields}.Field(2)])
		writeProto(w, r, appendBytes(nil, 5, inner))
	case "SelectMergeProfile":
		f.checkMerge(method, fields)
		if fields[6] != nil {
			f.t.Errorf("SelectMergeProfile: field 6 set (%v): it is stack_trace_selector there, not a format", fields[6])
		}
		writeProto(w, r, f.Profiles[Request{Fields: fields}.Field(2)])
	case "LabelValues":
		if len(fields[1]) != 1 || !regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`).MatchString(fields[1][0]) {
			f.t.Errorf("LabelValues: name %v, want one label name", fields[1])
		}
		f.checkTimes(method, fields, 3, 4)
		var out []byte
		for _, v := range f.Values {
			out = appendBytes(out, 1, []byte(v))
		}
		writeProto(w, r, out)
	default:
		connectError(w, 501, "unimplemented", "querier.v1.QuerierService."+method+" is not implemented")
	}
}

// checkMerge checks the fields a merge request must have.
func (f *Pyroscope) checkMerge(method string, fields map[int][]string) {
	if len(fields[1]) != 1 || strings.Count(fields[1][0], ":") != 4 {
		f.t.Errorf("%s: profile_typeID %v, want one name:type:unit:period_type:period_unit", method, fields[1])
	}
	if len(fields[2]) != 1 || !strings.HasPrefix(fields[2][0], "{") || !strings.HasSuffix(fields[2][0], "}") {
		f.t.Errorf("%s: label_selector %v, want one {...}", method, fields[2])
	}
	f.checkTimes(method, fields, 3, 4)
}

// checkTimes checks that start and end are milliseconds since the epoch
// in order (a second or a nanosecond count is off by 1000).
func (f *Pyroscope) checkTimes(method string, fields map[int][]string, start, end int) {
	s, err1 := strconv.ParseInt(Request{Fields: fields}.Field(start), 10, 64)
	e, err2 := strconv.ParseInt(Request{Fields: fields}.Field(end), 10, 64)
	lo, hi := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	if err1 != nil || err2 != nil || s < lo || e > hi || e <= s {
		f.t.Errorf("%s: start %v end %v, want milliseconds since the epoch, start before end", method, fields[start], fields[end])
	}
}

// writeProto answers a Connect message, gzipped when the client accepts
// gzip (connect-go compresses its answers so).
func writeProto(w http.ResponseWriter, r *http.Request, msg []byte) {
	w.Header().Set("Content-Type", "application/proto")
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(msg)
		zw.Close()
		w.Header().Set("Content-Encoding", "gzip")
		msg = b.Bytes()
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(msg)))
	w.Write(msg)
}

// ConnectError answers a Connect error: its JSON with the code's status.
func ConnectError(w http.ResponseWriter, code, message string) {
	status := map[string]int{"canceled": 499, "unknown": 500, "invalid_argument": 400, "deadline_exceeded": 504,
		"not_found": 404, "already_exists": 409, "permission_denied": 403, "resource_exhausted": 429,
		"failed_precondition": 400, "aborted": 409, "out_of_range": 400, "unimplemented": 501, "internal": 500,
		"unavailable": 503, "data_loss": 500, "unauthenticated": 401}[code]
	connectError(w, status, code, message)
}

func connectError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"code": code, "message": message})
}

// DecodeFields decodes a protobuf message's fields by number: strings and
// bytes as they are, varints in decimal. It fails on what is not a
// message.
func DecodeFields(b []byte) (map[int][]string, error) {
	out := map[int][]string{}
	for len(b) > 0 {
		k, n := binary.Uvarint(b)
		if n <= 0 || k>>3 == 0 {
			return nil, fmt.Errorf("bad key")
		}
		b = b[n:]
		field := int(k >> 3)
		switch k & 7 {
		case 0:
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return nil, fmt.Errorf("bad varint in field %d", field)
			}
			b = b[n:]
			out[field] = append(out[field], strconv.FormatInt(int64(v), 10))
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return nil, fmt.Errorf("bad length in field %d", field)
			}
			out[field] = append(out[field], string(b[n:n+int(l)]))
			b = b[n+int(l):]
		default:
			return nil, fmt.Errorf("wire type %d in field %d: the requests have none", k&7, field)
		}
	}
	return out, nil
}

func appendVarint(b []byte, field int, v uint64) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3)
	return binary.AppendUvarint(b, v)
}

func appendBytes(b []byte, field int, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// Parca is a fake Parca (the HTTP gateway of parca.query.v1alpha1.QueryService).
type Parca struct {
	*httptest.Server
	t testing.TB

	// Profiles answers a merge: the pprof bytes (gzipped or not; the fake
	// gzips them as Parca does) for a whole query string as sent.
	Profiles map[string][]byte
	Values   []string
	Answer   func(w http.ResponseWriter, r *http.Request, method string) bool

	recorder
}

// NewParca starts a fake Parca; it is closed when the test ends.
func NewParca(t testing.TB) *Parca {
	f := &Parca{t: t, Profiles: map[string][]byte{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

var valuesPath = regexp.MustCompile(`^/api/profiles/labels/([^/]+)/values$`)

func (f *Parca) serve(w http.ResponseWriter, r *http.Request) {
	var method string
	switch {
	case r.URL.Path == "/api/profiles/query":
		method = "Query"
	case valuesPath.MatchString(r.URL.Path):
		method = "Values"
	default:
		// The gateway's answer to an unknown path.
		gatewayError(w, 404, 5, "Not Found")
		return
	}
	if r.Method != http.MethodGet {
		f.t.Errorf("%s: method %s, want GET", method, r.Method)
		gatewayError(w, 501, 12, "Method Not Allowed")
		return
	}
	params := map[string]string{}
	for k, v := range r.URL.Query() {
		if len(v) != 1 {
			f.t.Errorf("%s: parameter %s given %d times", method, k, len(v))
		}
		params[k] = v[0]
	}
	if method == "Values" {
		params["label_name"] = valuesPath.FindStringSubmatch(r.URL.Path)[1]
	}
	f.record(Request{Method: method, Header: r.Header.Clone(), Params: params})
	if f.Answer != nil && f.Answer(w, r, method) {
		return
	}
	for _, k := range []string{"merge.start", "merge.end", "start", "end"} {
		if v, ok := params[k]; ok {
			if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
				f.t.Errorf("%s: %s=%q is no RFC 3339 time", method, k, v)
				gatewayError(w, 400, 3, "parsing field \""+k+"\": "+err.Error())
				return
			}
		}
	}
	switch method {
	case "Query":
		if params["mode"] != "MODE_MERGE" || params["report_type"] != "REPORT_TYPE_PPROF" {
			f.t.Errorf("Query: mode %q report_type %q, want MODE_MERGE and REPORT_TYPE_PPROF", params["mode"], params["report_type"])
		}
		p, ok := f.Profiles[params["merge.query"]]
		if !ok {
			gatewayError(w, 404, 5, "No data found for the query, try a different query or time range or no data has been written to be queried yet.")
			return
		}
		if !bytes.HasPrefix(p, []byte{0x1f, 0x8b}) {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(p)
			zw.Close()
			p = b.Bytes()
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"pprof": base64.StdEncoding.EncodeToString(p), "total": "0", "filtered": "0"})
	case "Values":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string][]string{"labelValues": f.Values, "warnings": nil})
	}
}

// GatewayError answers a grpc-gateway error: {"code":N,"message":...}
// with the HTTP status of the gRPC code N.
func GatewayError(w http.ResponseWriter, status, code int, message string) {
	gatewayError(w, status, code, message)
}

func gatewayError(w http.ResponseWriter, status, code int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"code": code, "message": message, "details": []any{}})
}

// Decompressed returns the contents of the gzipped profile file at path,
// decompressed: what a pprof message field of an answer holds.
func Decompressed(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
