package docker

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/moby/moby/client"
)

// Recover implements drivers.Driver by container ID. A container that
// stopped while the client was down recovers with its exit at once.
// Containers whose task is never recovered (its alloc went away while
// the client was down) are removed by the dangling-container reconciler.
func (d *Driver) Recover(h *drivers.TaskHandle) error {
	if h == nil || h.Driver != Name || h.Version != handleVersion {
		return drivers.ErrHandleMismatch
	}
	var st taskState
	if err := json.Unmarshal(h.State, &st); err != nil {
		return fmt.Errorf("decode docker handle: %w", err)
	}
	if _, err := d.tasks.Get(h.TaskID); err == nil {
		return nil
	}
	info, err := d.client.ContainerInspect(context.Background(), st.ContainerID, client.ContainerInspectOptions{})
	if IsNotFound(err) {
		return fmt.Errorf("container %s: %w", st.ContainerID, drivers.ErrTaskGone)
	}
	if err != nil {
		return err
	}
	t := &task{id: h.TaskID, state: st, exit: drivers.NewExitWaiter()}
	if err := d.tasks.Add(t.id, t); err != nil {
		return err
	}
	d.images.acquire(st.ImageID, t.id)
	d.containers.add(st.ContainerID)
	if s := info.Container.State; s != nil && s.Running {
		d.watch(t, logsSince(st))
	} else if s != nil {
		t.exit.Set(&drivers.ExitResult{ExitCode: s.ExitCode, OOMKilled: s.OOMKilled})
	} else {
		t.exit.Set(&drivers.ExitResult{ExitCode: -1, Err: drivers.ErrExitStatusUnknown})
	}
	return nil
}
