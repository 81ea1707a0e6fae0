package docker

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

// streamLogs copies the container's output into the task's log files
// until the container stops (the daemon then ends the stream). A TTY
// container's output is one stream, logged as stdout.
func (d *Driver) streamLogs(ctx context.Context, t *task, since time.Time) error {
	stdout, err := drivers.OpenLog(t.state.StdoutPath)
	if err != nil {
		return fmt.Errorf("open stdout log: %w", err)
	}
	defer stdout.Close()
	stderr, err := drivers.OpenLog(t.state.StderrPath)
	if err != nil {
		return fmt.Errorf("open stderr log: %w", err)
	}
	defer stderr.Close()
	opts := client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true, Follow: true}
	if !since.IsZero() {
		opts.Since = strconv.FormatFloat(float64(since.UnixNano())/1e9, 'f', 9, 64)
	}
	rc, err := d.client.ContainerLogs(ctx, t.state.ContainerID, opts)
	if err != nil {
		return err
	}
	defer rc.Close()
	if t.state.TTY {
		_, err = io.Copy(stdout, rc)
		return err
	}
	_, err = stdcopy.StdCopy(stdout, stderr, rc)
	return err
}
