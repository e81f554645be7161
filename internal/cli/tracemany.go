package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/textsafe"
	"github.com/schedoctor/schedoctor/report"
)

// traceMany is `trace` over several traces (issue 22: the traces of a
// fleet in one command): the arguments, a directory standing for the
// files in it. The traces are read and judged one after another, so the
// memory is that of one trace; each report is printed as soon as its trace
// is judged. With -json each is one line (NDJSON): the object -json prints
// for one trace, compact, with "file" after "source"; a trace that cannot
// be read is the line {"source", "file", "error"}, its message on standard
// error too, and the others go on. Without -json the text reports follow
// one another, each under a "==> FILE <==" header.
//
// The exit status is the worst over the traces: 2 when any input could
// not be read (a file that is not a trace, a broken trace, a symbolic
// link in a directory), else 1 when any report has a finding at or above
// -fail, else 0.
func (e *Env) traceMany(ctx context.Context, o *outputFlags, c traceRun, args []string) int {
	if o.sarif {
		return e.usageError("-sarif writes the log of one trace: name one, or use -json for several (one JSON object a line)")
	}
	if o.html != "" {
		return e.usageError("-html writes the report of one trace: name one")
	}
	inputs, code, ok := e.traceInputs(args)
	if !ok {
		return code
	}
	var jw *textsafe.Writer
	if o.json {
		jw = e.jsonOut()
	}
	code = ExitClean
	printed := 0
	for _, in := range inputs {
		r, name, err := e.traceOne(ctx, c, in)
		if err != nil {
			if ctx.Err() != nil {
				return e.fail(err) // interrupted: say so, and read no more
			}
			code = max(code, e.fail(err))
			if o.json {
				if werr := errors.Join(report.JSONErrorLine(jw, finding.SourceTrace, name, errText(err)), jw.Flush()); werr != nil {
					return e.fail(fmt.Errorf("writing the report: %w", werr))
				}
			}
			continue
		}
		if o.json {
			r = e.prepare(r)
			if werr := errors.Join(report.JSONLine(jw, name, r), jw.Flush()); werr != nil {
				return e.fail(fmt.Errorf("writing the report: %w", werr))
			}
			code = max(code, exitCode(o.fail, r.Findings))
			continue
		}
		if printed > 0 {
			fmt.Fprintln(e.Stdout)
		}
		printed++
		fmt.Fprintf(e.Stdout, "==> %s <==\n", textsafe.String(name))
		code = max(code, e.emit(o, r))
	}
	return code
}

// errText is what e.fail says of err, without the command's prefix: the
// "error" of a JSON line.
func errText(err error) string {
	if ke, ok := asKindError(err); ok {
		return kindMessage(ke)
	}
	return err.Error()
}

// isTraceDir reports whether the argument names a directory: its files are
// the traces to read.
func isTraceDir(arg string) bool {
	if arg == "-" || isURL(arg) {
		return false
	}
	st, err := os.Stat(arg)
	return err == nil && st.IsDir()
}

// traceInputs expands the arguments into the traces to read, in order: a
// directory into its files (dirTraces), anything else as it is. Standard
// input can be read once; a second - is a usage error.
func (e *Env) traceInputs(args []string) ([]traceInput, int, bool) {
	var out []traceInput
	stdin := false
	for _, a := range args {
		switch {
		case a == "-":
			if stdin {
				return nil, e.usageError("- (standard input) is named twice: it can be read once"), false
			}
			stdin = true
			out = append(out, traceInput{arg: a, name: "stdin"})
		case isURL(a):
			out = append(out, traceInput{arg: a, name: redactedURL(a)})
		case isTraceDir(a):
			out = append(out, e.dirTraces(a)...)
		default:
			out = append(out, traceInput{arg: a, name: a})
		}
	}
	return out, 0, true
}

// dirTraces are the traces of a directory given on the command line: its
// files, by name, not recursively. A directory in it is skipped with a
// warning, a hidden file (.name: an editor's or a file manager's) is
// skipped. A symbolic link is not followed: it is an input refused (an
// error line; name its target on the command line to read it), since in a
// directory someone else filled it may point anywhere (docs/HACKING.md,
// "Reads"). Each file is opened under the directory (internal/sysread,
// traceOne): only a regular file is read, and a name swapped for a link
// after this listing resolves inside the directory, never outside it.
func (e *Env) dirTraces(dir string) []traceInput {
	ents, err := os.ReadDir(dir)
	if err != nil && len(ents) == 0 {
		return []traceInput{{name: dir, err: fmt.Errorf("reading the directory: %w", err)}}
	}
	var out []traceInput
	for _, ent := range ents {
		n := ent.Name()
		p := filepath.Join(dir, n)
		switch {
		case strings.HasPrefix(n, "."):
		case ent.Type()&fs.ModeSymlink != 0:
			out = append(out, traceInput{name: p, err: fmt.Errorf("%s: a symbolic link in a directory is not followed: name the trace it points to on the command line", p)})
		case ent.IsDir():
			e.warn("%s: a directory, skipped (the traces of a directory are its files, not those of its subdirectories)", textsafe.String(p))
		default:
			out = append(out, traceInput{name: p, dir: dir, base: n})
		}
	}
	if err != nil {
		// listed in part: read what was listed, and say what was not
		out = append(out, traceInput{name: dir, err: fmt.Errorf("reading the directory: %w", err)})
	}
	if len(out) == 0 {
		out = append(out, traceInput{name: dir, err: fmt.Errorf("%s: no trace in the directory (its files are the traces; hidden files and subdirectories are skipped)", dir)})
	}
	return out
}
