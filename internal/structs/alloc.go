package structs

import "time"

// Allocation desired statuses (written by the server).
const (
	AllocDesiredStatusRun   = "run"
	AllocDesiredStatusStop  = "stop"
	AllocDesiredStatusEvict = "evict"
)

// Allocation client statuses (written by the client).
const (
	AllocClientStatusPending  = "pending"
	AllocClientStatusRunning  = "running"
	AllocClientStatusComplete = "complete"
	AllocClientStatusFailed   = "failed"
	AllocClientStatusLost     = "lost"
	AllocClientStatusUnknown  = "unknown"
)

// Allocation is one task group of one job version placed on one node.
type Allocation struct {
	ID                    string
	Namespace             string
	EvalID                string
	Name                  string // job.group[index]
	NodeID                string
	NodeName              string
	JobID                 string
	Job                   *Job
	TaskGroup             string
	AllocatedResources    *AllocatedResources
	Metrics               *AllocMetric
	DesiredStatus         string
	DesiredDescription    string
	DesiredTransition     DesiredTransition
	ClientStatus          string
	ClientDescription     string
	TaskStates            map[string]*TaskState
	DeploymentID          string
	DeploymentStatus      *AllocDeploymentStatus
	RescheduleTracker     *RescheduleTracker
	FollowupEvalID        string
	PreviousAllocation    string
	NextAllocation        string
	PreemptedAllocations  []string
	PreemptedByAllocation string
	CreateIndex           uint64
	ModifyIndex           uint64
	AllocModifyIndex      uint64
	CreateTime            int64 // unix nanoseconds
	ModifyTime            int64 // unix nanoseconds
	// NetworkStatus is the client's report of the alloc's network
	// namespace (bridge and cni/* modes): its interface and address.
	NetworkStatus *AllocNetworkStatus
}

// AllocNetworkStatus is where an alloc's own network namespace sits on the
// node's networks, as its client set it up (Nomad's NetworkStatus).
type AllocNetworkStatus struct {
	InterfaceName string
	Address       string
	AddressIPv6   string
	DNS           *DNSConfig
}

// Copy returns a deep copy.
func (s *AllocNetworkStatus) Copy() *AllocNetworkStatus {
	if s == nil {
		return nil
	}
	c := *s
	c.DNS = s.DNS.Copy()
	return &c
}

// Group returns the alloc's task group in its job, or nil for an alloc
// without a job or whose job lacks the group (malformed).
func (a *Allocation) Group() *TaskGroup {
	if a == nil || a.Job == nil {
		return nil
	}
	for _, tg := range a.Job.TaskGroups {
		if tg != nil && tg.Name == a.TaskGroup {
			return tg
		}
	}
	return nil
}

// TerminalStatus reports whether the alloc is finished, from either side.
func (a *Allocation) TerminalStatus() bool {
	return a.ServerTerminalStatus() || a.ClientTerminalStatus()
}

// ServerTerminalStatus reports whether the server wants the alloc stopped.
func (a *Allocation) ServerTerminalStatus() bool {
	return a.DesiredStatus == AllocDesiredStatusStop || a.DesiredStatus == AllocDesiredStatusEvict
}

// ClientTerminalStatus reports whether the client has finished the alloc.
func (a *Allocation) ClientTerminalStatus() bool {
	switch a.ClientStatus {
	case AllocClientStatusComplete, AllocClientStatusFailed, AllocClientStatusLost:
		return true
	}
	return false
}

// Index returns the alloc's index within its task group, parsed from Name.
func (a *Allocation) Index() uint {
	l := len(a.Name)
	start := -1
	for i := l - 1; i >= 0; i-- {
		if a.Name[i] == '[' {
			start = i + 1
			break
		}
	}
	if start < 0 || l == 0 || a.Name[l-1] != ']' {
		return 0
	}
	var n uint
	for _, c := range a.Name[start : l-1] {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + uint(c-'0')
	}
	return n
}

// AllocName returns the conventional name of an alloc: job.group[index].
func AllocName(job, group string, index uint) string {
	return job + "." + group + "[" + uitoa(index) + "]"
}

func uitoa(n uint) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// DesiredTransition carries server requests to move an alloc (drain, reschedule).
type DesiredTransition struct {
	Migrate         *bool
	Reschedule      *bool
	ForceReschedule *bool
	NoShutdownDelay *bool
}

