package docker

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
	"github.com/moby/moby/client"
)

// Name is the driver's name in job files.
const Name = "docker"

// fingerprintTimeout bounds the daemon check so a hung daemon does not
// stall the client's fingerprinting.
const fingerprintTimeout = 5 * time.Second

// Driver is the docker driver.
type Driver struct {
	client *client.Client
	logger *slog.Logger
	clock  clock.Clock
	cfg    PluginConfig

	tasks      drivers.TaskSet[*task]
	containers tracked // the tasks' container IDs, for the reconciler
	images     *imageRefs

	reconcileOnce sync.Once
}

// New builds the driver from its plugin config; it is the Factory.
func New(config map[string]any, env drivers.Env) (drivers.Driver, error) {
	pc, err := decodePluginConfig(config)
	if err != nil {
		return nil, err
	}
	c, err := newClient(pc.Endpoint)
	if err != nil {
		return nil, err
	}
	logger := env.Logger
	if logger == nil {
		logger = slog.Default()
	}
	clk := env.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	d := &Driver{client: c, logger: logger, clock: clk, cfg: *pc}
	d.images = newImageRefs(d)
	return d, nil
}

// Name implements drivers.Driver.
func (d *Driver) Name() string { return Name }

// Fingerprint is healthy when the daemon answers. The first healthy one
// starts the dangling-container reconciler.
func (d *Driver) Fingerprint(ctx context.Context) *structs.DriverInfo {
	ctx, cancel := context.WithTimeout(ctx, fingerprintTimeout)
	defer cancel()
	info := &structs.DriverInfo{Attributes: map[string]string{}}
	v, err := d.client.ServerVersion(ctx, client.ServerVersionOptions{})
	if err != nil {
		info.HealthDescription = "docker daemon unreachable: " + err.Error()
		return info
	}
	info.Detected, info.Healthy, info.HealthDescription = true, true, "healthy"
	info.Attributes["driver.docker"] = "1"
	info.Attributes["driver.docker.version"] = v.Version
	info.Attributes["driver.docker.api_version"] = v.APIVersion
	if d.cfg.GC.DanglingContainers.Enabled {
		d.reconcileOnce.Do(func() { go d.reconcileLoop() })
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
