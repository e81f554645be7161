package cli

import (
	"os"
	"path/filepath"
	"syscall"
)

func init() {
	registerHostileGen("trace-dir-links", genTraceDirLinks)
}

// genTraceDirLinks: a directory of traces (issue 22, `trace -json DIR`)
// that someone else filled: beside a real trace, links onto this
// machine's files (absolute, and relative out of the directory), a link
// to /dev/zero, and a FIFO. The run reads the trace, refuses the rest
// without opening them (checked under strace), and exits 2.
func genTraceDirLinks(dir string) error {
	traces := filepath.Join(dir, "traces")
	if err := os.MkdirAll(traces, 0o755); err != nil {
		return err
	}
	data, err := os.ReadFile(traceFixtures + "mutex.trace")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(traces, "mutex.trace"), data, 0o644); err != nil {
		return err
	}
	for name, target := range map[string]string{"passwd.trace": "/etc/passwd", "zero.trace": "/dev/zero", "escape.trace": "../../../../../../../../etc/hostname"} {
		if err := os.Symlink(target, filepath.Join(traces, name)); err != nil {
			return err
		}
	}
	return syscall.Mkfifo(filepath.Join(traces, "fifo.trace"), 0o644)
}
