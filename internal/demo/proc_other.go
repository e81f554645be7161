//go:build !unix

package demo

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}
