package docker

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/drover-project/drover/internal/client/drivers"
)

// checkIsolation refuses what would hand a task the host: privileged mode
// (every capability, every device) unless the plugin's allow_privileged,
// the host's namespaces unless allow_host_namespaces, capabilities
// outside allow_caps and runtimes outside allow_runtimes.
func checkIsolation(cfg *TaskConfig, pc *PluginConfig) error {
	if cfg.Privileged && !pc.AllowPrivileged {
		return &drivers.ConfigError{Field: "privileged", Reason: `privileged containers are disabled on this client (plugin "docker" { config { allow_privileged = true } })`}
	}
	for _, m := range []struct{ field, mode string }{
		{"network_mode", cfg.NetworkMode}, {"pid_mode", cfg.PidMode}, {"ipc_mode", cfg.IpcMode}, {"uts_mode", cfg.UTSMode}, {"userns_mode", cfg.UsernsMode},
	} {
		if m.mode == "host" && !pc.AllowHostNamespaces {
			return &drivers.ConfigError{Field: m.field, Reason: `the host's namespaces are disabled on this client (plugin "docker" { config { allow_host_namespaces = true } })`}
		}
		if strings.HasPrefix(m.mode, "container:") && !pc.AllowHostNamespaces {
			return &drivers.ConfigError{Field: m.field, Reason: "joining another container's namespace is disabled on this client"}
		}
	}
	allowAll := slices.ContainsFunc(pc.AllowCaps, func(c string) bool { return normCap(c) == "all" })
	for _, c := range cfg.CapAdd {
		if !allowAll && !slices.ContainsFunc(pc.AllowCaps, func(a string) bool { return normCap(a) == normCap(c) }) {
			return &drivers.ConfigError{Field: "cap_add", Reason: fmt.Sprintf(`capability %q is not in this client's allow_caps (plugin "docker" { config { allow_caps } })`, c)}
		}
	}
	if cfg.Runtime != "" && !slices.Contains(pc.AllowRuntimes, cfg.Runtime) {
		return &drivers.ConfigError{Field: "runtime", Reason: fmt.Sprintf(`runtime %q is not in this client's allow_runtimes %v`, cfg.Runtime, pc.AllowRuntimes)}
	}
	return nil
}

// normCap is a capability's name without case or CAP_ prefix.
func normCap(c string) string { return strings.TrimPrefix(strings.ToLower(c), "cap_") }

// errEscapesAllocDir refuses a relative volume that leads out of the alloc.
var errEscapesAllocDir = errors.New("the host path leads outside the allocation directory")

// volumeSource resolves a volume's host side. A relative path is taken
// from the task dir and must stay inside the alloc dir; it is opened
// there and staged (see volume_beneath.go), and Docker gets the staged
// mount, never a path a task could re-point. The staging dir is returned
// for the caller to remove once the container has started. An absolute
// path is a host bind mount, allowed only with volumes { enabled = true }.
func volumeSource(tc *drivers.TaskConfig, host string, hostVolumes bool) (src, staging string, err error) {
	if filepath.IsAbs(host) {
		if !hostVolumes {
			return "", "", errors.New(`host bind mounts are disabled on this client (plugin "docker" { config { volumes { enabled = true } } })`)
		}
		return host, "", nil
	}
	if tc.TaskDir.Dir == "" {
		return "", "", errors.New("a relative host path needs a task dir")
	}
	taskDir := filepath.Clean(tc.TaskDir.Dir)
	allocRoot := filepath.Dir(taskDir)
	f, err := openVolumeBeneath(allocRoot, filepath.Join(filepath.Base(taskDir), host), openat2PathBeneath)
	if err != nil {
		return "", "", err
	}
	defer f.Close() // the mount holds the directory from here on
	staging, err = stageVolume(allocRoot, f)
	if err != nil {
		return "", "", err
	}
	return filepath.Join(staging, "v"), staging, nil
}
