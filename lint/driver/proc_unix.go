//go:build unix

package driver

import (
	"os/exec"
	"syscall"
)

// setProcessGroup runs the go command in a process group of its own and
// ends the whole group when the context is cancelled: go vet's tool
// processes are its children, and killing only go would leave them running.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