// AllocatedResources is what the scheduler granted an alloc.
type AllocatedResources struct {
	Tasks  map[string]*AllocatedTaskResources
	Shared AllocatedSharedResources

	// flat is Comparable's answer, kept by Seal for a value that will not
	// change again. It is not encoded, and Copy leaves it out.
	flat *ComparableResources
}

// AllocatedTaskResources is what one task was granted.
type AllocatedTaskResources struct {
	CpuShares     int64
	ReservedCores []uint16
	MemoryMB      int64
	MemoryMaxMB   int64
	Networks      []*NetworkResource
	// Devices are the device instances granted to the task, one entry
	// per device request. Appended last (wire order).
	Devices []*AllocatedDeviceResource
}

// AllocatedDeviceResource is the instances of one node device group
// granted to a task.
type AllocatedDeviceResource struct {
	Vendor    string
	Type      string
	Name      string
	DeviceIDs []string
}

// AllocatedSharedResources is granted to the whole group.
type AllocatedSharedResources struct {
	DiskMB   int64
	Networks []*NetworkResource
	Ports    []AllocatedPortMapping
}

// AllocatedPortMapping is a port granted to the group.
type AllocatedPortMapping struct {
	Label  string
	Value  int
	To     int
	HostIP string
}

// Seal records a's flattened view for Comparable. The state store seals
// the values it stores, which never change again, so a scheduler summing
// the allocs of each candidate node does not walk every alloc's task map
// (that was a third of reading a node's usage). Only call it on a value
// no one else reads yet.
func (a *AllocatedResources) Seal() {
	if a != nil && a.flat == nil { // a restore seals a shared value once per alloc
		a.flat = a.flatten()
	}
}

// Comparable flattens the allocated resources for fit checks. The result
// is the caller's own.
func (a *AllocatedResources) Comparable() *ComparableResources {
	if a != nil && a.flat != nil {
		c := *a.flat
		return &c
	}
	return a.flatten()
}

func (a *AllocatedResources) flatten() *ComparableResources {
	c := &ComparableResources{}
	if a == nil {
		return c
	}
	for _, t := range a.Tasks {
		c.CpuShares += t.CpuShares
		c.MemoryMB += t.MemoryMB
		c.Cores += len(t.ReservedCores)
	}
	c.DiskMB = a.Shared.DiskMB
	return c
}

// Task states.
const (
	TaskStatePending = "pending"
	TaskStateRunning = "running"
	TaskStateDead    = "dead"
)

// TaskState is the client's view of one task.
type TaskState struct {
	State       string
	Failed      bool
	Restarts    uint64
	LastRestart time.Time
	StartedAt   time.Time
	FinishedAt  time.Time
	Events      []*TaskEvent
}

// TaskEvent is one entry in a task's history.
type TaskEvent struct {
	Type           string
	Time           int64 // unix nanoseconds
	DisplayMessage string
	Details        map[string]string
	Message        string
	ExitCode       int
	Signal         int
	KillTimeout    time.Duration
	RestartReason  string
	FailsTask      bool
}

// AllocDeploymentStatus is the alloc's health within a deployment.
type AllocDeploymentStatus struct {
	Healthy     *bool
	Timestamp   time.Time
	Canary      bool
	ModifyIndex uint64
}

// RescheduleTracker records an alloc's earlier reschedules.
type RescheduleTracker struct {
	Events []*RescheduleEvent
}

// RescheduleEvent is one reschedule of an alloc.
type RescheduleEvent struct {
	RescheduleTime int64 // unix nanoseconds
	PrevAllocID    string
	PrevNodeID     string
	Delay          time.Duration
}

// AllocMetric records how the scheduler chose (or failed to choose) a node.
type AllocMetric struct {
	NodesEvaluated     int
	NodesFiltered      int
	NodesInPool        int
	NodesAvailable     map[string]int
	ClassFiltered      map[string]int
	ConstraintFiltered map[string]int
	NodesExhausted     int
	ClassExhausted     map[string]int
	DimensionExhausted map[string]int
	QuotaExhausted     []string
	ScoreMetaData      []*NodeScoreMeta
	AllocationTime     time.Duration
	CoalescedFailures  int
}

// NodeScoreMeta is the score of one node for a placement.
type NodeScoreMeta struct {
	NodeID    string
	Scores    map[string]float64
	NormScore float64
}
