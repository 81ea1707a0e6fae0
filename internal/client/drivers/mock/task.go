package mock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/clock"
)

const handleVersion = 1

// taskState is the handle's State: the config and start time are enough
// to replay the script in a new driver.
type taskState struct {
	Config    map[string]any
	StartedAt time.Time
}

type task struct {
	id    string
	cfg   *TaskConfig
	state taskState
	exit  *drivers.ExitWaiter

	mu      sync.Mutex
	timer   clock.Timer
	signals []string
}

// Start implements drivers.Driver.
func (d *Driver) Start(ctx context.Context, tc *drivers.TaskConfig) (*drivers.TaskHandle, error) {
	cfg, err := DecodeTaskConfig(tc.Config)
	if err != nil {
		return nil, err
	}
	if cfg.StartBlockFor > 0 {
		select {
		case <-d.clock.After(cfg.StartBlockFor):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if cfg.StartError != "" {
		return nil, errors.New(cfg.StartError)
	}
	if cfg.StdoutString != "" && tc.StdoutPath != "" {
		if err := appendFile(tc.StdoutPath, cfg.StdoutString); err != nil {
			return nil, fmt.Errorf("write stdout log: %w", err)
		}
	}
	t := &task{id: tc.ID, cfg: cfg, exit: drivers.NewExitWaiter(), state: taskState{Config: tc.Config, StartedAt: d.clock.Now()}}
	if err := d.tasks.Add(t.id, t); err != nil {
		return nil, err
	}
	d.run(t, cfg.RunFor)
	return t.handle()
}

// run arms the exit after d (never, when run_for is 0).
func (d *Driver) run(t *task, after time.Duration) {
	if t.cfg.RunFor == 0 {
		return
	}
	if after <= 0 {
		t.exit.Set(t.scriptedExit())
		return
	}
	t.mu.Lock()
	t.timer = d.clock.AfterFunc(after, func() { t.exit.Set(t.scriptedExit()) })
	t.mu.Unlock()
}

func (t *task) scriptedExit() *drivers.ExitResult {
	res := &drivers.ExitResult{ExitCode: t.cfg.ExitCode, Signal: t.cfg.ExitSignal, OOMKilled: t.cfg.OOMKilled}
	if t.cfg.ExitErrMsg != "" {
		res.Err = errors.New(t.cfg.ExitErrMsg)
	}
	return res
}

// killed ends the task as a signal would.
func (t *task) killed(sig syscall.Signal) {
	t.mu.Lock()
	if t.timer != nil {
		t.timer.Stop()
	}
	t.mu.Unlock()
	t.exit.Set(&drivers.ExitResult{ExitCode: 128 + int(sig), Signal: int(sig)})
}

func (t *task) handle() (*drivers.TaskHandle, error) {
	raw, err := json.Marshal(t.state)
	if err != nil {
		return nil, err
	}
	return &drivers.TaskHandle{Driver: Name, TaskID: t.id, Version: handleVersion, StartedAt: t.state.StartedAt, State: raw}, nil
}

func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
