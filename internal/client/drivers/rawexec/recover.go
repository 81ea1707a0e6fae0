package rawexec

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/drivers/procutil"
)

// Recover implements drivers.Driver: it re-attaches to the supervisor the
// handle names if that PID still runs with the same start time, and then
// learns the task's exit from the supervisor's exit file. A task that
// finished while the client was down still recovers, and its Wait
// reports that exit at once: it must not run again.
func (d *Driver) Recover(h *drivers.TaskHandle) error {
	if h == nil || h.Driver != Name || h.Version != handleVersion {
		return drivers.ErrHandleMismatch
	}
	var st taskState
	if err := json.Unmarshal(h.State, &st); err != nil {
		return fmt.Errorf("decode raw_exec handle: %w", err)
	}
	if _, err := d.tasks.Get(h.TaskID); err == nil {
		return nil // already known: nothing to re-attach
	}
	alive := st.PID > 0 && procutil.Alive(st.PID, st.StartTime)
	if !alive && drivers.ReadExitRecord(st.ExitFile) == nil {
		return fmt.Errorf("pid %d: %w", st.PID, drivers.ErrTaskGone)
	}
	t := &task{id: h.TaskID, state: st, exit: drivers.NewExitWaiter()}
	if err := d.tasks.Add(t.id, t); err != nil {
		return err
	}
	go func() {
		_ = procutil.WaitGone(context.Background(), st.PID, st.StartTime)
		t.finish(nil)
	}()
	return nil
}
