package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/internal/golden"
)

// checkGolden compares got with testdata/<rel>, or rewrites it with
// -update. A SARIF log is normalized first (golden.NormalizeSARIF), so that
// editing a rule's prose in the catalog does not make every log stale.
func checkGolden(t *testing.T, rel, got string) {
	t.Helper()
	if strings.Contains(got, `"$schema": "https://json.schemastore.org/sarif-2.1.0.json"`) {
		norm, err := golden.NormalizeSARIF([]byte(got))
		if err != nil {
			t.Fatal(err)
		}
		got = string(norm)
	}
	golden.Check(t, filepath.Join(testdataDir, rel), []byte(got))
}

// testdataDir is testdata, absolute: some tests change directory.
var testdataDir, _ = filepath.Abs("testdata")
