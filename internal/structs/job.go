package structs

import (
	"reflect"
	"time"
)

// Job types, each also the name of the scheduler that places it.
const (
	JobTypeService  = "service"
	JobTypeBatch    = "batch"
	JobTypeSystem   = "system"
	JobTypeSysBatch = "sysbatch"
	JobTypeCore     = "_core"
)

// Job statuses, derived by the state store from the job's allocs and evals.
const (
	JobStatusPending = "pending"
	JobStatusRunning = "running"
	JobStatusDead    = "dead"
)

// Defaults applied to jobs that leave them out.
const (
	DefaultNamespace   = "default"
	DefaultRegion      = "global"
	DefaultNodePool    = "default"
	AllNodePools       = "all"
	JobDefaultPriority = 50
	JobMinPriority     = 1
	JobMaxPriority     = 100
	CoreJobPriority    = JobMaxPriority * 2
)

// Job is the desired state a user submits. It is versioned on every change.
type Job struct {
	Region            string
	Namespace         string
	ID                string
	ParentID          string
	Name              string
	Type              string
	Priority          int
	AllAtOnce         bool
	Datacenters       []string
	NodePool          string
	Constraints       []*Constraint
	Affinities        []*Affinity
	Spreads           []*Spread
	TaskGroups        []*TaskGroup
	Update            UpdateStrategy
	Periodic          *PeriodicConfig
	ParameterizedJob  *ParameterizedJobConfig
	Dispatched        bool
	Payload           []byte
	Reschedule        *ReschedulePolicy
	Migrate           *MigrateStrategy
	Meta              map[string]string
	Stop              bool
	Status            string
	StatusDescription string
	Stable            bool
	Version           uint64
	// VersionTag names this version (set by `job tag`, never by a submit).
	VersionTag     *JobVersionTag
	SubmitTime     int64 // unix nanoseconds
	CreateIndex    uint64
	ModifyIndex    uint64
	JobModifyIndex uint64
}

// NamespacedID identifies an object that lives in a namespace.
type NamespacedID struct {
	ID        string
	Namespace string
}

func (n NamespacedID) String() string { return n.Namespace + "/" + n.ID }

// NamespacedID returns the job's key.
func (j *Job) NamespacedID() NamespacedID { return NamespacedID{ID: j.ID, Namespace: j.Namespace} }

// SameVersion reports whether j and o are the same version of one job:
// copies decoded from the wire or the log compare equal to the original.
func (j *Job) SameVersion(o *Job) bool {
	return j == o || (j.Namespace == o.Namespace && j.ID == o.ID &&
		j.Version == o.Version && j.JobModifyIndex == o.JobModifyIndex)
}

// IsPeriodic reports whether the job is a periodic parent (launches children).
func (j *Job) IsPeriodic() bool { return j.Periodic != nil && j.Periodic.Enabled }

// IsParameterized reports whether the job is a parameterized (dispatch) parent.
func (j *Job) IsParameterized() bool { return j.ParameterizedJob != nil && !j.Dispatched }

// IsMultiInstanceParent reports whether registering this job creates no eval:
// periodic and parameterized parents only launch children.
func (j *Job) IsMultiInstanceParent() bool { return j.IsPeriodic() || j.IsParameterized() }

// LookupTaskGroup returns the named task group, or nil.
func (j *Job) LookupTaskGroup(name string) *TaskGroup {
	for _, tg := range j.TaskGroups {
		if tg.Name == name {
			return tg
		}
	}
	return nil
}

// Canonicalize fills in defaults so stored jobs never carry zero-valued
// settings that mean "unset". It is called before validation.
func (j *Job) Canonicalize() {
	if j.Namespace == "" {
		j.Namespace = DefaultNamespace
	}
	if j.Region == "" {
		j.Region = DefaultRegion
	}
	if j.Name == "" {
		j.Name = j.ID
	}
	if j.Type == "" {
		j.Type = JobTypeService
	}
	if j.Priority == 0 {
		j.Priority = JobDefaultPriority
	}
	if j.NodePool == "" {
		j.NodePool = DefaultNodePool
	}
	if len(j.Datacenters) == 0 {
		j.Datacenters = []string{"*"}
	}
	canonicalizePlacement(j.Constraints, j.Affinities, j.Spreads)
	j.Periodic.canonicalize()
	for _, tg := range j.TaskGroups {
		tg.canonicalize(j)
	}
}

