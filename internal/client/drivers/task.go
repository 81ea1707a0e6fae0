package drivers

// TaskConfig is everything a driver needs to start one task. The client
// builds it from the alloc, with Config and Env already interpolated.
type TaskConfig struct {
	ID       string // unique per task instance: alloc ID + "/" + task name
	AllocID  string
	TaskName string
	JobName  string
	Config   map[string]any
	Env      map[string]string
	User     string // empty: the driver's default (the client's user)
	TaskDir  TaskDir
	// StdoutPath and StderrPath are where the driver writes the task's
	// output (see the package doc about FIFOs). Empty discards it.
	StdoutPath string
	StderrPath string
	Resources  Resources
	Ports      []PortMapping
	// Mounts are the task's host volume mounts.
	Mounts []MountConfig
	// Network is the alloc's own network namespace (group network mode
	// bridge, cni/* or none); nil: the host's network.
	Network *NetworkIsolation
	// Emit records a "Driver" task event (image pull progress and the
	// like); nil drops them.
	Emit func(message string)
}

// NetworkIsolation is the alloc's network namespace, shared by its tasks.
type NetworkIsolation struct {
	Mode      string
	NetNSPath string // the namespace to join (/var/run/netns/<alloc>)
	Address   string // the alloc's address in it
	Hostname  string // the network block's hostname ("" : the driver's default)
	// ResolvConfPath ("" without a dns block), HostsPath and HostnamePath
	// are files in the alloc dir that isolating drivers bind over /etc's.
	ResolvConfPath string
	HostsPath      string
	HostnamePath   string
}

// EmitEvent calls tc.Emit when it is set.
func (tc *TaskConfig) EmitEvent(message string) {
	if tc.Emit != nil {
		tc.Emit(message)
	}
}

// TaskDir is the on-disk layout of a task inside its alloc dir:
//
//	<alloc>/alloc        AllocDir, shared by the alloc's tasks (logs in alloc/logs)
//	<alloc>/<task>       Dir, the task's root (exec chroots here)
//	<alloc>/<task>/local LocalDir, task-private scratch
//	<alloc>/<task>/secrets SecretsDir
type TaskDir struct {
	Dir        string
	AllocDir   string
	LocalDir   string
	SecretsDir string
	LogDir     string
}

// Resources are the task's allocated limits.
type Resources struct {
	CPUShares   int64    // MHz; relative CPU weight
	Cores       int      // reserved cores
	CoreIDs     []uint16 // which cores were reserved (docker pins them as cpuset_cpus)
	MemoryMB    int64    // reservation, and the hard limit when MemoryMaxMB is 0
	MemoryMaxMB int64    // hard limit when above MemoryMB (oversubscription)
}

// MemoryLimitBytes is the hard memory limit; 0 means none.
func (r Resources) MemoryLimitBytes() int64 {
	mb := r.MemoryMB
	if r.MemoryMaxMB > mb {
		mb = r.MemoryMaxMB
	}
	return mb << 20
}

// MemorySoftBytes is the soft limit when oversubscribing; 0 means none.
func (r Resources) MemorySoftBytes() int64 {
	if r.MemoryMaxMB > r.MemoryMB {
		return r.MemoryMB << 20
	}
	return 0
}

// PortMapping is one allocated port: the host listens on HostIP:Value and
// forwards to To inside the task's network (To 0 means the same as Value).
type PortMapping struct {
	Label  string
	Value  int
	To     int
	HostIP string
}

// ContainerPort is the port the task listens on.
func (p PortMapping) ContainerPort() int {
	if p.To > 0 {
		return p.To
	}
	return p.Value
}

// EnvList renders env as KEY=VALUE pairs, adding a default PATH because a
// task env built from scratch would otherwise have none.
func EnvList(env map[string]string) []string {
	out := make([]string, 0, len(env)+1)
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	if _, ok := env["PATH"]; !ok {
		out = append(out, "PATH="+DefaultPath)
	}
	return out
}

// DefaultPath is the PATH a task gets when its env has none.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
