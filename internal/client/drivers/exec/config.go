package exec

import "github.com/drover-project/drover/internal/client/drivers"

// PluginConfig is plugin "exec" { config { ... } }.
type PluginConfig struct {
	// ChrootEnv maps host paths to paths inside the chroot, replacing
	// DefaultChrootEnv when set.
	ChrootEnv map[string]string `cfg:"chroot_env"`
	// AllowCaps bounds the capabilities a task can hold (Nomad's
	// allow_caps); nil means DefaultAllowCaps.
	AllowCaps []string `cfg:"allow_caps"`
	// User says which task `user` values this client accepts; a task
	// without one runs as DefaultUser.
	User UserPolicy `cfg:"user"`
}

// TaskConfig is an exec task's config block.
type TaskConfig struct {
	Command string   `cfg:"command,required"`
	Args    []string `cfg:"args"`
	CapAdd  []string `cfg:"cap_add"`
	CapDrop []string `cfg:"cap_drop"`
	// CPUHardLimit caps the task at its resources.cpu with a CFS quota
	// (cpu.max on v2), over CPUCFSPeriod microseconds (default 100000),
	// as the docker driver's options of the same names do.
	CPUHardLimit bool  `cfg:"cpu_hard_limit"`
	CPUCFSPeriod int64 `cfg:"cpu_cfs_period"`
	// PidsLimit caps the task's process count (pids.max); 0 is no limit.
	PidsLimit int64 `cfg:"pids_limit"`
}

// DecodeTaskConfig validates and decodes a task config.
func DecodeTaskConfig(cfg map[string]any) (*TaskConfig, error) {
	var tc TaskConfig
	if err := drivers.Decode(cfg, &tc); err != nil {
		return nil, err
	}
	if tc.PidsLimit < 0 {
		return nil, &drivers.ConfigError{Field: "pids_limit", Reason: "must not be negative"}
	}
	// The kernel takes CFS periods from 1ms to 1s.
	if tc.CPUCFSPeriod != 0 && (tc.CPUCFSPeriod < 1000 || tc.CPUCFSPeriod > 1000000) {
		return nil, &drivers.ConfigError{Field: "cpu_cfs_period", Reason: "must be between 1000 and 1000000 microseconds"}
	}
	return &tc, nil
}

// DefaultChrootEnv is what a task sees of the host, read-only: enough to
// run dynamically linked Debian binaries and resolve users and hosts.
// Entries missing on the host are skipped; symlinks (/bin -> usr/bin on a
// merged-/usr system) are recreated rather than mounted.
var DefaultChrootEnv = map[string]string{
	"/bin": "/bin", "/sbin": "/sbin", "/lib": "/lib", "/lib32": "/lib32", "/lib64": "/lib64",
	"/libx32": "/libx32", "/usr": "/usr",
	"/etc/alternatives": "/etc/alternatives", "/etc/ld.so.cache": "/etc/ld.so.cache",
	"/etc/ld.so.conf": "/etc/ld.so.conf", "/etc/ld.so.conf.d": "/etc/ld.so.conf.d",
	"/etc/passwd": "/etc/passwd", "/etc/group": "/etc/group", "/etc/nsswitch.conf": "/etc/nsswitch.conf",
	"/etc/hosts": "/etc/hosts", "/etc/resolv.conf": "/etc/resolv.conf", "/etc/host.conf": "/etc/host.conf",
	"/etc/localtime": "/etc/localtime", "/etc/ssl": "/etc/ssl", "/etc/ca-certificates": "/etc/ca-certificates",
}
