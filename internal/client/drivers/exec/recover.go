package exec

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/drivers/procutil"
)

// Recover implements drivers.Driver. The executor outlives the client, so
// re-attaching means watching its PID; its exit file then gives the real
// exit status. A task that finished while the client was down still
// recovers, and its Wait reports that exit at once.
func (d *Driver) Recover(h *drivers.TaskHandle) error {
	if h == nil || h.Driver != Name || h.Version != handleVersion {
		return drivers.ErrHandleMismatch
	}
	var st taskState
	if err := json.Unmarshal(h.State, &st); err != nil {
		return fmt.Errorf("decode exec handle: %w", err)
	}
	if _, err := d.tasks.Get(h.TaskID); err == nil {
		return nil
	}
	alive := st.ExecutorPID > 0 && procutil.Alive(st.ExecutorPID, st.ExecutorStartTime)
	if !alive && drivers.ReadExitRecord(st.ExitFile) == nil {
		return fmt.Errorf("executor pid %d: %w", st.ExecutorPID, drivers.ErrTaskGone)
	}
	t := &task{id: h.TaskID, state: st, cg: &cgroup{st.Cgroup}, exit: drivers.NewExitWaiter()}
	if err := d.tasks.Add(t.id, t); err != nil {
		return err
	}
	go func() {
		_ = procutil.WaitGone(context.Background(), st.ExecutorPID, st.ExecutorStartTime)
		t.finish(nil)
	}()
	return nil
}
