package docker

import "github.com/drover-project/drover/internal/client/drivers"

// PluginConfig is plugin "docker" { config { ... } }.
type PluginConfig struct {
	Endpoint string `cfg:"endpoint"` // default unix:///var/run/docker.sock
	// Volumes { enabled = true } lets tasks bind absolute host paths;
	// without it only paths inside the alloc dir can be mounted.
	Volumes VolumesConfig `cfg:"volumes"`
	// AllowPrivileged lets tasks set privileged = true.
	AllowPrivileged bool `cfg:"allow_privileged"`
	// AllowHostNamespaces lets tasks share the host's network, PID, IPC or
	// UTS namespace (network_mode, pid_mode, ipc_mode, uts_mode = "host").
	AllowHostNamespaces bool `cfg:"allow_host_namespaces"`
}

// VolumesConfig is the plugin config's volumes { } block.
type VolumesConfig struct {
	Enabled      bool   `cfg:"enabled"`
	SELinuxLabel string `cfg:"selinuxlabel"`
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

	Privileged  bool   `cfg:"privileged"`
	NetworkMode string `cfg:"network_mode"`
	PidMode     string `cfg:"pid_mode"`
	IpcMode     string `cfg:"ipc_mode"`
	UTSMode     string `cfg:"uts_mode"`
}

// DecodeTaskConfig validates and decodes a task config.
func DecodeTaskConfig(cfg map[string]any) (*TaskConfig, error) {
	var tc TaskConfig
	if err := drivers.Decode(cfg, &tc); err != nil {
		return nil, err
	}
	return &tc, nil
}
