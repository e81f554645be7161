package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/report"
)

func init() {
	register(&command{name: "rules", short: "list the rule catalog, or explain one rule", order: 90, run: runRules})
}

func runRules(ctx context.Context, e *Env, args []string) int {
	fs := e.newFlagSet("schedoctor rules [-json] [RULE...]",
		"List every rule of the catalog with its status (implemented or planned), or explain the rules named\nby ID (SD101) or name (busy-select).",
		"  schedoctor rules\n  schedoctor rules SD101\n  schedoctor rules -json busy-select")
	asJSON := fs.Bool("json", false, "print the rules as a JSON array")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	rules := finding.Rules()
	if fs.NArg() > 0 {
		rules = rules[:0]
		for _, a := range fs.Args() {
			r, ok := finding.Lookup(a)
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
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			return e.fail(err)
		}
		return ExitClean
	}
	if fs.NArg() > 0 {
		for i, r := range rules {
			if i > 0 {
				fmt.Fprintln(e.Stdout)
			}
			if err := report.RuleMarkdown(e.Stdout, r); err != nil {
				return e.fail(err)
			}
		}
		return ExitClean
	}
	tw := tabwriter.NewWriter(e.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSOURCE\tSTATUS\tTITLE")
	for _, r := range rules {
		srcs := make([]string, len(r.Sources))
		for i, s := range r.Sources {
			srcs[i] = string(s)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Name, strings.Join(srcs, ","), r.Status, r.Title)
	}
	if err := tw.Flush(); err != nil {
		return e.fail(err)
	}
	return ExitClean
}
