package structs

import "time"

// TaskGroup is a set of tasks placed together on one node, `Count` times.
type TaskGroup struct {
	Name                      string
	Count                     int
	Update                    *UpdateStrategy
	Migrate                   *MigrateStrategy
	Constraints               []*Constraint
	Affinities                []*Affinity
	Spreads                   []*Spread
	Scaling                   *ScalingPolicy
	RestartPolicy             *RestartPolicy
	ReschedulePolicy          *ReschedulePolicy
	Disconnect                *DisconnectStrategy
	EphemeralDisk             *EphemeralDisk
	Networks                  []*NetworkResource
	Services                  []*Service
	Tasks                     []*Task
	Meta                      map[string]string
	StopAfterClientDisconnect *time.Duration
	MaxClientDisconnect       *time.Duration
	// Volumes are the group's volume claims, by name.
	Volumes map[string]*VolumeRequest
	// ShutdownDelay is the group `shutdown_delay` (nil: unset): the client
	// waits it between deregistering the group's services and killing the
	// tasks (client/allocrunner). Appended last (wire order).
	ShutdownDelay *time.Duration
	// MaxRunDuration is the group `max_run_duration` of a batch or
	// sysbatch job (nil: unset): once the alloc runner has run that long
	// the client kills the tasks and reports the alloc complete (Nomad
	// 2.0.2's semantics).
	MaxRunDuration *time.Duration
	// PreventRescheduleOnLost is the group `prevent_reschedule_on_lost`:
	// allocs of a node that goes down (or stays disconnected past
	// lost_after) are marked unknown and kept, not replaced, until the
	// node comes back. Appended last (wire order).
	PreventRescheduleOnLost bool
}

