package exec

import (
	"path/filepath"
	"sort"

	"github.com/drover-project/drover/internal/client/drivers"
)

// executorSpec is what the driver hands the executor on stdin.
type executorSpec struct {
	Command     string // as configured; resolved inside the chroot
	Args        []string
	Env         []string
	User        string   // never empty: DefaultUser unless the task's user was allowed
	Caps        []string // the task's bounding set, by name
	OwnDirs     []string // host dirs chowned to User: the task's local and secrets dirs
	SharedDirs  []string // host dirs made world-writable (sticky): the alloc's shared dirs
	Root        string   // the task's root (pivot_root): the task dir
	ReadOnly    []mount  // host essentials
	ReadWrite   []mount  // alloc, local, secrets dirs
	Hostname    string
	StdoutPath  string
	StderrPath  string
	CgroupProcs []string          // cgroup.procs files the executor joins
	CgroupDirs  map[string]string // the task's cgroup dirs by controller ("unified" on v2), shown read-only at /sys/fs/cgroup
	ExitFile    string
}

// mount binds host path Source at Target inside the chroot.
type mount struct {
	Source string
	Target string
}

func readOnlyMounts(env map[string]string) []mount {
	out := make([]mount, 0, len(env))
	for src, dst := range env {
		out = append(out, mount{Source: src, Target: dst})
	}
	// Parents before children so a nested target lands inside its parent.
	sort.Slice(out, func(i, j int) bool { return out[i].Target < out[j].Target })
	return out
}

// taskMounts binds the alloc, local and secrets dirs where a task expects
// them, unless the layout already has them there.
func taskMounts(dir drivers.TaskDir) []mount {
	var out []mount
	for _, m := range []mount{{dir.AllocDir, "/alloc"}, {dir.LocalDir, "/local"}, {dir.SecretsDir, "/secrets"}} {
		if m.Source == "" || filepath.Clean(m.Source) == filepath.Join(dir.Dir, m.Target) {
			continue
		}
		out = append(out, m)
	}
	return out
}
