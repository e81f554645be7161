// Command gendocs writes docs/rules from the rule catalog. Run it with
// `go generate ./...` from the module root; finding's tests fail when the
// pages on disk are stale.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/schedoctor/schedoctor/internal/ruledocs"
)

func main() {
	dir := flag.String("dir", "docs/rules", "output `directory`")
	flag.Parse()
	files, err := ruledocs.Render()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		log.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(*dir, name), data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("wrote %d files to %s\n", len(files), *dir)
}
