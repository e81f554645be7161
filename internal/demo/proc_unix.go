//go:build unix

package demo

import (
	"os/exec"
	"syscall"
)

// setProcessGroup runs the program in its own process group and makes
// cancellation kill the whole group, so nothing it started outlives the demo.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
