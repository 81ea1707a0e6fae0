package drivers

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// StartInNetNS starts cmd inside the network namespace at nsPath (empty:
// cmd.Start as is). The fork happens on a thread locked to the goroutine
// and switched into the namespace, so the child starts there; the thread
// switches back after, and if it cannot it stays locked and the runtime
// retires it with the goroutine.
func StartInNetNS(cmd *exec.Cmd, nsPath string) error {
	if nsPath == "" {
		return cmd.Start()
	}
	target, err := os.Open(nsPath)
	if err != nil {
		return fmt.Errorf("open network namespace: %w", err)
	}
	defer target.Close()
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
		if err != nil {
			runtime.UnlockOSThread()
			done <- err
			return
		}
		defer orig.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			done <- fmt.Errorf("join network namespace %s: %w", nsPath, err)
			return
		}
		startErr := cmd.Start()
		if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- startErr // the thread stays locked: it dies with this goroutine
			return
		}
		runtime.UnlockOSThread()
		done <- startErr
	}()
	return <-done
}

// NetNSPath is the namespace a task joins, or "".
func (c *TaskConfig) NetNSPath() string {
	if c.Network == nil {
		return ""
	}
	return c.Network.NetNSPath
}
