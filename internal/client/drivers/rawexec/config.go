package rawexec

import "github.com/drover-project/drover/internal/client/drivers"

// PluginConfig is plugin "raw_exec" { config { ... } }.
type PluginConfig struct {
	Enabled bool `cfg:"enabled"`
}

// TaskConfig is a raw_exec task's config block.
type TaskConfig struct {
	Command string   `cfg:"command,required"`
	Args    []string `cfg:"args"`
}

// DecodeTaskConfig validates and decodes a task config.
func DecodeTaskConfig(cfg map[string]any) (*TaskConfig, error) {
	var tc TaskConfig
	if err := drivers.Decode(cfg, &tc); err != nil {
		return nil, err
	}
	return &tc, nil
}
