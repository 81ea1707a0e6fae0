package mock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
)

// Stop implements drivers.Driver on the clock: the task dies kill_after
// after the signal, or is SIGKILLed at the timeout if that comes first.
func (d *Driver) Stop(taskID string, timeout time.Duration, signal string) error {
	t, sig, err := d.tasks.WithSignal(taskID, signal)
	if err != nil {
		return err
	}
	if t.exit.Exited() {
		return nil
	}
	wait, final := t.cfg.KillAfter, sig
	if sig != syscall.SIGKILL && wait >= timeout {
		wait, final = timeout, syscall.SIGKILL
	}
	if sig == syscall.SIGKILL {
		wait = 0
	}
	if wait > 0 {
		select {
		case <-d.clock.After(wait):
		case <-t.exit.Done(): // it exited on its own meanwhile
			return nil
		}
	}
	t.killed(final)
	return nil
}

// Signal implements drivers.Driver.
func (d *Driver) Signal(taskID string, signal string) error {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return err
	}
	if t.cfg.SignalError != "" {
		return errors.New(t.cfg.SignalError)
	}
	if _, err := drivers.ParseSignal(signal); err != nil {
		return err
	}
	if t.exit.Exited() {
		return drivers.ErrTaskGone
	}
	t.mu.Lock()
	t.signals = append(t.signals, signal)
	t.mu.Unlock()
	return nil
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
		t.killed(syscall.SIGKILL)
	}
	d.tasks.Remove(taskID)
	return nil
}

// Recover implements drivers.Driver: the script resumes where the clock
// says it is, and a task whose run_for has passed exits at once.
func (d *Driver) Recover(h *drivers.TaskHandle) error {
	if h == nil || h.Driver != Name || h.Version != handleVersion {
		return drivers.ErrHandleMismatch
	}
	var st taskState
	if err := json.Unmarshal(h.State, &st); err != nil {
		return fmt.Errorf("decode mock handle: %w", err)
	}
	cfg, err := DecodeTaskConfig(st.Config)
	if err != nil {
		return err
	}
	if _, err := d.tasks.Get(h.TaskID); err == nil {
		return nil
	}
	t := &task{id: h.TaskID, cfg: cfg, state: st, exit: drivers.NewExitWaiter()}
	if err := d.tasks.Add(t.id, t); err != nil {
		return err
	}
	d.run(t, cfg.RunFor-d.clock.Now().Sub(st.StartedAt))
	return nil
}

// Stats implements drivers.Driver with fixed figures.
func (d *Driver) Stats(_ context.Context, taskID string) (*drivers.TaskStats, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	if t.exit.Exited() {
		return nil, drivers.ErrTaskGone
	}
	return &drivers.TaskStats{Timestamp: d.clock.Now(), MemoryRSSBytes: 1 << 20, MemoryUsageBytes: 1 << 20,
		Measured: []string{drivers.MeasuredMemRSS, drivers.MeasuredMemUsage}}, nil
}