// Constraint operators.
const (
	ConstraintEqual            = "="
	ConstraintNotEqual         = "!="
	ConstraintGreater          = ">"
	ConstraintGreaterEqual     = ">="
	ConstraintLess             = "<"
	ConstraintLessEqual        = "<="
	ConstraintRegex            = "regexp"
	ConstraintSetContains      = "set_contains"
	ConstraintSetContainsAll   = "set_contains_all"
	ConstraintSetContainsAny   = "set_contains_any"
	ConstraintVersion          = "version"
	ConstraintSemver           = "semver"
	ConstraintAttributeIsSet   = "is_set"
	ConstraintAttributeIsUnset = "is_not_set"
	ConstraintDistinctHosts    = "distinct_hosts"
	ConstraintDistinctProperty = "distinct_property"
)

// ConstraintOperands lists every valid constraint operator.
var ConstraintOperands = []string{
	ConstraintEqual, ConstraintNotEqual, ConstraintGreater, ConstraintGreaterEqual,
	ConstraintLess, ConstraintLessEqual, ConstraintRegex, ConstraintSetContains,
	ConstraintSetContainsAll, ConstraintSetContainsAny, ConstraintVersion,
	ConstraintSemver, ConstraintAttributeIsSet, ConstraintAttributeIsUnset,
	ConstraintDistinctHosts, ConstraintDistinctProperty,
}

// Constraint restricts the nodes a job, group or task may run on.
type Constraint struct {
	LTarget string
	RTarget string
	Operand string
}

// Affinity expresses a weighted preference for some nodes.
type Affinity struct {
	LTarget string
	RTarget string
	Operand string
	Weight  int8
}

// Spread spreads allocations over the values of an attribute.
type Spread struct {
	Attribute    string
	Weight       int8
	SpreadTarget []*SpreadTarget
}

// SpreadTarget is the desired share of one attribute value.
type SpreadTarget struct {
	Value   string
	Percent uint8
}

// UpdateStrategy is the job's or group's `update` block.
type UpdateStrategy struct {
	Stagger          time.Duration
	MaxParallel      int
	HealthCheck      string
	MinHealthyTime   time.Duration
	HealthyDeadline  time.Duration
	ProgressDeadline time.Duration
	Canary           int
	AutoRevert       bool
	AutoPromote      bool
}

// Rolling reports whether the strategy limits how many allocs change at once.
func (u *UpdateStrategy) Rolling() bool { return u != nil && u.MaxParallel > 0 }

// MigrateStrategy is the `migrate` block used when draining nodes.
type MigrateStrategy struct {
	MaxParallel     int
	HealthCheck     string
	MinHealthyTime  time.Duration
	HealthyDeadline time.Duration
}

// Reschedule delay functions.
const (
	RescheduleDelayConstant    = "constant"
	RescheduleDelayExponential = "exponential"
	RescheduleDelayFibonacci   = "fibonacci"
)

// ReschedulePolicy is the `reschedule` block: how failed allocs are replaced.
type ReschedulePolicy struct {
	Attempts      int
	Interval      time.Duration
	Delay         time.Duration
	DelayFunction string
	MaxDelay      time.Duration
	Unlimited     bool
}

// Restart modes.
const (
	RestartPolicyModeDelay = "delay"
	RestartPolicyModeFail  = "fail"
)

// RestartPolicy is the `restart` block: how the client restarts a task.
type RestartPolicy struct {
	Attempts        int
	Interval        time.Duration
	Delay           time.Duration
	Mode            string
	RenderTemplates bool
}

// PeriodicConfig is the `periodic` block.
type PeriodicConfig struct {
	Enabled         bool
	Specs           []string
	SpecType        string
	ProhibitOverlap bool
	TimeZone        string
}

// ParameterizedJobConfig is the `parameterized` block.
type ParameterizedJobConfig struct {
	Payload      string
	MetaRequired []string
	MetaOptional []string
}

// Dispatch payload modes.
const (
	DispatchPayloadForbidden = "forbidden"
	DispatchPayloadOptional  = "optional"
	DispatchPayloadRequired  = "required"
)

// SpecEqual reports whether two jobs differ only in fields the server
// maintains (indexes, status, version, submit time, stability), i.e.
// whether the user's specification is the same. Registering an equal spec
// creates no new version.
func (j *Job) SpecEqual(o *Job) bool {
	return reflect.DeepEqual(j.specOnly(), o.specOnly())
}

// specOnly is a shallow copy without the maintained fields; it is only
// compared, never stored, so sharing nested objects is fine.
func (j *Job) specOnly() Job {
	c := *j
	c.Status, c.StatusDescription, c.Stable, c.VersionTag = "", "", false, nil
	c.Version, c.SubmitTime = 0, 0
	c.CreateIndex, c.ModifyIndex, c.JobModifyIndex = 0, 0, 0
	return c
}
