package docker

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
)

// PluginConfig is plugin "docker" { config { ... } }.
type PluginConfig struct {
	Endpoint string `cfg:"endpoint"` // default unix:///var/run/docker.sock
	// Auth is where registry credentials come from when a task has none.
	Auth PluginAuth `cfg:"auth"`
	// GC says what the driver removes once tasks are done with it.
	GC GCConfig `cfg:"gc"`
	// Volumes { enabled = true } lets tasks bind absolute host paths;
	// without it only paths inside the alloc dir can be mounted.
	Volumes VolumesConfig `cfg:"volumes"`
	// AllowPrivileged lets tasks set privileged = true.
	AllowPrivileged bool `cfg:"allow_privileged"`
	// AllowHostNamespaces lets tasks share the host's network, PID, IPC,
	// UTS or user namespace (network_mode, pid_mode, ipc_mode, uts_mode,
	// userns_mode = "host").
	AllowHostNamespaces bool `cfg:"allow_host_namespaces"`
	// AllowCaps is what cap_add may name ("all" allows any); nil is
	// Nomad's default list.
	AllowCaps []string `cfg:"allow_caps"`
	// AllowRuntimes is what runtime may name; nil is ["runc"].
	AllowRuntimes []string `cfg:"allow_runtimes"`
	// ExtraLabels names task facts to label every container with
	// (com.hashicorp.nomad.<name>): job_name, job_id, task_group_name,
	// task_name, namespace, alloc_id, or globs of them.
	ExtraLabels []string `cfg:"extra_labels"`
	// PullActivityTimeout cancels a pull that made no progress this long
	// (default 2m); a task's own pull_activity_timeout may lower it.
	PullActivityTimeout time.Duration `cfg:"pull_activity_timeout"`
}

// PluginAuth is the plugin's auth { config helper } block.
type PluginAuth struct {
	// Config is a docker config.json: its auths, credHelpers and
	// credsStore are read for the image's registry.
	Config string `cfg:"config"`
	// Helper is a credential helper (docker-credential-<helper> on PATH)
	// asked for every registry the config file does not answer for.
	Helper string `cfg:"helper"`
}

// GCConfig is the plugin's gc block.
type GCConfig struct {
	// Image removes an image once no task on this node uses it and
	// ImageDelay has passed (default true, 3m).
	Image      bool          `cfg:"image"`
	ImageDelay time.Duration `cfg:"image_delay"`
	// Container removes a task's container when the task is destroyed
	// (default true).
	Container bool `cfg:"container"`
	// DanglingContainers removes containers this driver made that no task
	// tracks (a client restart whose alloc went away meanwhile).
	DanglingContainers DanglingConfig `cfg:"dangling_containers"`
}

// DanglingConfig is gc { dangling_containers { } }.
type DanglingConfig struct {
	Enabled       bool          `cfg:"enabled"`        // default true
	DryRun        bool          `cfg:"dry_run"`        // log, do not remove
	Period        time.Duration `cfg:"period"`         // default 5m
	CreationGrace time.Duration `cfg:"creation_grace"` // default 5m
}

// VolumesConfig is the plugin config's volumes { } block.
type VolumesConfig struct {
	Enabled      bool   `cfg:"enabled"`
	SELinuxLabel string `cfg:"selinuxlabel"`
}

// Plugin defaults, as Nomad's.
const (
	defaultImageDelay          = 3 * time.Minute
	defaultPullActivityTimeout = 2 * time.Minute
	defaultImagePullTimeout    = 5 * time.Minute
	defaultDanglingPeriod      = 5 * time.Minute
	defaultCreationGrace       = 5 * time.Minute
)

// defaultAllowCaps is Docker's default capability set, Nomad's default
// allow_caps.
var defaultAllowCaps = []string{"audit_write", "chown", "dac_override", "fowner", "fsetid", "kill", "mknod",
	"net_bind_service", "setfcap", "setgid", "setpcap", "setuid", "sys_chroot"}

