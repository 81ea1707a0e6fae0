package drivers

import (
	"errors"
	"syscall"
	"time"
)

// ErrKillTimeout means a task did not exit within the grace after SIGKILL.
var ErrKillTimeout = errors.New("task did not exit after SIGKILL")

// SignalThenWait is the polite half of a stop: unless sig is SIGKILL it
// sends sig and waits up to timeout for done. It reports whether the task
// exited; when it did not, the caller kills it.
func SignalThenWait(sig syscall.Signal, timeout time.Duration, done <-chan struct{}, send func(syscall.Signal) error) (bool, error) {
	if sig == syscall.SIGKILL {
		return false, nil
	}
	if err := send(sig); err != nil {
		return false, err
	}
	select {
	case <-done:
		return true, nil
	case <-time.After(timeout):
		return false, nil
	}
}

// AwaitKill waits up to grace for done after a SIGKILL was sent.
func AwaitKill(done <-chan struct{}, grace time.Duration) error {
	select {
	case <-done:
		return nil
	case <-time.After(grace):
		return ErrKillTimeout
	}
}
