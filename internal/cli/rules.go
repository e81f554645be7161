package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/ruledocs"
	"github.com/schedoctor/schedoctor/report"
)

func init() {
	register(&command{name: "rules", short: "list the rule catalog, or explain one rule", order: 90, run: runRules})
}

func runRules(ctx context.Context, e *Env, args []string) int {
	fs := e.newFlagSet("schedoctor rules [-json] [RULE...]",
		"List every rule of the catalog with its status (implemented or planned), or explain the rules named\nby ID (SD101) or name (busy-select). The list and the explanations fit 80 columns; -wide prints\none line per rule and unwrapped paragraphs.",
		"  schedoctor rules\n  schedoctor rules SD101\n  schedoctor rules -wide | grep trace\n  schedoctor rules -json busy-select")
	asJSON := fs.Bool("json", false, "print the rules as a JSON array")
	wide := fs.Bool("wide", false, "one line per rule and unwrapped prose, however wide")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	// The catalog joined with each rule's thresholds, from the constants
	// of the sources that detect it.
	rules, err := ruledocs.Rules()
	if err != nil {
		return e.fail(err)
	}
	if fs.NArg() > 0 {
		rules = rules[:0]
		for _, a := range fs.Args() {
			r, ok, err := ruledocs.Lookup(a)
			if err != nil {
				return e.fail(err)
			}
			if !ok {
				return e.usageError("no rule %q (run 'schedoctor rules' for the list)", a)
			}
			rules = append(rules, r)
		}
	}
	if *asJSON {
		type ruleJSON struct {
			finding.Rule
			URL string `json:"url"`
		}
		out := make([]ruleJSON, len(rules))
		for i, r := range rules {
			out[i] = ruleJSON{r, r.URL()}
		}
		jw := e.jsonOut()
		enc := json.NewEncoder(jw)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			return e.fail(err)
		}
		if err := jw.Flush(); err != nil {
			return e.fail(err)
		}
		return ExitClean
	}
	if fs.NArg() > 0 {
		for i, r := range rules {
			if i > 0 {
				fmt.Fprintln(e.Stdout)
			}
			// The docs page's Markdown, its prose wrapped to 80 columns
			// (the catalog holds a paragraph per line) and its thresholds
			// a list rather than a table, so that they wrap too.
			var b strings.Builder
			render := report.RuleMarkdownNarrow
			if *wide {
				render = report.RuleMarkdown
			}
			if err := render(&b, r); err != nil {
				return e.fail(err)
			}
			text := b.String()
			if !*wide {
				text = reflow(text, helpWidth)
			}
			io.WriteString(e.Stdout, text)
		}
		return ExitClean
	}
	srcs := func(r finding.Rule) string {
		s := make([]string, len(r.Sources))
		for i, src := range r.Sources {
			s[i] = string(src)
		}
		return strings.Join(s, ",")
	}
	if !*wide {
		// 80 columns: ID, name, sources and status on one line, the title
		// under them, wrapped.
		nw, sw := len("NAME"), len("SOURCE")
		for _, r := range rules {
			nw, sw = max(nw, width(r.Name)), max(sw, width(srcs(r)))
		}
		fmt.Fprintf(e.Stdout, "%-5s  %-*s  %-*s  %s\n", "ID", nw, "NAME", sw, "SOURCE", "STATUS")
		for _, r := range rules {
			fmt.Fprintf(e.Stdout, "%-5s  %-*s  %-*s  %s\n", r.ID, nw, r.Name, sw, srcs(r), r.Status)
			io.WriteString(e.Stdout, wrapWords("       ", "       ", r.Title, helpWidth))
		}
		return ExitClean
	}
	tw := tabwriter.NewWriter(e.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSOURCE\tSTATUS\tTITLE")
	for _, r := range rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Name, srcs(r), r.Status, r.Title)
	}
	if err := tw.Flush(); err != nil {
		return e.fail(err)
	}
	return ExitClean
}
