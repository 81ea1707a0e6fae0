package docker

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/drover-project/drover/internal/client/drivers"
)

// checkIsolation refuses what would hand a task the host: privileged mode
// (every capability, every device) unless the plugin's allow_privileged,
// and the host's namespaces unless allow_host_namespaces.
func checkIsolation(cfg *TaskConfig, pc *PluginConfig) error {
	if cfg.Privileged && !pc.AllowPrivileged {
		return &drivers.ConfigError{Field: "privileged", Reason: `privileged containers are disabled on this client (plugin "docker" { config { allow_privileged = true } })`}
	}
	for _, m := range []struct{ field, mode string }{
		{"network_mode", cfg.NetworkMode}, {"pid_mode", cfg.PidMode}, {"ipc_mode", cfg.IpcMode}, {"uts_mode", cfg.UTSMode},
	} {
		if m.mode == "host" && !pc.AllowHostNamespaces {
			return &drivers.ConfigError{Field: m.field, Reason: `the host's namespaces are disabled on this client (plugin "docker" { config { allow_host_namespaces = true } })`}
		}
		if strings.HasPrefix(m.mode, "container:") && !pc.AllowHostNamespaces {
			return &drivers.ConfigError{Field: m.field, Reason: "joining another container's namespace is disabled on this client"}
		}
	}
	return nil
}

// errEscapesAllocDir refuses a relative volume that leads out of the alloc.
var errEscapesAllocDir = errors.New("the host path leads outside the allocation directory")

// volumeSource resolves a volume's host side. A relative path is taken
// from the task dir and must stay inside the alloc dir, symlinks resolved
// (docker would follow them on the host); the resolved path is what
// docker gets, so a link planted by the task cannot redirect the mount.
// An absolute path is a host bind mount, allowed only with
// volumes { enabled = true }.
func volumeSource(tc *drivers.TaskConfig, host string, hostVolumes bool) (string, error) {
	if filepath.IsAbs(host) {
		if !hostVolumes {
			return "", errors.New(`host bind mounts are disabled on this client (plugin "docker" { config { volumes { enabled = true } } })`)
		}
		return host, nil
	}
	if tc.TaskDir.Dir == "" {
		return "", errors.New("a relative host path needs a task dir")
	}
	allocRoot := filepath.Dir(filepath.Clean(tc.TaskDir.Dir))
	full := filepath.Join(tc.TaskDir.Dir, host)
	if !within(allocRoot, full) {
		return "", errEscapesAllocDir
	}
	realRoot, err := filepath.EvalSymlinks(allocRoot)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(full)
	if errors.Is(err, os.ErrNotExist) {
		// Docker would create it; create it here, inside, instead.
		if err := os.MkdirAll(full, 0o755); err != nil {
			return "", err
		}
		real, err = filepath.EvalSymlinks(full)
	}
	if err != nil {
		return "", err
	}
	if !within(realRoot, real) {
		return "", errEscapesAllocDir
	}
	return real, nil
}

// within reports whether path is root or below it (both clean).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
