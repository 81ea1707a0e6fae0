package docker

import (
	"context"
	"encoding/json"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// handleVersion is bumped when taskState changes incompatibly.
const handleVersion = 1

// Timeouts around a container's end.
const (
	logDrainTimeout = 5 * time.Second  // output still in flight after exit
	killGrace       = 10 * time.Second // SIGKILL to recorded exit
	waitRetry       = time.Second      // after the daemon dropped a wait
)

// taskState is the handle's State.
type taskState struct {
	ContainerID string
	ImageID     string // counted in the image's users until Destroy
	TTY         bool   // the output is one raw stream, not multiplexed
	StdoutPath  string
	StderrPath  string
	StartedAt   time.Time
}

type task struct {
	id     string
	state  taskState
	exit   *drivers.ExitWaiter
	cancel context.CancelFunc // ends the log stream and wait calls
}

func (t *task) handle() (*drivers.TaskHandle, error) {
	raw, err := json.Marshal(t.state)
	if err != nil {
		return nil, err
	}
	return &drivers.TaskHandle{Driver: Name, TaskID: t.id, Version: handleVersion, StartedAt: t.state.StartedAt, State: raw}, nil
}

// watch follows the container's output from since and records its exit
// once the output has drained, so a reader of the logs after Wait sees
// everything.
func (d *Driver) watch(t *task, since time.Time) {
	ctx, cancel := context.WithCancel(context.Background())
	t.cancel = cancel
	logsDone := make(chan struct{})
	go func() {
		defer close(logsDone)
		if err := d.streamLogs(ctx, t, since); err != nil && ctx.Err() == nil {
			d.logger.Warn("container log stream ended", "task", t.id, "error", err)
		}
	}()
	go func() {
		res := d.waitExit(ctx, t.state.ContainerID)
		select {
		case <-logsDone:
		case <-time.After(logDrainTimeout):
		}
		t.exit.Set(res)
	}()
}

// waitExit blocks until the container stops, retrying while the daemon is
// away (a daemon restart drops the wait call).
func (d *Driver) waitExit(ctx context.Context, id string) *drivers.ExitResult {
	for {
		w := d.client.ContainerWait(ctx, id, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
		var err error
		select {
		case res := <-w.Result:
			if res.Error != nil && res.Error.Message != "" {
				d.logger.Warn("container wait reported an error", "container", id, "error", res.Error.Message)
			}
			return d.exitResult(ctx, id, int(res.StatusCode))
		case err = <-w.Error:
		}
		switch {
		case IsNotFound(err):
			return &drivers.ExitResult{ExitCode: -1, Err: drivers.ErrTaskGone}
		case ctx.Err() != nil:
			return &drivers.ExitResult{ExitCode: -1, Err: ctx.Err()}
		}
		select {
		case <-ctx.Done():
		case <-d.clock.After(waitRetry):
		}
	}
}

// exitResult adds what only inspect knows (the OOM kill) to the code.
func (d *Driver) exitResult(ctx context.Context, id string, code int) *drivers.ExitResult {
	res := &drivers.ExitResult{ExitCode: code}
	if info, err := d.client.ContainerInspect(ctx, id, client.ContainerInspectOptions{}); err == nil && info.Container.State != nil {
		res.OOMKilled = info.Container.State.OOMKilled
	}
	return res
}
