package cli

import (
	"os"
	"path/filepath"
)

// Generators of the check's hostile cases (issue 19): names a checkout
// cannot hold portably (a directory named "http:").

func init() {
	registerHostileGen("check-scheme-dir", genCheckSchemeDir)
}

// genCheckSchemeDir plants a saved check directory at "http:/127.0.0.1:9/",
// the path that "check http:/127.0.0.1:9/" (one slash) names: the argument
// has a scheme, so it is a URL (with no host: refused), never this
// directory.
func genCheckSchemeDir(dir string) error {
	saved := filepath.Join(dir, "http:", "127.0.0.1:9")
	if err := os.MkdirAll(saved, 0o755); err != nil {
		return err
	}
	manifest := `{"target": "http://127.0.0.1:9", "start": "2026-11-26T19:00:00Z", "captures": [
  {"kind": "goroutine-end", "endpoint": "http://127.0.0.1:9/debug/pprof/goroutine?debug=2", "file": "goroutine-end.txt",
   "start": "2026-11-26T19:00:00Z", "duration_seconds": 0.1}], "saved": "2026-11-26T19:00:01Z"}
`
	if err := os.WriteFile(filepath.Join(saved, "manifest.json"), []byte(manifest), 0o644); err != nil {
		return err
	}
	dump := "goroutine 1 [running]:\nmain.main()\n\t/src/planted/main.go:3 +0x1d\n"
	return os.WriteFile(filepath.Join(saved, "goroutine-end.txt"), []byte(dump), 0o644)
}
