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
}

// DecodeTaskConfig validates and decodes a task config.
func DecodeTaskConfig(cfg map[string]any) (*TaskConfig, error) {
	var tc TaskConfig
	if err := drivers.Decode(cfg, &tc); err != nil {
		return nil, err
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
