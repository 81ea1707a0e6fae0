package docker

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
)

// execExitPoll bounds how long ExecTask waits for the daemon to record
// the exit code once the exec's output has ended.
const (
	execExitPoll     = 50 * time.Millisecond
	execExitDeadline = 5 * time.Second
)

// ExecTask implements drivers.Execer through the Engine API's exec: the
// command runs in the task's container with its environment, and its
// attached streams come back multiplexed on the hijacked connection.
func (d *Driver) ExecTask(ctx context.Context, taskID string, req *drivers.ExecRequest) (int, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return 0, err
	}
	if t.exit.Exited() {
		return 0, drivers.ErrTaskGone
	}
	execID, err := d.client.execCreate(ctx, t.state.ContainerID, req.Command, req.Stdin != nil, req.TTY)
	if err != nil {
		return 0, err
	}
	conn, out, err := d.client.execStart(ctx, execID, req.TTY)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if req.Stdin != nil {
		go func() {
			_, _ = io.Copy(conn, req.Stdin)
			if cw, ok := conn.(interface{ CloseWrite() error }); ok {
				_ = cw.CloseWrite()
			}
		}()
	}
	if req.TTY {
		rctx, stopResizes := context.WithCancel(ctx)
		defer stopResizes()
		go d.client.forwardResizes(rctx, execID, req.Resize)
		// A terminal's output is one stream, not multiplexed.
		_, err = io.Copy(req.Stdout, out)
	} else {
		err = demux(out, req.Stdout, req.Stderr)
	}
	if err != nil && ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
		return 0, fmt.Errorf("exec output: %w", err)
	}
	return d.client.execExitCode(ctx, execID)
}

func (c *Client) execCreate(ctx context.Context, containerID string, cmd []string, stdin, tty bool) (string, error) {
	in := map[string]any{"AttachStdin": stdin, "AttachStdout": true, "AttachStderr": true, "Tty": tty, "Cmd": cmd}
	var out struct{ Id string }
	if err := c.call(ctx, http.MethodPost, "/containers/"+url.PathEscape(containerID)+"/exec", nil, in, &out); err != nil {
		return "", err
	}
	return out.Id, nil
}

// execStart starts the exec attached. The daemon takes the connection
// over, so it is dialled and spoken to directly: the client needs to
// half-close it when stdin ends, which net/http's upgraded body cannot.
func (c *Client) execStart(ctx context.Context, execID string, tty bool) (net.Conn, *bufio.Reader, error) {
	v, err := c.apiVersion(ctx)
	if err != nil {
		return nil, nil, err
	}
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("docker daemon unreachable: %w", err)
	}
	body := []byte(fmt.Sprintf(`{"Detach":false,"Tty":%t}`, tty))
	req, err := http.NewRequest(http.MethodPost, c.base+"/v"+v+"/exec/"+url.PathEscape(execID)+"/start", bytes.NewReader(body))
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "tcp")
	if err := req.Write(conn); err != nil {
		conn.Close()
		return nil, nil, err
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols && resp.StatusCode != http.StatusOK {
		defer conn.Close()
		return nil, nil, decodeAPIError(resp)
	}
	return conn, br, nil
}

// execExitCode waits for the daemon to record the exec's exit.
func (c *Client) execExitCode(ctx context.Context, execID string) (int, error) {
	deadline := time.Now().Add(execExitDeadline)
	for {
		var st struct {
			Running  bool
			ExitCode int
		}
		if err := c.call(ctx, http.MethodGet, "/exec/"+url.PathEscape(execID)+"/json", nil, nil, &st); err != nil {
			return 0, err
		}
		if !st.Running {
			return st.ExitCode, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("exec %s: still running after its output ended", execID)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(execExitPoll):
		}
	}
}

// forwardResizes resizes the exec's terminal to each size sent, until ctx
// ends. A resize that fails (the exec ended meanwhile) is dropped.
func (c *Client) forwardResizes(ctx context.Context, execID string, sizes <-chan drivers.TerminalSize) {
	for {
		select {
		case <-ctx.Done():
			return
		case sz, ok := <-sizes:
			if !ok {
				return
			}
			q := url.Values{"h": {fmt.Sprint(sz.Height)}, "w": {fmt.Sprint(sz.Width)}}
			_ = c.call(ctx, http.MethodPost, "/exec/"+url.PathEscape(execID)+"/resize", q, nil, nil)
		}
	}
}