// decodePluginConfig decodes the plugin block and fills in Nomad's
// defaults, the true ones where the key is absent.
func decodePluginConfig(raw map[string]any) (*PluginConfig, error) {
	pc := &PluginConfig{}
	if err := drivers.Decode(raw, pc); err != nil {
		return nil, err
	}
	for _, p := range pc.ExtraLabels {
		if !slices.ContainsFunc(extraLabelNames, func(n string) bool { ok, _ := path.Match(p, n); return ok }) {
			return nil, &drivers.ConfigError{Field: "extra_labels", Reason: fmt.Sprintf("%q names none of %v (node_id and node_name are not known to the driver)", p, extraLabelNames)}
		}
	}
	gc := block(raw, "gc")
	if _, ok := gc["image"]; !ok {
		pc.GC.Image = true
	}
	if _, ok := gc["container"]; !ok {
		pc.GC.Container = true
	}
	if _, ok := block(gc, "dangling_containers")["enabled"]; !ok {
		pc.GC.DanglingContainers.Enabled = true
	}
	if pc.GC.ImageDelay == 0 {
		pc.GC.ImageDelay = defaultImageDelay
	}
	if pc.PullActivityTimeout == 0 {
		pc.PullActivityTimeout = defaultPullActivityTimeout
	}
	if pc.GC.DanglingContainers.Period == 0 {
		pc.GC.DanglingContainers.Period = defaultDanglingPeriod
	}
	if pc.GC.DanglingContainers.CreationGrace == 0 {
		pc.GC.DanglingContainers.CreationGrace = defaultCreationGrace
	}
	if pc.AllowCaps == nil {
		pc.AllowCaps = defaultAllowCaps
	}
	if pc.AllowRuntimes == nil {
		pc.AllowRuntimes = []string{"runc"}
	}
	return pc, nil
}

// block is the body of a nested block in a decoded config (a map, or the
// one-element list HCL gives), nil when absent.
func block(cfg map[string]any, name string) map[string]any {
	switch v := cfg[name].(type) {
	case map[string]any:
		return v
	case []map[string]any:
		if len(v) == 1 {
			return v[0]
		}
	case []any:
		if len(v) == 1 {
			m, _ := v[0].(map[string]any)
			return m
		}
	}
	return nil
}

// TaskConfig is a docker task's config block: every option of Nomad's
// docker driver that Drover acts on (Options lists them with the ones it
// refuses).
type TaskConfig struct {
	Image               string        `cfg:"image,required"`
	ImagePullTimeout    time.Duration `cfg:"image_pull_timeout"`
	PullActivityTimeout time.Duration `cfg:"pull_activity_timeout"`
	ForcePull           bool          `cfg:"force_pull"`
	Auth                TaskAuth      `cfg:"auth"`
	AuthSoftFail        bool          `cfg:"auth_soft_fail"`

	Command     string   `cfg:"command"`
	Args        []string `cfg:"args"`
	Entrypoint  []string `cfg:"entrypoint"`
	WorkDir     string   `cfg:"work_dir"`
	Interactive bool     `cfg:"interactive"`
	TTY         bool     `cfg:"tty"`

	Ports   []string       `cfg:"ports"` // labels of the task's allocated ports
	PortMap map[string]int // port_map: label -> container port (decoded by hand)

	Labels       map[string]string `cfg:"labels"`
	Volumes      []string          `cfg:"volumes"` // "host:container[:ro]"; relative hosts are in the task dir
	VolumeDriver string            `cfg:"volume_driver"`
	Mounts       []Mount           // mount blocks (decoded by hand)
	Devices      []Device          // devices blocks (decoded by hand)
	Logging      Logging           `cfg:"logging"`

	Privileged   bool   `cfg:"privileged"`
	NetworkMode  string `cfg:"network_mode"`
	PidMode      string `cfg:"pid_mode"`
	IpcMode      string `cfg:"ipc_mode"`
	UTSMode      string `cfg:"uts_mode"`
	UsernsMode   string `cfg:"userns_mode"`
	CgroupnsMode string `cfg:"cgroupns"`

	CapAdd         []string          `cfg:"cap_add"`
	CapDrop        []string          `cfg:"cap_drop"`
	SecurityOpt    []string          `cfg:"security_opt"`
	Runtime        string            `cfg:"runtime"`
	ReadonlyRootfs bool              `cfg:"readonly_rootfs"`
	Init           bool              `cfg:"init"`
	GroupAdd       []string          `cfg:"group_add"`
	Ulimit         map[string]string `cfg:"ulimit"`
	Sysctl         map[string]string `cfg:"sysctl"`
	StorageOpt     map[string]string `cfg:"storage_opt"`
	ShmSize        int64             `cfg:"shm_size"`
	OOMScoreAdj    int               `cfg:"oom_score_adj"`
	PidsLimit      int64             `cfg:"pids_limit"`

	MemoryHardLimit int64 `cfg:"memory_hard_limit"` // MB
	CPUHardLimit    bool  `cfg:"cpu_hard_limit"`
	CPUCFSPeriod    int64 `cfg:"cpu_cfs_period"` // microseconds, default 100000

	Hostname         string   `cfg:"hostname"`
	DNSServers       []string `cfg:"dns_servers"`
	DNSSearchDomains []string `cfg:"dns_search_domains"`
	DNSOptions       []string `cfg:"dns_options"`
	ExtraHosts       []string `cfg:"extra_hosts"`
	NetworkAliases   []string `cfg:"network_aliases"`
	MacAddress       string   `cfg:"mac_address"`
	IPv4Address      string   `cfg:"ipv4_address"`

	Healthchecks Healthchecks `cfg:"healthchecks"`
}

