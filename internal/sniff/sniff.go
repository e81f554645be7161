// Package sniff tells what kind of input a file holds from its first
// bytes: a pprof profile, a Go execution trace, a goroutine dump,
// GODEBUG=schedtrace output, an HTML page, schedoctor's own JSON or the
// live monitor's, each possibly gzip-compressed.
//
// A reader given the wrong kind fails deep in its parser ("field 12 has
// wire type 7" is the pprof parser on "go 1.26 trace"); checking the head
// first lets it say what the input is instead. The judgement is on the
// first HeadSize bytes only, so it costs nothing and never blocks beyond
// what the reader would read anyway.
//
// Detect says Unknown whenever the head does not prove a kind: legacy
// text profiles, schedtrace output whose first SCHED line comes after the
// program's own output, an empty file. Callers pass Unknown to their
// parser, which has its own words for what it cannot read. A kind is
// claimed only from a signature the format always starts with, so a
// well-formed input of the right kind is never refused.
//
// The package imports only the standard library.
package sniff

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"regexp"
)

// HeadSize is how many bytes Detect wants: enough for a gzip header and
// the first deflate block of a compressed profile, a trace's header, the
// first lines of a text dump, and a JSON report's "source" field.
const HeadSize = 4096

// Kind is a kind of input.
type Kind int

const (
	Unknown       Kind = iota
	Pprof              // a pprof protobuf profile: CPU, heap, goroutine, mutex, block, ...
	ExecTrace          // a Go execution trace ("go 1.26 trace\x00...")
	GoroutineDump      // goroutine dump text: ?debug=2 ("goroutine 1 [running]:") or ?debug=1 ("goroutine profile: total N")
	Schedtrace         // GODEBUG=schedtrace output ("SCHED 0ms: gomaxprocs=...")
	HTML               // an HTML page: a pprof index, a login page, a proxy's error
	ReportJSON         // a schedoctor -json report ({"source": "profile", ...})
	LiveJSON           // the live monitor's JSON ({"source": "live", ...})
	JSON               // other JSON
)

var kindNames = [...]string{
	Unknown:       "of an unknown kind",
	Pprof:         "a pprof profile",
	ExecTrace:     "a Go execution trace",
	GoroutineDump: "a goroutine dump",
	Schedtrace:    "GODEBUG=schedtrace output",
	HTML:          "an HTML page",
	ReportJSON:    "a schedoctor JSON report",
	LiveJSON:      "the live monitor's JSON",
	JSON:          "JSON",
}

// String describes k as the object of "is": "a Go execution trace".
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "of an unknown kind"
}

// Result is what Detect found.
type Result struct {
	Kind Kind
	// Gzip: the head is gzip-compressed and Kind is that of what it
	// holds (Unknown when the compressed head does not show it).
	Gzip bool
}

// String describes r: "a gzip-compressed Go execution trace".
func (r Result) String() string {
	if r.Gzip {
		if r.Kind == Unknown {
			return "gzip-compressed data of an unknown kind"
		}
		return "a gzip-compressed " + trimArticle(r.Kind.String())
	}
	return r.Kind.String()
}

func trimArticle(s string) string {
	for _, a := range []string{"a ", "an ", "the "} {
		if len(s) > len(a) && s[:len(a)] == a {
			return s[len(a):]
		}
	}
	return s
}

// Detect judges head, the first bytes of an input: HeadSize bytes, or all
// of a shorter input (which is then known to be whole).
func Detect(head []byte) Result {
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		inner, whole := gunzipHead(head, len(head) < HeadSize)
		return Result{Kind: detect(inner, whole), Gzip: true}
	}
	return Result{Kind: detect(head, len(head) < HeadSize)}
}

// gunzipHead decompresses what head holds of a gzip stream, up to
// HeadSize bytes: a cut stream yields what precedes the cut. whole says
// the result is all the stream holds.
func gunzipHead(head []byte, wholeInput bool) (out []byte, whole bool) {
	zr, err := gzip.NewReader(bytes.NewReader(head))
	if err != nil {
		return nil, false
	}
	zr.Multistream(false)
	out, err = io.ReadAll(io.LimitReader(zr, HeadSize)) // a cut stream: what was decoded
	return out, wholeInput && err == nil && len(out) < HeadSize
}

var (
	traceHeader = regexp.MustCompile(`^go 1\.[0-9]+ trace\x00`)
	// The first line of a dump at each debug level; the Go 1.27 header
	// adds marks and labels after the state, which the prefix leaves out.
	dumpLine   = regexp.MustCompile(`^goroutine [0-9]+ \[`)
	dumpHeader = regexp.MustCompile(`^goroutine(leak)? profile: total [0-9]+`)
	schedLine  = regexp.MustCompile(`^SCHED [0-9]+ms: gomaxprocs=`)
)

