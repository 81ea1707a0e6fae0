package mock

import (
	"context"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// Name is the driver's name in job files.
const Name = "mock"

// Driver is the mock driver.
type Driver struct {
	clock clock.Clock

	tasks drivers.TaskSet[*task]
}

// New builds the driver on env.Clock (the wall clock when nil); it is the
// Factory.
func New(config map[string]any, env drivers.Env) (drivers.Driver, error) {
	var pc PluginConfig
	if err := drivers.Decode(config, &pc); err != nil {
		return nil, err
	}
	return NewWithClock(env.Clock), nil
}

// NewWithClock builds the driver on c.
func NewWithClock(c clock.Clock) *Driver {
	if c == nil {
		c = clock.Real{}
	}
	return &Driver{clock: c}
}

// Name implements drivers.Driver.
func (d *Driver) Name() string { return Name }

// Fingerprint is always healthy.
func (d *Driver) Fingerprint(context.Context) *structs.DriverInfo {
	return &structs.DriverInfo{Detected: true, Healthy: true, HealthDescription: "healthy",
		Attributes: map[string]string{"driver.mock": "1"}, UpdateTime: d.clock.Now()}
}

// ValidateConfig implements drivers.Driver.
func (d *Driver) ValidateConfig(cfg map[string]any) error {
	_, err := DecodeTaskConfig(cfg)
	return err
}

// Wait implements drivers.Driver.
func (d *Driver) Wait(ctx context.Context, taskID string) (<-chan *drivers.ExitResult, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	return t.exit.Chan(ctx), nil
}

// Signals lists the signals a task received through Signal, for tests.
func (d *Driver) Signals(taskID string) []string {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.signals...)
}
