package docker

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
)

// streamLogs copies the container's output into the task's log files
// until the container stops (the daemon then ends the stream).
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
	rc, err := d.client.Logs(ctx, t.state.ContainerID, since)
	if err != nil {
		return err
	}
	defer rc.Close()
	return demux(rc, stdout, stderr)
}

// demux splits Docker's multiplexed stream (no TTY): frames of an 8-byte
// header (stream type, 3 zero bytes, big-endian length) and the payload.
func demux(r io.Reader, stdout, stderr io.Writer) error {
	var hdr [8]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		w := stdout
		if hdr[0] == 2 {
			w = stderr
		}
		if _, err := io.CopyN(w, r, int64(binary.BigEndian.Uint32(hdr[4:]))); err != nil {
			return err
		}
	}
}