// detect judges uncompressed bytes; whole says they are the whole input.
func detect(head []byte, whole bool) Kind {
	if len(head) == 0 {
		return Unknown
	}
	if traceHeader.Match(head) {
		return ExecTrace
	}
	text := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\uFEFF")), " \t\r\n")
	if line := firstLine(text); dumpLine.Match(line) || dumpHeader.Match(line) {
		return GoroutineDump
	}
	if schedLine.Match(firstLine(text)) {
		return Schedtrace
	}
	if isHTML(text) {
		return HTML
	}
	if len(text) > 0 && (text[0] == '{' || text[0] == '[') {
		return jsonKind(text)
	}
	if isPprof(head, whole) {
		return Pprof
	}
	return Unknown
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

func isHTML(text []byte) bool {
	n := min(len(text), 16)
	lower := bytes.ToLower(text[:n])
	for _, p := range []string{"<!doctype html", "<html", "<head", "<body", "<!--", "<?xml"} {
		if bytes.HasPrefix(lower, []byte(p)) {
			return true
		}
	}
	return false
}

// jsonKind reads the first key of a JSON object: schedoctor's reports and
// the live monitor's both start with "source" (docs/contract.md).
func jsonKind(text []byte) Kind {
	dec := json.NewDecoder(bytes.NewReader(text))
	tok, err := dec.Token()
	if err != nil {
		return Unknown
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		if ok && d == '[' {
			return JSON
		}
		return Unknown
	}
	key, err := dec.Token()
	if err != nil {
		return Unknown
	}
	if key != "source" {
		return JSON
	}
	val, err := dec.Token()
	if err != nil {
		return JSON
	}
	if val == "live" {
		return LiveJSON
	}
	if _, ok := val.(string); ok {
		return ReportJSON
	}
	return JSON
}

// isPprof reads the head as the fields of a perftools.profiles.Profile
// message: each field's number must be one of the message's with its wire
// type, and each length must fit a profile. Text fails at once ('g' is
// field 12 with wire type 7) or within a few fields (a '\n' is field 1 with
// a length, but the text after the length is no run of valid fields). The
// head may end inside a field, unless it is the whole input: a profile
// cut short is for the parser to report, not a kind to name.
func isPprof(head []byte, whole bool) bool {
	fields := 0
	for i := 0; i < len(head); {
		tag, n := uvarint(head[i:])
		if n <= 0 {
			return n == 0 && fields > 0 && !whole // cut inside a tag
		}
		i += n
		num, wt := tag>>3, tag&7
		if !validField(num, wt) {
			return false
		}
		switch wt {
		case 0:
			_, n := uvarint(head[i:])
			if n < 0 {
				return false
			}
			if n == 0 {
				return !whole // cut in the value
			}
			i += n
		case 2:
			l, n := uvarint(head[i:])
			if n < 0 || l > 1<<32 {
				return false
			}
			if n == 0 {
				return !whole
			}
			i += n
			if l > uint64(len(head)-i) {
				return !whole // the field runs past the head
			}
			i += int(l)
		}
		fields++
	}
	return fields > 0
}

// validField says whether field num of perftools.profiles.Profile can
// have wire type wt (0 varint, 2 length-delimited; 13 comment is a
// repeated int64, packed or not).
func validField(num, wt uint64) bool {
	switch num {
	case 1, 2, 3, 4, 5, 6, 11: // sample_type, sample, mapping, location, function, string_table, period_type
		return wt == 2
	case 7, 8, 9, 10, 12, 14, 15: // drop_frames, keep_frames, time_nanos, duration_nanos, period, default_sample_type, doc_url
		return wt == 0
	case 13:
		return wt == 0 || wt == 2
	}
	return false
}

// uvarint decodes a varint: n > 0 its length, 0 when b ends inside it,
// -1 when it is longer than 10 bytes.
func uvarint(b []byte) (uint64, int) {
	var x uint64
	for i := 0; i < len(b); i++ {
		if i == 10 {
			return 0, -1
		}
		c := b[i]
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return x, i + 1
		}
	}
	return 0, 0
}

// KindError says an input is of another kind than the reader takes. The
// command line turns Got into the command that reads it.
type KindError struct {
	Name string // the file, "stdin" or the URL
	Got  Result
	Want string // what the reader takes: "a CPU profile"
}

func (e *KindError) Error() string {
	return e.Name + " is " + e.Got.String() + ", not " + e.Want
}

// Check returns a *KindError when head is of a known kind that is not in
// accept, and nil when it is, or when nothing is known of it (Unknown,
// plain or compressed where accept takes some gzip). accept lists what the
// reader takes, compressed or not: {Pprof, true} is a gzipped profile.
func Check(name string, head []byte, want string, accept ...Result) error {
	r := Detect(head)
	for _, a := range accept {
		if r == a || r.Kind == Unknown && (!r.Gzip || a.Gzip) {
			return nil
		}
	}
	return &KindError{Name: name, Got: r, Want: want}
}
