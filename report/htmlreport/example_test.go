package htmlreport_test

import (
	"bytes"
	"fmt"
	"regexp"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/report"
	"github.com/schedoctor/schedoctor/report/htmlreport"
)

// A report of lint findings: the page's title and its findings' headings.
func ExampleRender() {
	r := report.Report{Source: finding.SourceLint, Findings: []finding.Finding{{
		Rule: "SD101", Severity: finding.Warning, Message: "loop spins a core on a select whose default neither blocks nor leaves the loop",
		Locations: []finding.Location{{File: "main.go", Line: 12, Column: 3, Function: "main.poll"}},
		Fix:       "remove the default",
	}}}
	var page bytes.Buffer
	if err := htmlreport.Render(&page, r, htmlreport.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(regexp.MustCompile(`<title>(.*)</title>`).FindStringSubmatch(page.String())[1])
	fmt.Println(bytes.Count(page.Bytes(), []byte(`<article class="finding warning"`)), "finding")
	// Output:
	// schedoctor lint: 1 finding (1 warning)
	// 1 finding
}
