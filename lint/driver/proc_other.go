//go:build !unix

package driver

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}
