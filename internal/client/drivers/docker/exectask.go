package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

// execExitPoll bounds how long ExecTask waits for the daemon to record
// the exit code once the exec's output has ended.
const (
	execExitPoll     = 50 * time.Millisecond
	execExitDeadline = 5 * time.Second
)

// ExecTask implements drivers.Execer through the Engine API's exec: the
// command runs in the task's container with its environment, and its
// attached streams come back on the connection the client hijacks.
func (d *Driver) ExecTask(ctx context.Context, taskID string, req *drivers.ExecRequest) (int, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return 0, err
	}
	if t.exit.Exited() {
		return 0, drivers.ErrTaskGone
	}
	created, err := d.client.ExecCreate(ctx, t.state.ContainerID, client.ExecCreateOptions{
		Cmd: req.Command, AttachStdin: req.Stdin != nil, AttachStdout: true, AttachStderr: true, TTY: req.TTY,
	})
	if err != nil {
		return 0, err
	}
	att, err := d.client.ExecAttach(ctx, created.ID, client.ExecAttachOptions{TTY: req.TTY})
	if err != nil {
		return 0, err
	}
	defer att.Close()
	stop := context.AfterFunc(ctx, att.Close)
	defer stop()
	if req.Stdin != nil {
		go func() {
			_, _ = io.Copy(att.Conn, req.Stdin)
			_ = att.CloseWrite() // stdin ended: the command sees EOF
		}()
	}
	if req.TTY {
		rctx, stopResizes := context.WithCancel(ctx)
		defer stopResizes()
		go d.forwardResizes(rctx, created.ID, req.Resize)
		// A terminal's output is one stream, not multiplexed.
		_, err = io.Copy(req.Stdout, att.Reader)
	} else {
		_, err = stdcopy.StdCopy(req.Stdout, req.Stderr, att.Reader)
	}
	if err != nil && ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
		return 0, fmt.Errorf("exec output: %w", err)
	}
	return d.execExitCode(ctx, created.ID)
}

// execExitCode waits for the daemon to record the exec's exit.
func (d *Driver) execExitCode(ctx context.Context, execID string) (int, error) {
	deadline := d.clock.Now().Add(execExitDeadline)
	for {
		st, err := d.client.ExecInspect(ctx, execID, client.ExecInspectOptions{})
		if err != nil {
			return 0, err
		}
		if !st.Running {
			return st.ExitCode, nil
		}
		if d.clock.Now().After(deadline) {
			return 0, fmt.Errorf("exec %s: still running after its output ended", execID)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-d.clock.After(execExitPoll):
		}
	}
}

// forwardResizes resizes the exec's terminal to each size sent, until ctx
// ends. A resize that fails (the exec ended meanwhile) is dropped.
func (d *Driver) forwardResizes(ctx context.Context, execID string, sizes <-chan drivers.TerminalSize) {
	for {
		select {
		case <-ctx.Done():
			return
		case sz, ok := <-sizes:
			if !ok {
				return
			}
			_, _ = d.client.ExecResize(ctx, execID, client.ExecResizeOptions{Height: uint(sz.Height), Width: uint(sz.Width)})
		}
	}
}
