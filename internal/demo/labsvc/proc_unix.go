//go:build unix

package labsvc

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the service in a process group of its own, so that
// killGroup ends it and anything it started.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
