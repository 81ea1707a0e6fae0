package procutil

import (
	"os"
	"syscall"

	"github.com/drover-project/drover/internal/client/drivers"
)

// ExitFromWaitStatus converts a wait status into an ExitResult.
func ExitFromWaitStatus(ws syscall.WaitStatus) *drivers.ExitResult {
	if ws.Signaled() {
		sig := int(ws.Signal())
		return &drivers.ExitResult{ExitCode: 128 + sig, Signal: sig}
	}
	return &drivers.ExitResult{ExitCode: ws.ExitStatus()}
}

// ExitFromState converts what exec.Cmd.Wait leaves behind.
func ExitFromState(ps *os.ProcessState, waitErr error) *drivers.ExitResult {
	if ps == nil {
		return &drivers.ExitResult{ExitCode: -1, Err: waitErr}
	}
	return ExitFromWaitStatus(ps.Sys().(syscall.WaitStatus))
}
