//go:build !unix

package lint

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}
