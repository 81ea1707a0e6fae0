package docker

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/drover-project/drover/internal/client/drivers"
)

// Recover implements drivers.Driver by container ID. A container that
// stopped while the client was down recovers with its exit at once.
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
	info, err := d.client.InspectContainer(context.Background(), st.ContainerID)
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
	if info.State.Running {
		d.watch(t, logsSince(st))
	} else {
		t.exit.Set(&drivers.ExitResult{ExitCode: info.State.ExitCode, OOMKilled: info.State.OOMKilled})
	}
	return nil
}