// TaskAuth is a task's auth { } block.
type TaskAuth struct {
	Username      string `cfg:"username"`
	Password      string `cfg:"password"`
	Email         string `cfg:"email"`
	ServerAddress string `cfg:"server_address"`
}

func (a TaskAuth) empty() bool { return a == TaskAuth{} }

// Logging is logging { type config { } }.
type Logging struct {
	Type   string            `cfg:"type"`
	Config map[string]string `cfg:"config"`
}

// Healthchecks is healthchecks { disable = true }.
type Healthchecks struct {
	Disable bool `cfg:"disable"`
}

// Mount is one mount { } block.
type Mount struct {
	Type          string        `cfg:"type"` // bind (default), volume, tmpfs
	Target        string        `cfg:"target,required"`
	Source        string        `cfg:"source"`
	Readonly      bool          `cfg:"readonly"`
	BindOptions   BindOptions   `cfg:"bind_options"`
	VolumeOptions VolumeOptions `cfg:"volume_options"`
	TmpfsOptions  TmpfsOptions  `cfg:"tmpfs_options"`
}

// BindOptions is mount { bind_options { } }.
type BindOptions struct {
	Propagation string `cfg:"propagation"`
}

// VolumeOptions is mount { volume_options { } }.
type VolumeOptions struct {
	NoCopy       bool              `cfg:"no_copy"`
	Labels       map[string]string `cfg:"labels"`
	DriverConfig DriverConfig      `cfg:"driver_config"`
}

// DriverConfig is volume_options { driver_config { name options } }.
type DriverConfig struct {
	Name    string            `cfg:"name"`
	Options map[string]string `cfg:"options"`
}

// TmpfsOptions is mount { tmpfs_options { } }.
type TmpfsOptions struct {
	Size int64 `cfg:"size"` // bytes
	Mode int64 `cfg:"mode"` // file mode, e.g. 1777 written as octal digits
}

// Device is one devices { } entry.
type Device struct {
	HostPath          string `cfg:"host_path,required"`
	ContainerPath     string `cfg:"container_path"`
	CgroupPermissions string `cfg:"cgroup_permissions"`
}

// handDecoded are the keys Decode cannot read: repeated blocks and a
// map of numbers.
var handDecoded = []string{"mount", "devices", "port_map"}

