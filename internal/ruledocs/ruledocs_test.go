package ruledocs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDocsUpToDate fails when docs/rules differs from the catalog.
func TestDocsUpToDate(t *testing.T) {
	files, err := Render()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "docs", "rules")
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("docs/rules/%s is stale or missing; run: go generate ./internal/ruledocs", name)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := files[e.Name()]; !ok {
			t.Errorf("docs/rules/%s is not generated from the catalog; remove it", e.Name())
		}
	}
}
