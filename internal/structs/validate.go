package structs

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Validation reports every problem at once, each with the path of the
// offending field in Go field names (`TaskGroups[0].Tasks[1].Driver`), so a
// user fixing a job file sees the whole list rather than one error per
// submit.

// ValidationError is one problem with one field.
type ValidationError struct {
	Field   string
	Message string
}

func (e ValidationError) Error() string { return e.Field + ": " + e.Message }

// ValidationErrors is every problem found in one object.
type ValidationErrors []ValidationError

func (v ValidationErrors) Error() string {
	parts := make([]string, len(v))
	for i, e := range v {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

// Fields returns the field paths with problems, in report order.
func (v ValidationErrors) Fields() []string {
	out := make([]string, len(v))
	for i, e := range v {
		out[i] = e.Field
	}
	return out
}

// HasField reports whether a problem was reported for the field path.
func (v ValidationErrors) HasField(field string) bool {
	return slices.Contains(v.Fields(), field)
}

// Limits from Nomad's documented job rules.
const (
	maxJobIDLength        = 128
	minMemoryMB           = 10
	minRescheduleDelay    = 5 * time.Second
	maxPort               = 65535
	maxAffinityWeight     = 100
	maxSpreadWeight       = 100
	maxSpreadTargetTotal  = 100
	maxSystemJobGroupSize = 1
)

// Update and migrate health-check modes.
const (
	UpdateHealthCheckChecks     = "checks"
	UpdateHealthCheckTaskStates = "task_states"
	UpdateHealthCheckManual     = "manual"
)

// PeriodicSpecCron is the only periodic spec type: a cron expression.
const PeriodicSpecCron = "cron"

// Template change modes.
const (
	TemplateChangeModeNoop    = "noop"
	TemplateChangeModeRestart = "restart"
	TemplateChangeModeSignal  = "signal"
	TemplateChangeModeScript  = "script"
)

// Disconnect reconcile strategies.
const (
	ReconcileOptionBestScore       = "best_score"
	ReconcileOptionLongestRunning  = "longest_running"
	ReconcileOptionKeepOriginal    = "keep_original"
	ReconcileOptionKeepReplacement = "keep_replacement"
)

// validator accumulates problems under a field-path prefix.
type validator struct {
	errs *ValidationErrors
	path string
}

func newValidator() validator { return validator{errs: &ValidationErrors{}} }

// at descends into a named field.
func (v validator) at(field string) validator {
	if v.path == "" {
		return validator{errs: v.errs, path: field}
	}
	return validator{errs: v.errs, path: v.path + "." + field}
}

// index descends into the i'th element of a slice field.
func (v validator) index(field string, i int) validator {
	return v.at(fmt.Sprintf("%s[%d]", field, i))
}

// fail reports a problem with a field below the current path.
func (v validator) fail(field, format string, args ...any) {
	*v.errs = append(*v.errs, ValidationError{Field: v.at(field).path, Message: fmt.Sprintf(format, args...)})
}

// failHere reports a problem with the current path itself.
func (v validator) failHere(format string, args ...any) {
	*v.errs = append(*v.errs, ValidationError{Field: v.path, Message: fmt.Sprintf(format, args...)})
}

func (v validator) require(field, value string) {
	if value == "" {
		v.fail(field, "is required")
	}
}

func (v validator) oneOf(field, value string, allowed ...string) {
	if !slices.Contains(allowed, value) {
		v.fail(field, "%q is not one of %s", value, quoteAll(allowed))
	}
}

// err returns nil, not a typed nil, when nothing was reported.
func (v validator) err() error {
	if len(*v.errs) == 0 {
		return nil
	}
	return *v.errs
}

func quoteAll(values []string) string {
	q := make([]string, 0, len(values))
	for _, s := range values {
		if s != "" {
			q = append(q, strconv.Quote(s))
		}
	}
	return strings.Join(q, ", ")
}

// ---- jobs ----

// Validate checks the job against Nomad's rules and returns nil or
// ValidationErrors listing every problem. Call it after Canonicalize, which
// fills the defaults that validation assumes.
func (j *Job) Validate() error {
	v := newValidator()
	j.validateIdentity(v)
	j.validateScheduling(v)
	j.validateDispatch(v)
	validatePlacement(v, j.Type, j.Constraints, j.Affinities, j.Spreads)
	if j.usesUpdates() {
		j.Update.validate(v.at("Update"))
	}
	j.Reschedule.validate(v.at("Reschedule"))
	j.Migrate.validate(v.at("Migrate"))
	j.validateTaskGroups(v)
	return v.err()
}

func (j *Job) validateIdentity(v validator) {
	switch {
	case j.ID == "":
		v.fail("ID", "is required")
	case strings.Contains(j.ID, " "):
		v.fail("ID", "must not contain spaces")
	case strings.ContainsRune(j.ID, 0):
		v.fail("ID", "must not contain null characters")
	case len(j.ID) > maxJobIDLength:
		v.fail("ID", "must be at most %d characters, got %d", maxJobIDLength, len(j.ID))
	}
	v.require("Name", j.Name)
	v.require("Namespace", j.Namespace)
	v.require("Region", j.Region)
}

func (j *Job) validateScheduling(v validator) {
	v.oneOf("Type", j.Type, JobTypeService, JobTypeBatch, JobTypeSystem, JobTypeSysBatch)
	if j.Priority < JobMinPriority || j.Priority > JobMaxPriority {
		v.fail("Priority", "must be between %d and %d, got %d", JobMinPriority, JobMaxPriority, j.Priority)
	}
	if len(j.Datacenters) == 0 {
		v.fail("Datacenters", "at least one datacenter is required")
	}
	for i, dc := range j.Datacenters {
		if dc == "" {
			v.fail(fmt.Sprintf("Datacenters[%d]", i), "must not be empty")
		}
	}
}

// validateDispatch checks the blocks that make a job a parent of others.
func (j *Job) validateDispatch(v validator) {
	if j.IsPeriodic() {
		if !j.isBatchLike() {
			v.fail("Periodic", "only batch and sysbatch jobs may be periodic, not %q", j.Type)
		}
		j.Periodic.validate(v.at("Periodic"))
	}
	if j.ParameterizedJob != nil {
		if !j.isBatchLike() {
			v.fail("ParameterizedJob", "only batch and sysbatch jobs may be parameterized, not %q", j.Type)
		}
		j.ParameterizedJob.validate(v.at("ParameterizedJob"))
	}
	if j.IsPeriodic() && j.IsParameterized() {
		v.fail("ParameterizedJob", "a parameterized job may not also be periodic")
	}
}

func (j *Job) isBatchLike() bool { return j.Type == JobTypeBatch || j.Type == JobTypeSysBatch }

func (j *Job) isSystemLike() bool { return j.Type == JobTypeSystem || j.Type == JobTypeSysBatch }

// usesUpdates reports whether update blocks apply: batch schedulers ignore
// them, as Nomad does, so they are not validated there.
func (j *Job) usesUpdates() bool { return j.Type == JobTypeService || j.Type == JobTypeSystem }

func (j *Job) validateTaskGroups(v validator) {
	if len(j.TaskGroups) == 0 {
		v.fail("TaskGroups", "at least one task group is required")
		return
	}
	firstByName := map[string]int{}
	for i, tg := range j.TaskGroups {
		gv := v.index("TaskGroups", i)
		if tg == nil {
			gv.failHere("must not be null")
			continue
		}
		if first, dup := firstByName[tg.Name]; dup && tg.Name != "" {
			gv.fail("Name", "duplicate group name %q (also TaskGroups[%d])", tg.Name, first)
		} else {
			firstByName[tg.Name] = i
		}
		tg.validate(gv, j)
	}
}

func (p *PeriodicConfig) validate(v validator) {
	if p == nil || !p.Enabled {
		return
	}
	if len(p.Specs) == 0 {
		v.fail("Specs", "at least one spec is required")
	}
	for i, s := range p.Specs {
		if strings.TrimSpace(s) == "" {
			v.fail(fmt.Sprintf("Specs[%d]", i), "must not be empty")
		}
	}
	v.oneOf("SpecType", p.SpecType, "", PeriodicSpecCron)
}

func (p *ParameterizedJobConfig) validate(v validator) {
	v.oneOf("Payload", p.Payload, "", DispatchPayloadOptional, DispatchPayloadRequired, DispatchPayloadForbidden)
	for i, key := range p.MetaOptional {
		if slices.Contains(p.MetaRequired, key) {
			v.fail(fmt.Sprintf("MetaOptional[%d]", i), "%q is also required; required and optional keys must differ", key)
		}
	}
}

// ---- task groups ----

func (tg *TaskGroup) validate(v validator, j *Job) {
	switch {
	case tg.Name == "":
		v.fail("Name", "is required")
	case strings.ContainsRune(tg.Name, 0):
		v.fail("Name", "must not contain null characters")
	}
	if tg.ShutdownDelay != nil && *tg.ShutdownDelay < 0 {
		v.fail("ShutdownDelay", "must not be negative, got %s", *tg.ShutdownDelay)
	}
	if d := tg.MaxRunDuration; d != nil {
		switch {
		case !j.isBatchLike():
			v.fail("MaxRunDuration", "only batch and sysbatch jobs may have a max_run_duration, not %q", j.Type)
		case *d <= 0:
			v.fail("MaxRunDuration", "must be positive, got %s", *d)
		}
	}
	tg.validateCount(v, j)
	validatePlacement(v, j.Type, tg.Constraints, tg.Affinities, tg.Spreads)
	if j.usesUpdates() {
		tg.Update.validate(v.at("Update"))
	}
	tg.Migrate.validate(v.at("Migrate"))
	tg.RestartPolicy.validate(v.at("RestartPolicy"))
	tg.validateReschedule(v, j)
	tg.Scaling.validate(v.at("Scaling"))
	tg.Disconnect.validate(v.at("Disconnect"))
	if tg.EphemeralDisk != nil && tg.EphemeralDisk.SizeMB < 0 {
		v.fail("EphemeralDisk.SizeMB", "must not be negative, got %d", tg.EphemeralDisk.SizeMB)
	}
	for i, s := range tg.Services {
		s.validate(v.index("Services", i))
	}
	tg.validatePorts(v)
	tg.validateVolumes(v)
	tg.validateTasks(v, j)
}

func (tg *TaskGroup) validateCount(v validator, j *Job) {
	if tg.Count < 0 {
		v.fail("Count", "must not be negative, got %d", tg.Count)
	}
	if j.isSystemLike() && tg.Count > maxSystemJobGroupSize {
		v.fail("Count", "%s jobs run one instance per node: count must be 0 or 1, got %d", j.Type, tg.Count)
	}
}

// validateReschedule rejects reschedule policies on system jobs, whose
// allocations are tied to their node and so can never move.
func (tg *TaskGroup) validateReschedule(v validator, j *Job) {
	if tg.ReschedulePolicy != nil && j.isSystemLike() {
		v.fail("ReschedulePolicy", "%s jobs may not have a reschedule policy", j.Type)
		return
	}
	tg.ReschedulePolicy.validate(v.at("ReschedulePolicy"))
}

func (tg *TaskGroup) validateTasks(v validator, j *Job) {
	if len(tg.Tasks) == 0 {
		v.fail("Tasks", "at least one task is required")
		return
	}
	firstByName := map[string]int{}
	leaders := 0
	for i, t := range tg.Tasks {
		tv := v.index("Tasks", i)
		if t == nil {
			tv.failHere("must not be null")
			continue
		}
		if first, dup := firstByName[t.Name]; dup && t.Name != "" {
			tv.fail("Name", "duplicate task name %q (also Tasks[%d])", t.Name, first)
		} else {
			firstByName[t.Name] = i
		}
		if t.Leader {
			leaders++
			if leaders > 1 {
				tv.fail("Leader", "only one task in a group may be the leader")
			}
		}
		t.validate(tv, j)
		t.validateLogStorage(tv, tg.EphemeralDisk)
	}
}

// validateLogStorage refuses logs that could fill the group's ephemeral
// disk, as Nomad does: MaxFiles * MaxFileSizeMB must be less than its
// SizeMB. A disk without a size (0: the api block left it out) is skipped.
func (t *Task) validateLogStorage(v validator, disk *EphemeralDisk) {
	l := t.LogConfig
	if l == nil || l.Disabled || disk == nil || disk.SizeMB <= 0 || l.MaxFiles < 1 || l.MaxFileSizeMB < 1 {
		return
	}
	if usage := int64(l.MaxFiles) * int64(l.MaxFileSizeMB); usage >= int64(disk.SizeMB) {
		v.fail("LogConfig", "log storage (MaxFiles %d * MaxFileSizeMB %d = %d MB) must be less than the group's EphemeralDisk.SizeMB (%d MB)",
			l.MaxFiles, l.MaxFileSizeMB, usage, disk.SizeMB)
	}
}

// validatePorts checks every port the group asks for, in group and task
// networks alike: they share one network namespace, so labels and static
// values must be unique across all of them.
func (tg *TaskGroup) validatePorts(v validator) {
	seen := portRegistry{labels: map[string]string{}, static: map[int]string{}}
	for i, n := range tg.Networks {
		seen.checkNetwork(v.index("Networks", i), n)
		tg.checkNetworkMode(v, i, n)
	}
	for ti, t := range tg.Tasks {
		if t == nil || t.Resources == nil {
			continue
		}
		tv := v.index("Tasks", ti).at("Resources")
		for ni, n := range t.Resources.Networks {
			seen.checkNetwork(tv.index("Networks", ni), n)
		}
	}
}

// checkNetworkMode accepts Nomad's modes: host (or unset), bridge, none
// and cni/NAME. In a group with a namespace of its own, docker tasks join
// the alloc's pause container's namespace, and Docker refuses to set the
// network of a container that joins another's: the docker options that
// would are refused here, naming where the group sets them instead.
func (tg *TaskGroup) checkNetworkMode(gv validator, i int, n *NetworkResource) {
	if n == nil {
		return
	}
	v := gv.index("Networks", i)
	switch {
	case n.Mode == "" || n.Mode == NetworkModeHost:
		return
	case n.Mode == NetworkModeBridge || n.Mode == NetworkModeNone:
	case strings.HasPrefix(n.Mode, NetworkModeCNI) && len(n.Mode) > len(NetworkModeCNI):
	default:
		v.fail("Mode", "unknown network mode %q: want host, bridge, none or cni/<network name>", n.Mode)
		return
	}
	for ti, t := range tg.Tasks {
		if t == nil || t.Driver != "docker" {
			continue
		}
		for _, o := range dockerNetworkOptions {
			if _, ok := t.Config[o.key]; ok {
				gv.index("Tasks", ti).at("Config").fail(o.key, "network mode %q joins the task to the group's network namespace, where %s cannot be set%s", n.Mode, o.key, o.instead)
			}
		}
	}
}

// dockerNetworkOptions are the docker task options that set a container's
// own network, which a container joining the group's namespace cannot have.
var dockerNetworkOptions = []struct{ key, instead string }{
	{"network_mode", ""},
	{"hostname", ": set hostname in the group's network block"},
	{"dns_servers", ": set dns { servers } in the group's network block"},
	{"dns_search_domains", ": set dns { searches } in the group's network block"},
	{"dns_options", ": set dns { options } in the group's network block"},
	{"extra_hosts", ""},
	{"mac_address", ""},
	{"ipv4_address", ""},
	{"network_aliases", ""},
	{"port_map", `: the port's "to" in the group's network block is the container port`},
}

// portRegistry remembers where each label and static port was first seen.
type portRegistry struct {
	labels map[string]string
	static map[int]string
}

func (r portRegistry) checkNetwork(v validator, n *NetworkResource) {
	if n == nil {
		return
	}
	for i, p := range n.ReservedPorts {
		pv := v.index("ReservedPorts", i)
		r.checkLabel(pv, p.Label)
		r.checkStatic(pv, p.Value)
		checkPortTo(pv, p.To)
	}
	for i, p := range n.DynamicPorts {
		pv := v.index("DynamicPorts", i)
		r.checkLabel(pv, p.Label)
		if p.Value != 0 {
			pv.fail("Value", "dynamic ports are assigned by the scheduler: value must be 0, got %d", p.Value)
		}
		checkPortTo(pv, p.To)
	}
}

func (r portRegistry) checkLabel(v validator, label string) {
	if label == "" {
		v.fail("Label", "is required")
		return
	}
	if first, dup := r.labels[label]; dup {
		v.fail("Label", "duplicate port label %q (also %s)", label, first)
		return
	}
	r.labels[label] = v.path
}

func (r portRegistry) checkStatic(v validator, port int) {
	if port < 1 || port > maxPort {
		v.fail("Value", "static port must be between 1 and %d, got %d", maxPort, port)
		return
	}
	if first, dup := r.static[port]; dup {
		v.fail("Value", "static port %d is already reserved by %s", port, first)
		return
	}
	r.static[port] = v.path
}

// checkPortTo accepts -1, Nomad's "map to the same port as the host".
func checkPortTo(v validator, to int) {
	if to < -1 || to > maxPort {
		v.fail("To", "must be between -1 and %d, got %d", maxPort, to)
	}
}

func (s *ScalingPolicy) validate(v validator) {
	if s == nil {
		return
	}
	if s.Min < 0 {
		v.fail("Min", "must not be negative, got %d", s.Min)
	}
	if s.Max < s.Min {
		v.fail("Max", "must be at least Min (%d), got %d", s.Min, s.Max)
	}
}

func (d *DisconnectStrategy) validate(v validator) {
	if d == nil {
		return
	}
	if d.LostAfter < 0 {
		v.fail("LostAfter", "must not be negative, got %s", d.LostAfter)
	}
	if d.StopOnClientAfter != nil && *d.StopOnClientAfter < 0 {
		v.fail("StopOnClientAfter", "must not be negative, got %s", *d.StopOnClientAfter)
	}
	v.oneOf("Reconcile", d.Reconcile, "", ReconcileOptionBestScore, ReconcileOptionLongestRunning,
		ReconcileOptionKeepOriginal, ReconcileOptionKeepReplacement)
}

// ---- tasks ----

func (t *Task) validate(v validator, j *Job) {
	validateTaskName(v, t.Name)
	v.require("Driver", t.Driver)
	t.Resources.validate(v.at("Resources"))
	validatePlacement(v, j.Type, t.Constraints, t.Affinities, nil)
	t.RestartPolicy.validate(v.at("RestartPolicy"))
	if t.Lifecycle != nil {
		v.oneOf("Lifecycle.Hook", t.Lifecycle.Hook,
			TaskLifecycleHookPrestart, TaskLifecycleHookPoststart, TaskLifecycleHookPoststop)
	}
	if t.KillTimeout < 0 {
		v.fail("KillTimeout", "must not be negative, got %s", t.KillTimeout)
	}
	if t.ShutdownDelay < 0 {
		v.fail("ShutdownDelay", "must not be negative, got %s", t.ShutdownDelay)
	}
	t.LogConfig.validate(v.at("LogConfig"))
	for i, a := range t.Artifacts {
		if a != nil {
			av := v.index("Artifacts", i)
			av.require("GetterSource", a.GetterSource)
			av.oneOf("GetterMode", a.GetterMode, "", ArtifactModeAny, ArtifactModeFile, ArtifactModeDir)
		}
	}
	for i, s := range t.Services {
		s.validate(v.index("Services", i))
	}
	for i, tmpl := range t.Templates {
		tmpl.validate(v.index("Templates", i))
	}
	t.validateActions(v)
	t.validateIdentities(v)
}

func (r *Resources) validate(v validator) {
	if r == nil {
		return
	}
	switch {
	case r.Cores < 0:
		v.fail("Cores", "must not be negative, got %d", r.Cores)
	case r.Cores > 0 && r.CPU > 0:
		v.fail("Cores", "cores and cpu may not both be set")
	case r.Cores == 0 && r.CPU < 1:
		v.fail("CPU", "must be at least 1 MHz, got %d", r.CPU)
	}
	if r.MemoryMB < minMemoryMB {
		v.fail("MemoryMB", "must be at least %d, got %d", minMemoryMB, r.MemoryMB)
	}
	if r.MemoryMaxMB != 0 && r.MemoryMaxMB < r.MemoryMB {
		v.fail("MemoryMaxMB", "must be 0 or at least MemoryMB (%d), got %d", r.MemoryMB, r.MemoryMaxMB)
	}
	for i, d := range r.Devices {
		if d != nil {
			v.index("Devices", i).require("Name", d.Name)
		}
	}
}

func (l *LogConfig) validate(v validator) {
	if l == nil {
		return
	}
	if l.MaxFiles < 1 {
		v.fail("MaxFiles", "must be at least 1, got %d", l.MaxFiles)
	}
	if l.MaxFileSizeMB < 1 {
		v.fail("MaxFileSizeMB", "must be at least 1, got %d", l.MaxFileSizeMB)
	}
}

func (t *Template) validate(v validator) {
	if t == nil {
		return
	}
	if t.SourcePath == "" && t.EmbeddedTmpl == "" {
		v.fail("SourcePath", "a source path or an embedded template is required")
	}
	v.require("DestPath", t.DestPath)
	v.oneOf("ChangeMode", t.ChangeMode, "", TemplateChangeModeNoop, TemplateChangeModeRestart,
		TemplateChangeModeSignal, TemplateChangeModeScript)
	if t.ChangeMode == TemplateChangeModeSignal && t.ChangeSignal == "" {
		v.fail("ChangeSignal", "is required when ChangeMode is %q", TemplateChangeModeSignal)
	}
	if t.Uid != nil && *t.Uid < -1 {
		v.fail("Uid", "must be a user ID (or -1 to keep the client's), got %d", *t.Uid)
	}
	if t.Gid != nil && *t.Gid < -1 {
		v.fail("Gid", "must be a group ID (or -1 to keep the client's), got %d", *t.Gid)
	}
}

// ---- services ----

// Artifact modes: what an artifact's source is fetched as.
const (
	ArtifactModeAny  = "any"
	ArtifactModeFile = "file"
	ArtifactModeDir  = "dir"
)

// minCheckInterval is Nomad's shortest check interval. An interval of 0
// means the client's default (10s): Drover differs from Nomad on purpose
// there, which requires one.
const minCheckInterval = time.Second

// maxServiceNameLength is an RFC 1123 label's limit.
const maxServiceNameLength = 63

var (
	// serviceNamePattern is an RFC 1123 label: letters, digits and dashes,
	// not starting or ending with a dash.
	serviceNamePattern = regexp.MustCompile(`^(?i:[a-z0-9]|[a-z0-9][a-z0-9-]*[a-z0-9])$`)
	// interpolation is a ${...} reference, resolved on the client.
	interpolation = regexp.MustCompile(`\$\{[^}]*\}`)
)

func (s *Service) validate(v validator) {
	if s == nil {
		v.failHere("must not be null")
		return
	}
	validateServiceName(v, s.Name)
	v.oneOf("Provider", s.Provider, "", ServiceProviderNomad, ServiceProviderConsul)
	v.oneOf("OnUpdate", s.OnUpdate, "", OnUpdateRequireHealthy, OnUpdateIgnoreWarnings, OnUpdateIgnore)
	switch s.AddressMode {
	case "", AddressModeAuto, AddressModeHost:
	case AddressModeDriver, AddressModeAlloc:
		v.fail("AddressMode", "address_mode %q is not supported by Drover: its drivers report no task or alloc network address; use \"auto\" or \"host\"", s.AddressMode)
	default:
		v.oneOf("AddressMode", s.AddressMode, AddressModeAuto, AddressModeHost)
	}
	if s.Address != "" && s.AddressMode != "" && s.AddressMode != AddressModeAuto {
		v.fail("Address", "may only be set with address_mode \"auto\", not %q", s.AddressMode)
	}
	for i, c := range s.Checks {
		cv := v.index("Checks", i)
		if c == nil {
			cv.failHere("must not be null")
			continue
		}
		if c.Interval < 0 || (c.Interval > 0 && c.Interval < minCheckInterval) {
			cv.fail("Interval", "must be at least %s (or 0 for the default), got %s", minCheckInterval, c.Interval)
		}
		cv.oneOf("OnUpdate", c.OnUpdate, "", OnUpdateRequireHealthy, OnUpdateIgnoreWarnings, OnUpdateIgnore)
		cv.oneOf("InitialStatus", c.InitialStatus, "", CheckStatusPassing, CheckStatusWarning, CheckStatusCritical)
		for _, n := range []struct {
			field string
			value int
		}{{"SuccessBeforePassing", c.SuccessBeforePassing}, {"FailuresBeforeWarning", c.FailuresBeforeWarning}, {"FailuresBeforeCritical", c.FailuresBeforeCritical}} {
			if n.value < 0 {
				cv.fail(n.field, "must not be negative, got %d", n.value)
			}
		}
	}
}

// validateServiceName holds a service name to RFC 1123, as Nomad does. A
// name may hold ${...} references, which the client interpolates: each is
// checked as if it were one valid character, and the length only when
// there are none (the interpolated length is not known here).
func validateServiceName(v validator, name string) {
	if name == "" {
		return // Nomad's api fills a default name
	}
	plain := interpolation.ReplaceAllString(name, "a")
	if !serviceNamePattern.MatchString(plain) {
		v.fail("Name", "%q is not a valid RFC 1123 name: only letters, digits and dashes, not starting or ending with a dash", name)
		return
	}
	if plain == name && len(name) > maxServiceNameLength {
		v.fail("Name", "must be at most %d characters, got %d", maxServiceNameLength, len(name))
	}
}

// ---- policies ----

func (u *UpdateStrategy) validate(v validator) {
	if u == nil {
		return
	}
	if u.MaxParallel < 0 {
		v.fail("MaxParallel", "must not be negative, got %d", u.MaxParallel)
	}
	if u.Canary < 0 {
		v.fail("Canary", "must not be negative, got %d", u.Canary)
	}
	if u.Stagger < 0 {
		v.fail("Stagger", "must not be negative, got %s", u.Stagger)
	}
	v.oneOf("HealthCheck", u.HealthCheck, "", UpdateHealthCheckChecks, UpdateHealthCheckTaskStates, UpdateHealthCheckManual)
	for _, d := range []struct {
		field string
		value time.Duration
	}{{"MinHealthyTime", u.MinHealthyTime}, {"HealthyDeadline", u.HealthyDeadline}, {"ProgressDeadline", u.ProgressDeadline}} {
		if d.value < 0 {
			v.fail(d.field, "must not be negative, got %s", d.value)
		}
	}
	if u.MinHealthyTime > 0 && u.HealthyDeadline > 0 && u.MinHealthyTime >= u.HealthyDeadline {
		v.fail("MinHealthyTime", "must be less than HealthyDeadline (%s), got %s", u.HealthyDeadline, u.MinHealthyTime)
	}
	if u.ProgressDeadline > 0 && u.HealthyDeadline >= u.ProgressDeadline {
		v.fail("HealthyDeadline", "must be less than ProgressDeadline (%s), got %s", u.ProgressDeadline, u.HealthyDeadline)
	}
}

func (m *MigrateStrategy) validate(v validator) {
	if m == nil {
		return
	}
	if m.MaxParallel < 0 {
		v.fail("MaxParallel", "must not be negative, got %d", m.MaxParallel)
	}
	v.oneOf("HealthCheck", m.HealthCheck, "", UpdateHealthCheckChecks, UpdateHealthCheckTaskStates)
	if m.MinHealthyTime > 0 && m.HealthyDeadline > 0 && m.MinHealthyTime >= m.HealthyDeadline {
		v.fail("MinHealthyTime", "must be less than HealthyDeadline (%s), got %s", m.HealthyDeadline, m.MinHealthyTime)
	}
}

func (r *ReschedulePolicy) validate(v validator) {
	if r == nil {
		return
	}
	if r.Attempts < 0 {
		v.fail("Attempts", "must not be negative, got %d", r.Attempts)
	}
	v.oneOf("DelayFunction", r.DelayFunction, "", RescheduleDelayConstant, RescheduleDelayExponential, RescheduleDelayFibonacci)
	if r.Attempts == 0 && !r.Unlimited {
		return // rescheduling is off; the timings are unused
	}
	if r.Delay < minRescheduleDelay {
		v.fail("Delay", "must be at least %s, got %s", minRescheduleDelay, r.Delay)
	}
	growing := r.DelayFunction == RescheduleDelayExponential || r.DelayFunction == RescheduleDelayFibonacci
	if growing && r.MaxDelay < r.Delay {
		v.fail("MaxDelay", "must be at least Delay (%s) for %s delays, got %s", r.Delay, r.DelayFunction, r.MaxDelay)
	}
	if !r.Unlimited && r.Interval <= 0 {
		v.fail("Interval", "must be positive when attempts are limited, got %s", r.Interval)
	}
}

func (r *RestartPolicy) validate(v validator) {
	if r == nil {
		return
	}
	v.oneOf("Mode", r.Mode, RestartPolicyModeDelay, RestartPolicyModeFail)
	if r.Attempts < 0 {
		v.fail("Attempts", "must not be negative, got %d", r.Attempts)
	}
	if r.Delay < 0 {
		v.fail("Delay", "must not be negative, got %s", r.Delay)
	}
	if r.Attempts > 0 && r.Interval < r.Delay {
		v.fail("Interval", "must be at least Delay (%s), got %s", r.Delay, r.Interval)
	}
}

// ---- placement ----

// validatePlacement checks constraints, affinities and spreads at any
// level. System jobs run everywhere eligible, so preferences have no
// meaning for them and are rejected, as Nomad does.
func validatePlacement(v validator, jobType string, cs []*Constraint, as []*Affinity, ss []*Spread) {
	for i, c := range cs {
		c.validate(v.index("Constraints", i))
	}
	systemLike := jobType == JobTypeSystem || jobType == JobTypeSysBatch
	for i, a := range as {
		av := v.index("Affinities", i)
		if systemLike {
			av.failHere("%s jobs may not have affinities", jobType)
			continue
		}
		a.validate(av)
	}
	for i, s := range ss {
		sv := v.index("Spreads", i)
		if systemLike {
			sv.failHere("%s jobs may not have spreads", jobType)
			continue
		}
		s.validate(sv)
	}
}

func (c *Constraint) validate(v validator) {
	if c == nil {
		v.failHere("must not be null")
		return
	}
	if !slices.Contains(ConstraintOperands, c.Operand) {
		v.fail("Operand", "unknown operator %q", c.Operand)
		return
	}
	validateTargets(v, c.Operand, c.LTarget, c.RTarget)
}

func (a *Affinity) validate(v validator) {
	if a == nil {
		v.failHere("must not be null")
		return
	}
	switch {
	case a.Operand == ConstraintDistinctHosts || a.Operand == ConstraintDistinctProperty:
		v.fail("Operand", "%q is a constraint, not an affinity", a.Operand)
	case !slices.Contains(ConstraintOperands, a.Operand):
		v.fail("Operand", "unknown operator %q", a.Operand)
	default:
		validateTargets(v, a.Operand, a.LTarget, a.RTarget)
	}
	if a.Weight == 0 || a.Weight < -maxAffinityWeight || a.Weight > maxAffinityWeight {
		v.fail("Weight", "must be non-zero and between -%d and %d, got %d", maxAffinityWeight, maxAffinityWeight, a.Weight)
	}
}

// validateTargets checks the targets an operator needs.
func validateTargets(v validator, operand, ltarget, rtarget string) {
	switch operand {
	case ConstraintDistinctHosts:
		// Needs neither target: it compares allocations, not attributes.
	case ConstraintDistinctProperty:
		v.require("LTarget", ltarget)
		if rtarget != "" {
			if n, err := strconv.ParseUint(rtarget, 10, 64); err != nil || n == 0 {
				v.fail("RTarget", "distinct_property limit must be a positive integer, got %q", rtarget)
			}
		}
	case ConstraintAttributeIsSet, ConstraintAttributeIsUnset:
		v.require("LTarget", ltarget)
	case ConstraintRegex:
		v.require("LTarget", ltarget)
		if _, err := regexp.Compile(rtarget); err != nil {
			v.fail("RTarget", "invalid regular expression: %v", err)
		}
	case ConstraintVersion, ConstraintSemver:
		v.require("LTarget", ltarget)
		if strings.TrimSpace(rtarget) == "" {
			v.fail("RTarget", "a version requirement is required")
		} else if !validVersionConstraint(rtarget) {
			v.fail("RTarget", "malformed version constraint %q (want e.g. \">= 1.2, < 2\")", rtarget)
		}
	default: // comparisons and set_contains*
		v.require("LTarget", ltarget)
		v.require("RTarget", rtarget)
	}
}

func (s *Spread) validate(v validator) {
	if s == nil {
		v.failHere("must not be null")
		return
	}
	v.require("Attribute", s.Attribute)
	if s.Weight < 0 || s.Weight > maxSpreadWeight {
		v.fail("Weight", "must be between 0 and %d, got %d", maxSpreadWeight, s.Weight)
	}
	total := 0
	firstByValue := map[string]int{}
	for i, t := range s.SpreadTarget {
		tv := v.index("SpreadTarget", i)
		if t == nil {
			tv.failHere("must not be null")
			continue
		}
		tv.require("Value", t.Value)
		if first, dup := firstByValue[t.Value]; dup {
			tv.fail("Value", "duplicate target value %q (also SpreadTarget[%d])", t.Value, first)
		} else {
			firstByValue[t.Value] = i
		}
		total += int(t.Percent)
	}
	if total > maxSpreadTargetTotal {
		v.fail("SpreadTarget", "target percentages must sum to at most %d, got %d", maxSpreadTargetTotal, total)
	}
}

// ---- nodes, evaluations, scheduler configuration ----

// uuidPattern matches the canonical 8-4-4-4-12 hexadecimal form.
var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// IsUUID reports whether s has the canonical UUID form.
func IsUUID(s string) bool { return uuidPattern.MatchString(s) }

// Validate checks a registering node; it returns nil or ValidationErrors.
func (n *Node) Validate() error {
	v := newValidator()
	switch {
	case n.ID == "":
		v.fail("ID", "is required")
	case !IsUUID(n.ID):
		v.fail("ID", "must be a UUID, got %q", n.ID)
	}
	v.require("Datacenter", n.Datacenter)
	v.require("Name", n.Name)
	if n.Status != "" && !ValidNodeStatus(n.Status) {
		v.fail("Status", "unknown node status %q", n.Status)
	}
	v.oneOf("SchedulingEligibility", n.SchedulingEligibility, "", NodeSchedulingEligible, NodeSchedulingIneligible)
	return v.err()
}

// EvalStatuses lists the five statuses an evaluation may be stored with.
var EvalStatuses = []string{
	EvalStatusPending, EvalStatusBlocked, EvalStatusComplete, EvalStatusFailed, EvalStatusCanceled,
}

// Validate checks an evaluation before it is written; it returns nil or
// ValidationErrors.
func (e *Evaluation) Validate() error {
	v := newValidator()
	v.require("ID", e.ID)
	v.require("Namespace", e.Namespace)
	if e.Type == "" {
		v.fail("Type", "is required")
	} else {
		v.oneOf("Type", e.Type, JobTypeService, JobTypeBatch, JobTypeSystem, JobTypeSysBatch, JobTypeCore)
	}
	if e.TriggeredBy == "" {
		v.fail("TriggeredBy", "is required")
	} else if !slices.Contains(AllEvalTriggers, e.TriggeredBy) {
		v.fail("TriggeredBy", "unknown trigger %q", e.TriggeredBy)
	}
	v.oneOf("Status", e.Status, EvalStatuses...)
	if e.Type != JobTypeCore {
		v.require("JobID", e.JobID)
	}
	return v.err()
}

// Validate checks a scheduler configuration; it returns nil or
// ValidationErrors.
func (c *SchedulerConfiguration) Validate() error {
	v := newValidator()
	v.oneOf("SchedulerAlgorithm", c.SchedulerAlgorithm, "", SchedulerAlgorithmBinpack, SchedulerAlgorithmSpread)
	return v.err()
}