// DecodeTaskConfig validates and decodes a task config. An option of
// Nomad's that Drover does not act on is refused by name (see Options).
func DecodeTaskConfig(cfg map[string]any) (*TaskConfig, error) {
	var errs []error
	rest := maps.Clone(cfg)
	for _, k := range slices.Sorted(maps.Keys(cfg)) {
		if o, ok := optionsByName[k]; ok && o.State == Refused {
			errs = append(errs, &drivers.ConfigError{Field: k, Reason: "not supported by Drover's docker driver: " + o.Note})
			delete(rest, k)
		}
	}
	for _, k := range handDecoded {
		delete(rest, k)
	}
	var tc TaskConfig
	if err := drivers.Decode(rest, &tc); err != nil {
		errs = append(errs, err)
	}
	if err := decodeBlocks(cfg["mount"], "mount", &tc.Mounts); err != nil {
		errs = append(errs, err)
	}
	if err := decodeBlocks(cfg["devices"], "devices", &tc.Devices); err != nil {
		errs = append(errs, err)
	}
	if pm, err := decodePortMap(cfg["port_map"]); err != nil {
		errs = append(errs, err)
	} else {
		tc.PortMap = pm
	}
	errs = append(errs, checkValues(&tc)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &tc, nil
}

// checkValues refuses values no container could be made from, so they
// fail at submit rather than at start.
func checkValues(tc *TaskConfig) []error {
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, &drivers.ConfigError{Field: field, Reason: fmt.Sprintf(format, a...)})
	}
	for i, m := range tc.Mounts {
		switch m.Type {
		case "", "bind", "volume", "tmpfs":
		default:
			bad("mount", "block %d: type %q is not bind, volume or tmpfs", i, m.Type)
		}
		if m.Type == "tmpfs" && m.Source != "" {
			bad("mount", "block %d: a tmpfs mount takes no source", i)
		}
		if (m.Type == "" || m.Type == "bind") && m.Source == "" {
			bad("mount", "block %d: a bind mount needs a source", i)
		}
		if m.TmpfsOptions.Mode != 0 {
			if _, err := strconv.ParseUint(strconv.FormatInt(m.TmpfsOptions.Mode, 10), 8, 32); err != nil {
				bad("mount", "block %d: tmpfs_options mode %d is not an octal file mode", i, m.TmpfsOptions.Mode)
			}
		}
	}
	switch tc.Logging.Type {
	case "", "json-file", "local", "journald", "syslog", "fluentd", "gelf", "awslogs", "splunk", "etwlogs", "gcplogs", "logentries", "none":
	default:
		bad("logging", "type %q is not a Docker logging driver", tc.Logging.Type)
	}
	for k, v := range tc.Ulimit {
		if _, _, err := parseUlimit(v); err != nil {
			bad("ulimit", "%s: %v", k, err)
		}
	}
	if tc.MemoryHardLimit < 0 {
		bad("memory_hard_limit", "must not be negative")
	}
	if tc.ShmSize < 0 {
		bad("shm_size", "must not be negative")
	}
	return errs
}

// decodeBlocks decodes a repeated block (a list of maps, or one map) into
// out, each element strictly.
func decodeBlocks[T any](raw any, field string, out *[]T) error {
	if raw == nil {
		return nil
	}
	var elems []map[string]any
	switch v := raw.(type) {
	case map[string]any:
		elems = []map[string]any{v}
	case []map[string]any:
		elems = v
	case []any:
		for _, e := range v {
			m, ok := e.(map[string]any)
			if !ok {
				return &drivers.ConfigError{Field: field, Reason: "expected a list of blocks"}
			}
			elems = append(elems, m)
		}
	default:
		return &drivers.ConfigError{Field: field, Reason: "expected a list of blocks"}
	}
	for i, m := range elems {
		var t T
		if err := drivers.Decode(m, &t); err != nil {
			return &drivers.ConfigError{Field: field, Reason: fmt.Sprintf("block %d: %v", i, err)}
		}
		*out = append(*out, t)
	}
	return nil
}

// decodePortMap reads port_map { label = port }: a map (or list of maps,
// HCL's block form) of integers.
func decodePortMap(raw any) (map[string]int, error) {
	if raw == nil {
		return nil, nil
	}
	var parts []map[string]any
	switch v := raw.(type) {
	case map[string]any:
		parts = []map[string]any{v}
	case []map[string]any:
		parts = v
	case []any:
		for _, e := range v {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, &drivers.ConfigError{Field: "port_map", Reason: "expected a map of port labels to numbers"}
			}
			parts = append(parts, m)
		}
	default:
		return nil, &drivers.ConfigError{Field: "port_map", Reason: "expected a map of port labels to numbers"}
	}
	out := map[string]int{}
	for _, m := range parts {
		for k, v := range m {
			var n struct {
				P int64 `cfg:"p"`
			}
			if err := drivers.Decode(map[string]any{"p": v}, &n); err != nil {
				return nil, &drivers.ConfigError{Field: "port_map", Reason: fmt.Sprintf("%s: expected a port number", k)}
			}
			if n.P <= 0 || n.P > 65535 {
				return nil, &drivers.ConfigError{Field: "port_map", Reason: fmt.Sprintf("%s: %d is not a port", k, n.P)}
			}
			out[k] = int(n.P)
		}
	}
	return out, nil
}
