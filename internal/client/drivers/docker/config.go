package docker

import "github.com/drover-project/drover/internal/client/drivers"

// PluginConfig is plugin "docker" { config { ... } }.
type PluginConfig struct {
	Endpoint string `cfg:"endpoint"` // default unix:///var/run/docker.sock
}

// TaskConfig is a docker task's config block.
type TaskConfig struct {
	Image      string            `cfg:"image,required"`
	Command    string            `cfg:"command"`
	Args       []string          `cfg:"args"`
	Entrypoint []string          `cfg:"entrypoint"`
	Ports      []string          `cfg:"ports"` // labels of the task's allocated ports
	Labels     map[string]string `cfg:"labels"`
	Volumes    []string          `cfg:"volumes"` // "host:container[:ro]"; relative hosts are in the task dir
	WorkDir    string            `cfg:"work_dir"`
}

// DecodeTaskConfig validates and decodes a task config.
func DecodeTaskConfig(cfg map[string]any) (*TaskConfig, error) {
	var tc TaskConfig
	if err := drivers.Decode(cfg, &tc); err != nil {
		return nil, err
	}
	return &tc, nil
}
