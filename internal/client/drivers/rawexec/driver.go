package rawexec

import (
	"context"
	"log/slog"
	"runtime"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// Name is the driver's name in job files.
const Name = "raw_exec"

// Health descriptions.
const (
	HealthyDescription  = "healthy"
	DisabledDescription = `raw_exec is disabled; enable it with plugin "raw_exec" { config { enabled = true } }`
	NotLinuxDescription = "raw_exec needs Linux"
)

// Driver is the raw_exec driver.
type Driver struct {
	cfg    PluginConfig
	logger *slog.Logger

	tasks drivers.TaskSet[*task]
}

// New builds the driver from its plugin config.
func New(config map[string]any, env drivers.Env) (drivers.Driver, error) {
	var pc PluginConfig
	if err := drivers.Decode(config, &pc); err != nil {
		return nil, err
	}
	logger := env.Logger
	if logger == nil {
		logger = slog.Default()
	}
	return &Driver{cfg: pc, logger: logger}, nil
}

// Name implements drivers.Driver.
func (d *Driver) Name() string { return Name }

// Fingerprint is undetected while disabled, so raw_exec jobs are not
// placed on clients that would refuse them.
func (d *Driver) Fingerprint(context.Context) *structs.DriverInfo {
	info := &structs.DriverInfo{Attributes: map[string]string{}}
	switch {
	case runtime.GOOS != "linux":
		info.HealthDescription = NotLinuxDescription
	case !d.cfg.Enabled:
		info.HealthDescription = DisabledDescription
	default:
		info.Detected, info.Healthy, info.HealthDescription = true, true, HealthyDescription
		info.Attributes["driver.raw_exec"] = "1"
	}
	return info
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
