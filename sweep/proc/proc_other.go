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

// Tag, Leftovers and Descendants: no child, no descendants.
func (p *Process) Tag() string         { return "" }
func (p *Process) Leftovers() []Tagged { return nil }
func (p *Process) Descendants() []int  { return nil }

// Guard is not needed where no child can be started.
type Guard struct{}

// StartGuard returns ErrUnsupported.
func StartGuard() (*Guard, error) { return nil, ErrUnsupported }
func (g *Guard) Pid() int         { return 0 }
func (g *Guard) Close() error     { return nil }

// OwnTag: no tags are made on this OS.
func OwnTag(string) bool { return false }

// OwnerAlive is unknown here.
func (t Tagged) OwnerAlive() bool { return false }

// Leftovers, KillLeftovers, CPUUse and ListenersOn need /proc.
func Leftovers() (own, others []Tagged, err error)        { return nil, nil, ErrUnsupported }
func KillLeftovers(ts []Tagged, _ time.Duration) []Tagged { return ts }
func CPUUse([]Tagged, time.Duration) float64              { return 0 }
func ListenersOn(int) ([]Holder, error)                   { return nil, ErrUnsupported }
