package exec

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/drover-project/drover/internal/client/drivers"
)

// Name is the driver's name in job files.
const Name = "exec"

// Options are the Go-level knobs the agent (or a test) sets.
type Options struct {
	// ExecutorCommand starts the executor; default: this binary with
	// ExecutorArg.
	ExecutorCommand []string
	// ExecutorEnv is the executor's environment (not the task's).
	ExecutorEnv []string
	// CgroupParent is the cgroup under which task cgroups are made.
	CgroupParent string
	// StateDir holds the executors' exit files; default: the alloc dir
	// (the parent of the task dir), outside the task's chroot.
	StateDir string
}

// Driver is the exec driver.
type Driver struct {
	cfg    PluginConfig
	opts   Options
	logger *slog.Logger

	tasks drivers.TaskSet[*task]
}

// New builds the driver with default Options; it is the Factory.
func New(config map[string]any, env drivers.Env) (drivers.Driver, error) {
	return NewWithOptions(config, env, Options{})
}

// NewWithOptions builds the driver.
func NewWithOptions(config map[string]any, env drivers.Env, opts Options) (*Driver, error) {
	var pc PluginConfig
	if err := drivers.Decode(config, &pc); err != nil {
		return nil, err
	}
	if pc.ChrootEnv == nil {
		pc.ChrootEnv = DefaultChrootEnv
	}
	if pc.AllowCaps == nil {
		pc.AllowCaps = DefaultAllowCaps
	}
	if _, err := taskCaps(pc.AllowCaps, nil, nil); err != nil {
		return nil, &drivers.ConfigError{Field: "allow_caps", Reason: err.Error()}
	}
	if len(opts.ExecutorCommand) == 0 {
		self, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("locate executor binary: %w", err)
		}
		opts.ExecutorCommand = []string{self, ExecutorArg}
	}
	if opts.CgroupParent == "" {
		opts.CgroupParent = "drover"
	}
	logger := env.Logger
	if logger == nil {
		logger = slog.Default()
	}
	return &Driver{cfg: pc, opts: opts, logger: logger}, nil
}

// Name implements drivers.Driver.
func (d *Driver) Name() string { return Name }

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
