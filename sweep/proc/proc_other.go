//go:build !linux

package proc

import (
	"context"
	"syscall"
	"time"
)

// Process is a started child; on this OS none can be started.
type Process struct{}

// Start returns ErrUnsupported: the measurements need Linux.
func Start(Spec) (*Process, error) { return nil, ErrUnsupported }

func (p *Process) Pid() int                    { return 0 }
func (p *Process) Exited() <-chan struct{}     { return nil }
func (p *Process) Signal(syscall.Signal) error { return ErrUnsupported }
func (p *Process) Stop(time.Duration)          {}
func (p *Process) Wait(context.Context, time.Duration) (Usage, error) {
	return Usage{}, ErrUnsupported
}

// SelfCPU is not measured on this OS.
func SelfCPU() (time.Duration, bool) { return 0, false }