// LookupTask returns the named task, or nil (also for a nil group).
func (tg *TaskGroup) LookupTask(name string) *Task {
	if tg == nil {
		return nil
	}
	for _, t := range tg.Tasks {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// DisconnectStrategy is the group `disconnect` block.
type DisconnectStrategy struct {
	LostAfter         time.Duration
	StopOnClientAfter *time.Duration
	Replace           *bool
	Reconcile         string
}

// ScalingPolicy is the group `scaling` block.
type ScalingPolicy struct {
	Min     int64
	Max     int64
	Enabled bool
	Policy  map[string]any
}

// EphemeralDisk is the group `ephemeral_disk` block.
type EphemeralDisk struct {
	Sticky  bool
	SizeMB  int
	Migrate bool
}

// Service is a `service` block. Stored for later use by service discovery.
type Service struct {
	Name      string
	PortLabel string
	Provider  string
	// Address overrides the advertised address (default: the port's host IP).
	Address string
	Tags    []string
	Checks  []*ServiceCheck
	// CanaryTags replace Tags in the registration while the alloc is a
	// canary; CanaryMeta is merged over Meta then.
	CanaryTags []string
	CanaryMeta map[string]string
	Meta       map[string]string
	// TaggedAddresses are extra named addresses, kept with the service.
	TaggedAddresses map[string]string
	// AddressMode picks the advertised address: "auto" and "host" (the
	// host IP and port), "driver" and "alloc" (the address the task or
	// the alloc's network sees, with the port's `to`).
	AddressMode string
	// EnableTagOverride is Consul's flag; the native catalog keeps it.
	EnableTagOverride bool
	// OnUpdate is the default of the checks' on_update.
	OnUpdate string
}

// ServiceCheck is a `check` block inside a service.
type ServiceCheck struct {
	Name     string
	Type     string
	Path     string
	Protocol string
	// PortLabel overrides the service's port for this check ("" keeps it).
	PortLabel string
	// Method is the HTTP method of an http check ("" means GET).
	Method   string
	Interval time.Duration
	Timeout  time.Duration
	// Command and Args are a script check's command, run inside the task.
	Command string
	Args    []string
	// GRPCService names the service a grpc check asks grpc.health.v1
	// about ("" asks about the server as a whole); GRPCUseTLS dials TLS.
	GRPCService string
	GRPCUseTLS  bool
	// TLSSkipVerify skips certificate checks of https and TLS grpc checks.
	TLSSkipVerify bool
	// TaskName is the task a group service's script check runs in, and
	// the task its check_restart restarts.
	TaskName string
	// CheckRestart restarts the task after repeated failures (nil: never);
	// the service's own check_restart is merged in at conversion.
	CheckRestart *CheckRestart
	// Header and Body are sent with an http check; TLSServerName is the
	// name checked in the certificate of an https or TLS grpc check.
	Header        map[string][]string
	Body          string
	TLSServerName string
	// SuccessBeforePassing, FailuresBeforeWarning and
	// FailuresBeforeCritical are how many results in a row it takes to
	// move the check's status (0 or 1: one).
	SuccessBeforePassing   int
	FailuresBeforeWarning  int
	FailuresBeforeCritical int
	// OnUpdate says what the check means to deployment health:
	// "require_healthy" (default), "ignore_warnings" (a warning counts as
	// passing) or "ignore" (not counted).
	OnUpdate string
	// InitialStatus is the check's status before its first result:
	// "passing", "warning" or "critical" ("" : pending, no status).
	InitialStatus string
}

// Check initial_status values (Consul's, which Nomad passes on).
const (
	CheckStatusPassing  = "passing"
	CheckStatusWarning  = "warning"
	CheckStatusCritical = "critical"
)

// Check on_update values (Nomad's).
const (
	OnUpdateRequireHealthy = "require_healthy"
	OnUpdateIgnoreWarnings = "ignore_warnings"
	OnUpdateIgnore         = "ignore"
)

// Service address modes (Nomad's).
const (
	AddressModeAuto   = "auto"
	AddressModeHost   = "host"
	AddressModeDriver = "driver"
	AddressModeAlloc  = "alloc"
)

// CheckRestart is a `check_restart` block: restart the task once its
// check failed Limit times in a row, not counting the Grace after the task
// (re)started; IgnoreWarnings counts warnings as passing.
type CheckRestart struct {
	Limit          int
	Grace          time.Duration
	IgnoreWarnings bool
}

// Task is one process, container or VM run by a driver.
type Task struct {
	Name            string
	Driver          string
	User            string
	Config          map[string]any
	Env             map[string]string
	Constraints     []*Constraint
	Affinities      []*Affinity
	Resources       *Resources
	RestartPolicy   *RestartPolicy
	Lifecycle       *TaskLifecycleConfig
	Meta            map[string]string
	KillTimeout     time.Duration
	KillSignal      string
	LogConfig       *LogConfig
	Artifacts       []*TaskArtifact
	Templates       []*Template
	Services        []*Service
	Leader          bool
	ShutdownDelay   time.Duration
	DispatchPayload *DispatchPayloadConfig
	// Identity exposes the task's workload identity (nil: not exposed).
	Identity *WorkloadIdentity
	// VolumeMounts mount the group's volumes into the task.
	VolumeMounts []*VolumeMount
	// Actions are the commands operators may run in the task by name.
	Actions []*Action
	// Identities are the task's named workload identities (identity
	// blocks with a name other than "default"): tokens for other
	// audiences, each signed by the servers, written to the secrets dir
	// and the env as asked, and renewed before they expire.
	Identities []*WorkloadIdentity
}

// Task lifecycle hooks.
const (
	TaskLifecycleHookPrestart  = "prestart"
	TaskLifecycleHookPoststart = "poststart"
	TaskLifecycleHookPoststop  = "poststop"
)

// TaskLifecycleConfig is the task `lifecycle` block.
type TaskLifecycleConfig struct {
	Hook    string
	Sidecar bool
}

// LogConfig is the task `logs` block.
type LogConfig struct {
	MaxFiles      int
	MaxFileSizeMB int
	Disabled      bool
}

// TaskArtifact is an `artifact` block (stored; fetched by the client later).
type TaskArtifact struct {
	GetterSource  string
	GetterOptions map[string]string
	GetterMode    string
	RelativeDest  string
}

// Template is a `template` block (stored; rendered by the client later).
type Template struct {
	SourcePath   string
	DestPath     string
	EmbeddedTmpl string
	ChangeMode   string
	ChangeSignal string
	Perms        string
	Envvars      bool
	// Splay delays a change action by a random time up to it, so replicas
	// do not all restart at once.
	Splay time.Duration
	// Wait holds re-rendering until the data was quiet for Min (and at
	// most Max after the first change).
	Wait *TemplateWait
	// ErrMissingKey fails the render on a missing map key.
	ErrMissingKey bool
	// ChangeScript runs when ChangeMode is "script".
	ChangeScript *ChangeScript
	// LeftDelim and RightDelim replace "{{" and "}}" ("" keeps them).
	LeftDelim, RightDelim string
	// Once renders the template at the first start only: later changes of
	// what it reads neither re-render it nor trigger its change mode.
	Once bool
	// Uid and Gid own the rendered file (nil: the client's user).
	Uid, Gid *int
}

// TemplateWait is a template's `wait` block.
type TemplateWait struct {
	Min, Max time.Duration
}

// ChangeScript is a template's `change_script` block.
type ChangeScript struct {
	Command     string
	Args        []string
	Timeout     time.Duration
	FailOnError bool
}

// DispatchPayloadConfig is the task `dispatch_payload` block.
type DispatchPayloadConfig struct {
	File string
}

// Resources is what a task asks for.
type Resources struct {
	CPU         int // MHz
	Cores       int
	MemoryMB    int
	MemoryMaxMB int
	DiskMB      int
	Networks    []*NetworkResource
	Devices     []*RequestedDevice
}

// RequestedDevice asks for a number of devices of a kind: Name is "type",
// "vendor/type" or "vendor/type/name" (Nomad's device block).
type RequestedDevice struct {
	Name  string
	Count uint64
	// Constraints and Affinities are the device block's, on
	// ${device.attr.X}, ${device.vendor}, ${device.type}, ${device.model}
	// (Nomad's targets). Appended last (wire order).
	Constraints []*Constraint
	Affinities  []*Affinity
}

// NetworkResource is a `network` block (request) or a node's interface (offer).
type NetworkResource struct {
	Mode          string
	Device        string
	CIDR          string
	IP            string
	MBits         int
	ReservedPorts []Port
	DynamicPorts  []Port
	// Hostname, DNS and CNI are the group network's hostname, resolver
	// settings and `cni { args }` (bridge and cni/* modes).
	Hostname string
	DNS      *DNSConfig
	CNI      *CNIConfig
}

// Network modes of a group's network block (Nomad's). A "cni/NAME" mode
// names a CNI network config of the client's cni_config_dir.
const (
	NetworkModeHost   = "host"
	NetworkModeBridge = "bridge"
	NetworkModeNone   = "none"
	NetworkModeCNI    = "cni/"
)

// DNSConfig is a network's `dns` block: written into the alloc's
// resolv.conf.
type DNSConfig struct {
	Servers  []string
	Searches []string
	Options  []string
}

// CNIConfig is a network's `cni` block: args passed to the CNI plugins.
type CNIConfig struct {
	Args map[string]string
}

// Port is a labelled port; Value is fixed for reserved ports and assigned by
// the scheduler for dynamic ones.
type Port struct {
	Label       string
	Value       int
	To          int
	HostNetwork string
}

// Defaults for task groups and tasks that leave settings out (Nomad's).
const (
	DefaultKillTimeout = 5 * time.Second
	DefaultCPU         = 100
	DefaultMemoryMB    = 300
	DefaultDiskMB      = 300
)

// DefaultRestartPolicy returns the restart policy for a job type.
func DefaultRestartPolicy(jobType string) *RestartPolicy {
	if jobType == JobTypeBatch || jobType == JobTypeSysBatch {
		return &RestartPolicy{Attempts: 3, Interval: 24 * time.Hour, Delay: 15 * time.Second, Mode: RestartPolicyModeFail}
	}
	return &RestartPolicy{Attempts: 2, Interval: 30 * time.Minute, Delay: 15 * time.Second, Mode: RestartPolicyModeFail}
}

// DefaultReschedulePolicy returns the reschedule policy for a job type; nil
// for system jobs, which are never rescheduled.
func DefaultReschedulePolicy(jobType string) *ReschedulePolicy {
	switch jobType {
	case JobTypeService:
		return &ReschedulePolicy{Delay: 30 * time.Second, DelayFunction: RescheduleDelayExponential, MaxDelay: time.Hour, Unlimited: true}
	case JobTypeBatch:
		return &ReschedulePolicy{Attempts: 1, Interval: 24 * time.Hour, Delay: 5 * time.Second, DelayFunction: RescheduleDelayConstant}
	}
	return nil
}

func (tg *TaskGroup) canonicalize(j *Job) {
	if tg.RestartPolicy == nil {
		tg.RestartPolicy = DefaultRestartPolicy(j.Type)
	}
	tg.RestartPolicy.canonicalize()
	canonicalizePlacement(tg.Constraints, tg.Affinities, tg.Spreads)
	if tg.ReschedulePolicy == nil {
		tg.ReschedulePolicy = j.Reschedule.Copy()
		if tg.ReschedulePolicy == nil {
			tg.ReschedulePolicy = DefaultReschedulePolicy(j.Type)
		}
	}
	if tg.EphemeralDisk == nil {
		tg.EphemeralDisk = &EphemeralDisk{SizeMB: DefaultDiskMB}
	}
	if tg.Update == nil && j.Update.MaxParallel > 0 && (j.Type == JobTypeService || j.Type == JobTypeSystem) {
		u := j.Update
		tg.Update = &u
	}
	for _, t := range tg.Tasks {
		t.canonicalize(tg)
	}
}

func (t *Task) canonicalize(tg *TaskGroup) {
	if t.Resources == nil {
		t.Resources = &Resources{}
	}
	if t.Resources.CPU == 0 && t.Resources.Cores == 0 {
		t.Resources.CPU = DefaultCPU
	}
	if t.Resources.MemoryMB == 0 {
		t.Resources.MemoryMB = DefaultMemoryMB
	}
	if t.KillTimeout == 0 {
		t.KillTimeout = DefaultKillTimeout
	}
	if t.RestartPolicy == nil {
		t.RestartPolicy = tg.RestartPolicy.Copy()
	}
	t.RestartPolicy.canonicalize()
	canonicalizePlacement(t.Constraints, t.Affinities, nil)
	if t.LogConfig == nil {
		t.LogConfig = &LogConfig{MaxFiles: 10, MaxFileSizeMB: 10}
	}
}
