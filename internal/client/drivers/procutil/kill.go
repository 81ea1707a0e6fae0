package procutil

import (
	"errors"
	"syscall"
	"time"
)

// SignalGroup sends sig to every process in the group led by pgid. A group
// already gone is not an error.
func SignalGroup(pgid int, sig syscall.Signal) error {
	err := syscall.Kill(-pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// StopGroup sends sig to the group, waits up to timeout for exited to be
// closed, then SIGKILLs the group. It always SIGKILLs at the end so that
// children the leader left behind die too.
func StopGroup(pgid int, sig syscall.Signal, timeout time.Duration, exited <-chan struct{}) error {
	if err := SignalGroup(pgid, sig); err != nil {
		return err
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-exited:
	case <-t.C:
	}
	return SignalGroup(pgid, syscall.SIGKILL)
}
