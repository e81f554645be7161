package analysisutil

import (
	"go/ast"
	"go/version"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

// A diagnostic's severity travels in its Category, because Category is the
// one field of analysis.Diagnostic that every driver carries unchanged: the
// checker's action graph, go vet's -json output (unitchecker) and
// golangci-lint's goanalysis runner. The category is the rule ID alone when
// the finding has the catalog's severity for that rule ("SD104"), and the
// rule ID, a slash and the severity when the analyzer measured a different
// cost for this one finding ("SD104/info": a timer per iteration that the
// runtime collects). Every driver reads it back with SplitCategory.

// categorySep separates the rule ID from a per-finding severity.
const categorySep = "/"

// Category returns the Diagnostic.Category of a finding of rule at
// severity sev: rule itself when sev is the catalog's default for it.
func Category(rule string, sev finding.Severity) string {
	if r, ok := finding.Lookup(rule); ok && r.Severity == sev {
		return rule
	}
	return rule + categorySep + sev.String()
}

// SplitCategory reads a Diagnostic.Category back: the rule ID and the
// finding's severity, which is the catalog's for the rule unless the
// category names another. explicit reports that it did. An unknown rule
// without a severity is a warning; a suffix that is not a severity is
// kept as part of the rule, so nothing is lost.
func SplitCategory(category string) (rule string, sev finding.Severity, explicit bool) {
	rule = category
	if i := strings.LastIndex(category, categorySep); i > 0 {
		if s, err := finding.ParseSeverity(category[i+len(categorySep):]); err == nil {
			return category[:i], s, true
		}
	}
	if r, ok := finding.Lookup(rule); ok {
		return rule, r.Severity, false
	}
	return rule, finding.Warning, false
}

// Parts are a diagnostic given apart: the finding's headline (What), its
// cause (Because) and the qualifiers or advice after them (Notes). Vet
// composes them the x/tools way, "what: because; note; note"; the lint
// driver gives the finding the parts, so that its headline is What alone.
type Parts struct {
	What, Because string
	Notes         []string
}

// Vet is the diagnostic's one-line message.
func (p Parts) Vet() string {
	s := p.What
	if p.Because != "" {
		s += ": " + p.Because
	}
	for _, n := range p.Notes {
		if n != "" {
			s += "; " + n
		}
	}
	return s
}

// ReportParts is Report (or ReportSeverity, with explicit set) for a
// diagnostic given apart.
func ReportParts(pass *analysis.Pass, res *evidence.Result, rule string, sev finding.Severity, explicit bool, node ast.Node, p Parts, ev []finding.Evidence, fixes ...analysis.SuggestedFix) {
	pos := node.Pos()
	msg := p.Vet()
	res.Add(pos, ev...)
	category := rule
	if explicit {
		category = Category(rule, sev)
	} else if r, ok := finding.Lookup(rule); ok {
		sev = r.Severity
	}
	res.Reported(evidence.Report{Pos: pos, End: node.End(), Rule: rule, Severity: sev, Message: msg,
		What: p.What, Because: p.Because, Notes: p.Notes})
	pass.Report(analysis.Diagnostic{
		Pos:            pos,
		End:            node.End(),
		Category:       category,
		Message:        msg,
		SuggestedFixes: fixes,
	})
}

// ReportSeverity is Report for a finding whose severity the analyzer
// computed from what it saw (the module's go line, the kind of wait)
// instead of taking the catalog's default.
func ReportSeverity(pass *analysis.Pass, res *evidence.Result, rule string, sev finding.Severity, node ast.Node, msg string, ev []finding.Evidence, fixes ...analysis.SuggestedFix) {
	pos := node.Pos()
	res.Add(pos, ev...)
	res.Reported(evidence.Report{Pos: pos, End: node.End(), Rule: rule, Severity: sev, Message: msg})
	pass.Report(analysis.Diagnostic{
		Pos:            pos,
		End:            node.End(),
		Category:       Category(rule, sev),
		Message:        msg,
		SuggestedFixes: fixes,
	})
}

// ModuleGoVersion returns the go line of the module of the package under
// analysis as "go1.N[.M]", or "" when unknown (GOPATH mode, a driver that
// does not say). Drivers spell it "1.22" (checker) or "go1.22.0"
// (unitchecker).
//
// The go line that decides run-time behaviour such as timer collection is
// the main module's, through its default GODEBUG settings; but since Go
// 1.21 the go command refuses a main module whose go line is below that of
// a module it requires, so a package's own go line is a lower bound of the
// main module's wherever it is built.
func ModuleGoVersion(pass *analysis.Pass) string {
	if pass.Module == nil || pass.Module.GoVersion == "" {
		return ""
	}
	v := pass.Module.GoVersion
	if !strings.HasPrefix(v, "go") {
		v = "go" + v
	}
	if !version.IsValid(v) {
		return ""
	}
	return v
}
