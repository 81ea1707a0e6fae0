package drivers

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// MountConfig is a host directory (a host volume) the task sees at
// TaskPath: an absolute path in the task's view (inside the container or
// chroot; under the task dir for drivers without isolation).
type MountConfig struct {
	HostPath string
	TaskPath string
	ReadOnly bool
}

// LinkMounts makes each mount visible to a task without isolation
// (raw_exec) as a symlink at TaskPath under the task dir: the task reads
// the host path directly, and read_only cannot be enforced.
func LinkMounts(taskDir string, mounts []MountConfig) error {
	for _, m := range mounts {
		rel := strings.TrimPrefix(filepath.Clean("/"+m.TaskPath), "/")
		if rel == "" {
			return fmt.Errorf("volume mount at %q: not a path under the task dir", m.TaskPath)
		}
		link := filepath.Join(taskDir, rel)
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			return err
		}
		if cur, err := os.Readlink(link); err == nil && cur == m.HostPath {
			continue // a restart of the task
		}
		if err := os.Symlink(m.HostPath, link); err != nil {
			return fmt.Errorf("volume mount at %q: %w", m.TaskPath, err)
		}
	}
	return nil
}
