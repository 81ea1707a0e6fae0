package mock

import (
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
)

// TaskConfig is a mock task's config block (see the package doc).
type TaskConfig struct {
	RunFor        time.Duration `cfg:"run_for"`
	ExitCode      int           `cfg:"exit_code"`
	ExitSignal    int           `cfg:"exit_signal"`
	ExitErrMsg    string        `cfg:"exit_err_msg"`
	OOMKilled     bool          `cfg:"oom_killed"`
	StartError    string        `cfg:"start_error"`
	StartBlockFor time.Duration `cfg:"start_block_for"`
	KillAfter     time.Duration `cfg:"kill_after"`
	SignalError   string        `cfg:"signal_error"`
	StdoutString  string        `cfg:"stdout_string"`
}

// DecodeTaskConfig validates and decodes a task config.
func DecodeTaskConfig(cfg map[string]any) (*TaskConfig, error) {
	var tc TaskConfig
	if err := drivers.Decode(cfg, &tc); err != nil {
		return nil, err
	}
	return &tc, nil
}

// PluginConfig is plugin "mock" { config { ... } }; it has no settings.
type PluginConfig struct{}
