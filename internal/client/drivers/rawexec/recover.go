package rawexec

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/drivers/procutil"
)

// Recover implements drivers.Driver: it re-attaches to the process the
// handle names if that PID still runs with the same start time.
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
	if st.PID <= 0 || !procutil.Alive(st.PID, st.StartTime) {
		return fmt.Errorf("pid %d: %w", st.PID, drivers.ErrTaskGone)
	}
	t := &task{id: h.TaskID, state: st, exit: drivers.NewExitWaiter()}
	if err := d.tasks.Add(t.id, t); err != nil {
		return err
	}
	go func() {
		_ = procutil.WaitGone(context.Background(), st.PID, st.StartTime)
		t.exit.Set(&drivers.ExitResult{Err: drivers.ErrExitStatusUnknown})
	}()
	return nil
}
