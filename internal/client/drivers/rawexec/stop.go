package rawexec

import (
	"context"
	"os"
	"syscall"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/drivers/procutil"
)

// Stop implements drivers.Driver: the signal goes to the whole process
// group, SIGKILL follows after timeout (and always at the end, for
// stragglers the leader left behind).
func (d *Driver) Stop(taskID string, timeout time.Duration, signal string) error {
	t, sig, err := d.tasks.WithSignal(taskID, signal)
	if err != nil {
		return err
	}
	if t.exit.Exited() {
		return procutil.SignalGroup(t.state.PID, syscall.SIGKILL)
	}
	if err := procutil.StopGroup(t.state.PID, sig, timeout, t.exit.Done()); err != nil {
		return err
	}
	// The leader is dead now; give the waiter a moment to record it.
	select {
	case <-t.exit.Done():
	case <-time.After(5 * time.Second):
	}
	return nil
}

// Signal implements drivers.Driver.
func (d *Driver) Signal(taskID string, signal string) error {
	t, sig, err := d.tasks.WithSignal(taskID, signal)
	if err != nil {
		return err
	}
	if t.exit.Exited() {
		return drivers.ErrTaskGone
	}
	return procutil.SignalGroup(t.state.PID, sig)
}

// Destroy implements drivers.Driver.
func (d *Driver) Destroy(taskID string, force bool) error {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return err
	}
	if !t.exit.Exited() {
		if !force {
			return drivers.ErrTaskRunning
		}
		if err := d.Stop(taskID, 0, "SIGKILL"); err != nil {
			return err
		}
	}
	d.tasks.Remove(taskID)
	if t.state.ExitFile != "" {
		_ = os.Remove(t.state.ExitFile)
		// A supervisor that died on its own leaves its task's group behind.
		killGroup(groupRecord{PGID: t.state.PID, StartTime: t.state.StartTime})
		_ = os.Remove(groupRecordPath(t.state.ExitFile))
	}
	return nil
}

// Stats implements drivers.Driver by summing over the process group.
func (d *Driver) Stats(_ context.Context, taskID string) (*drivers.TaskStats, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	if t.exit.Exited() {
		return nil, drivers.ErrTaskGone
	}
	user, sys, rss, err := procutil.GroupUsage(t.state.PID)
	if err != nil {
		return nil, err
	}
	return &drivers.TaskStats{
		Timestamp: time.Now(), CPUUserNanos: user, CPUSystemNanos: sys, CPUTotalNanos: user + sys,
		MemoryRSSBytes: rss,
		Measured:       []string{drivers.MeasuredCPUUser, drivers.MeasuredCPUSystem, drivers.MeasuredCPUTotal, drivers.MeasuredMemRSS},
	}, nil
}
