//go:build unix

package labtest

import (
	"bufio"
	"os/exec"
	"syscall"
	"testing"
)

// Start starts cmd with its standard output piped and returns a reader of
// it. When the test ends the child is killed (its whole process group
// when cmd.SysProcAttr.Setpgid is set, so that nothing it started is left
// behind) and waited for.
func Start(t testing.TB, cmd *exec.Cmd) *bufio.Reader {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	group := cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid
	t.Cleanup(func() {
		if group {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		} else {
			cmd.Process.Kill()
		}
		cmd.Wait()
	})
	return bufio.NewReader(out)
}
