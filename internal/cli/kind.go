package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/schedoctor/schedoctor/internal/httpfetch"
	"github.com/schedoctor/schedoctor/internal/sniff"
	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// What each reading command takes, by the first bytes of its input
// (internal/sniff): a known kind outside its list is refused before the
// parser sees it, with the command that reads it.
var (
	profileTakes    = []sniff.Result{{Kind: sniff.Pprof}, {Kind: sniff.Pprof, Gzip: true}}
	traceTakes      = []sniff.Result{{Kind: sniff.ExecTrace}}
	goroutinesTakes = []sniff.Result{{Kind: sniff.Pprof}, {Kind: sniff.Pprof, Gzip: true}, {Kind: sniff.GoroutineDump}, {Kind: sniff.GoroutineDump, Gzip: true}}
	schedtraceTakes = []sniff.Result{{Kind: sniff.Schedtrace}}
)

// kindCommands names the command that reads each kind, and what it takes
// compressed.
var kindCommands = map[sniff.Kind]struct {
	cmd  string
	gzip bool
}{
	sniff.ExecTrace:     {"trace", false},
	sniff.GoroutineDump: {"goroutines", true},
	sniff.Schedtrace:    {"schedtrace", false},
}

// kindMessage is what the user reads for a *sniff.KindError: the kind, and
// the command to run instead.
func kindMessage(ke *sniff.KindError) string {
	name := textsafe.String(ke.Name)
	q := textsafe.ShellQuote(ke.Name)
	if ke.Name == "stdin" {
		q = "-" // the same input, piped again
	}
	got := ke.Got
	switch got.Kind {
	case sniff.Pprof:
		return fmt.Sprintf("%s is %s, not %s: read a CPU profile with `schedoctor profile %s`, a goroutine, mutex or block profile with `schedoctor goroutines %s`",
			name, got, ke.Want, q, q)
	case sniff.HTML:
		return fmt.Sprintf("%s is %s, not %s: a saved /debug/pprof/ index, a login page or a proxy's error? Save the endpoint's own answer", name, got, ke.Want)
	case sniff.ReportJSON:
		return fmt.Sprintf("%s is %s: schedoctor's own output, not a recording; run schedoctor on the recording it came from", name, got)
	case sniff.LiveJSON:
		return fmt.Sprintf("%s is %s: `schedoctor check URL` reads it from the service, with the captures it joins", name, got)
	case sniff.JSON, sniff.Unknown:
		return ke.Error()
	}
	kc, ok := kindCommands[got.Kind]
	if !ok {
		return ke.Error()
	}
	if got.Gzip && !kc.gzip {
		if ke.Name == "stdin" {
			return fmt.Sprintf("%s is %s: decompress it first, as in `... | gunzip | schedoctor %s -`", name, got, kc.cmd)
		}
		return fmt.Sprintf("%s is %s: decompress it first, as in `gunzip -c %s | schedoctor %s -`", name, got, q, kc.cmd)
	}
	return fmt.Sprintf("%s is %s: read it with `schedoctor %s %s`", name, got, kc.cmd, q)
}

// asKindError finds a *sniff.KindError in err's chain.
func asKindError(err error) (*sniff.KindError, bool) {
	var ke *sniff.KindError
	ok := errors.As(err, &ke)
	return ke, ok
}

// checkKind peeks at the head of br and refuses a known kind that the
// command does not take. br must be at least sniff.HeadSize large; it
// keeps the peeked bytes for the parser. A read error other than the end
// of the input is returned as it is.
func checkKind(br *bufio.Reader, name, want string, takes []sniff.Result) error {
	head, err := br.Peek(sniff.HeadSize)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return err
	}
	return sniff.Check(name, head, want, takes...)
}

// checkFileKind is checkKind for a file that the command's reader opens
// itself: the first bytes of a regular file are read and judged. Anything
// else (a FIFO would block, and a pipe's bytes read here would be lost to
// the reader) is left to the reader, which refuses or reads it.
func checkFileKind(name, want string, takes []sniff.Result) error {
	st, err := os.Stat(name)
	if err != nil || !st.Mode().IsRegular() {
		return nil // the reader names the problem
	}
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil // replaced since the Stat
	}
	head := make([]byte, sniff.HeadSize)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil
	}
	return sniff.Check(name, head[:n], want, takes...)
}

// isURL tells an http(s) URL argument from a file name.
func isURL(arg string) bool {
	l := strings.ToLower(arg[:min(len(arg), len("https://"))])
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// redactedURL is arg with any password replaced, for messages.
func redactedURL(arg string) string {
	if u, err := httpfetch.ParseURL(arg); err == nil {
		return u.Redacted()
	}
	return "the URL" // unparsable: its text may hold a password
}

// endpointCommands names the command that reads each net/http/pprof
// endpoint, by the last element of the URL's path.
var endpointCommands = map[string]string{
	"profile":       "profile",
	"trace":         "trace",
	"goroutine":     "goroutines",
	"goroutineleak": "goroutines",
	"mutex":         "goroutines",
	"block":         "goroutines",
}

// checkEndpoint refuses, before anything is fetched, a /debug/pprof URL
// whose endpoint another command reads: "profile URL/trace" would fetch
// for seconds and then fail in the parser. Other paths are fetched, and
// their answer judged.
func (e *Env) checkEndpoint(arg string) error {
	u, err := httpfetch.ParseURL(arg)
	if err != nil {
		return nil // the fetch reports it
	}
	p := strings.TrimSuffix(u.Path, "/")
	dir, last := p[:max(0, strings.LastIndex(p, "/"))], p[strings.LastIndex(p, "/")+1:]
	cmd, ok := endpointCommands[last]
	if !ok || !strings.HasSuffix(dir, "/debug/pprof") || cmd == e.cmd {
		return nil
	}
	return fmt.Errorf("%s is the %s endpoint: read it with `schedoctor %s %s`", u.Redacted(), last, cmd, textsafe.ShellQuote(u.Redacted()))
}
