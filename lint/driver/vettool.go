package driver

import (
	"encoding/json"
	"go/ast"
	"go/token"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

// noteMarker starts the related-information message in which the tool, run
// by go vet, hands a diagnostic's evidence and enclosing function back to
// Run: go vet's JSON carries a diagnostic's category, position, message,
// fixes and related information, and nothing else.
const noteMarker = "schedoctor-note "

// vetNote is what the marker carries.
type vetNote struct {
	Function string             `json:"function,omitempty"`
	Evidence []finding.Evidence `json:"evidence,omitempty"`
	// Posn is the diagnostic's position in the file the analyzer read;
	// go vet's JSON gives the one a //line directive claims.
	Posn string `json:"posn,omitempty"`
	// Edits names the file each edit of the first suggested fix really
	// changes: go vet's JSON names the file a //line directive claims,
	// with the offsets of the real one.
	Edits []string `json:"edits,omitempty"`
	// What, Because and Notes are the parts the diagnostic's message was
	// composed from, when the analyzer gave them apart.
	What    string   `json:"what,omitempty"`
	Because string   `json:"because,omitempty"`
	Notes   []string `json:"notes,omitempty"`
}

// IsVetTool reports whether args (a process's arguments after its name) are
// go vet running its -vettool: "-V=full" asks the tool's version for the
// build cache, "-flags" its flags, and an analysis runs as flags followed by
// one unit's .cfg file. cmd/schedoctor checks this first and then calls
// VetToolMain, so that `schedoctor lint` can hand the packages to go vet.
func IsVetTool(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "-V=full", "-flags":
		return true
	}
	return strings.HasSuffix(args[len(args)-1], ".cfg") && strings.HasPrefix(args[0], "-")
}

// VetToolMain runs lint.Analyzers as go vet's tool on the unit go vet names and
// exits. Each diagnostic carries its evidence and the name of its enclosing
// function in a related-information entry that Run reads back from go vet's
// JSON; under a plain `go vet -vettool` use schedoctor-vet instead, which
// prints nothing extra.
func VetToolMain() {
	unitchecker.Main(noting(lint.Analyzers)...)
}

// noting returns copies of analyzers whose diagnostics carry a vetNote.
// Diagnostics are held until the analyzer returns, because its evidence is
// in the result it returns.
func noting(analyzers []*analysis.Analyzer) []*analysis.Analyzer {
	out := make([]*analysis.Analyzer, len(analyzers))
	for i, a := range analyzers {
		w := *a
		run := a.Run
		w.Run = func(pass *analysis.Pass) (any, error) {
			var held []analysis.Diagnostic
			p := *pass
			p.Report = func(d analysis.Diagnostic) { held = append(held, d) }
			res, err := run(&p)
			ev, _ := res.(*evidence.Result)
			for _, d := range held {
				var note vetNote
				if f := fileOf(pass, d.Pos); f != nil {
					note.Function = enclosingFunc(pass.Pkg, f, d.Pos)
				}
				if ev != nil {
					note.Evidence = ev.ByPos[d.Pos]
				}
				if rep, ok := ev.Parts(d.Pos, d.Message); ok {
					note.What, note.Because, note.Notes = rep.What, rep.Because, rep.Notes
				}
				note.Posn = pass.Fset.PositionFor(d.Pos, false).String()
				if len(d.SuggestedFixes) > 0 {
					for _, te := range d.SuggestedFixes[0].TextEdits {
						name := ""
						if tf := pass.Fset.File(te.Pos); tf != nil {
							name = tf.Name()
						}
						note.Edits = append(note.Edits, name)
					}
				}
				if b, err := json.Marshal(note); err == nil {
					d.Related = append(d.Related, analysis.RelatedInformation{Pos: d.Pos, Message: noteMarker + string(b)})
				}
				pass.Report(d)
			}
			return res, err
		}
		out[i] = &w
	}
	return out
}

func fileOf(pass *analysis.Pass, pos token.Pos) *ast.File {
	for _, f := range pass.Files {
		if f.FileStart <= pos && pos <= f.FileEnd {
			return f
		}
	}
	return nil
}
