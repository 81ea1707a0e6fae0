package structs

import (
	"maps"
	"reflect"
	"slices"
)

// Deep copies. Objects read from the state store are shared between
// goroutines and must never be mutated in place; callers that want to change
// one copy it first. Every Copy is nil-safe (a nil receiver returns nil) and
// preserves nil-versus-empty for slices and maps, so a copy is
// reflect.DeepEqual to its original. copy_test.go fills every field of every
// type by reflection, so a field added without copy support fails the tests.

// copyPtr returns a pointer to a copy of *p, for pointers to values that hold
// no references (time.Duration, bool).
func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// copyEach copies a slice of pointers element by element with cp.
func copyEach[T any](s []*T, cp func(*T) *T) []*T {
	if s == nil {
		return nil
	}
	out := make([]*T, len(s))
	for i, v := range s {
		out[i] = cp(v)
	}
	return out
}

// copyEachValue copies a map of pointers value by value with cp.
func copyEachValue[K comparable, V any](m map[K]*V, cp func(*V) *V) map[K]*V {
	if m == nil {
		return nil
	}
	out := make(map[K]*V, len(m))
	for k, v := range m {
		out[k] = cp(v)
	}
	return out
}

// copyAllocsByNode copies the node-ID-to-allocations maps of plans.
func copyAllocsByNode(m map[string][]*Allocation) map[string][]*Allocation {
	if m == nil {
		return nil
	}
	out := make(map[string][]*Allocation, len(m))
	for node, allocs := range m {
		out[node] = copyEach(allocs, (*Allocation).Copy)
	}
	return out
}

// CopyMapAny deep-copies a free-form map such as Task.Config, whose values
// may be nested maps and slices decoded from HCL, JSON or msgpack.
func CopyMapAny(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = CopyAny(v)
	}
	return out
}

// CopyAny deep-copies a free-form value. The decoders produce map[string]any
// and []any, handled directly; any other map, slice or pointer is copied by
// reflection so no decoder's choice of types leaks shared memory.
func CopyAny(v any) any {
	switch t := v.(type) {
	case nil:
		return nil
	case map[string]any:
		return CopyMapAny(t)
	case []any:
		if t == nil {
			return t
		}
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = CopyAny(e)
		}
		return out
	case map[string]string:
		return maps.Clone(t)
	case []string:
		return slices.Clone(t)
	case []byte:
		return slices.Clone(t)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer, reflect.Array:
		return copyReflect(rv).Interface()
	}
	return v // scalars and strings are immutable
}

// copyReflect deep-copies maps, slices, arrays, pointers and interfaces of
// arbitrary type; everything else is copied by value.
func copyReflect(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(copyReflect(v.Elem()))
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(copyReflect(v.Elem()))
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), copyReflect(it.Value()))
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(copyReflect(v.Index(i)))
		}
		return out
	case reflect.Array:
		out := reflect.New(v.Type()).Elem()
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(copyReflect(v.Index(i)))
		}
		return out
	}
	return v
}

// ---- job.go ----

// Copy returns a deep copy of the job.
func (j *Job) Copy() *Job {
	if j == nil {
		return nil
	}
	c := *j
	c.Datacenters = slices.Clone(j.Datacenters)
	c.Constraints = copyEach(j.Constraints, (*Constraint).Copy)
	c.Affinities = copyEach(j.Affinities, (*Affinity).Copy)
	c.Spreads = copyEach(j.Spreads, (*Spread).Copy)
	c.TaskGroups = copyEach(j.TaskGroups, (*TaskGroup).Copy)
	c.Update = *j.Update.Copy()
	c.Periodic = j.Periodic.Copy()
	c.ParameterizedJob = j.ParameterizedJob.Copy()
	c.Payload = slices.Clone(j.Payload)
	c.Reschedule = j.Reschedule.Copy()
	c.Migrate = j.Migrate.Copy()
	c.Meta = maps.Clone(j.Meta)
	c.VersionTag = j.VersionTag.Copy()
	return &c
}

// Copy returns a copy of the ID.
func (n *NamespacedID) Copy() *NamespacedID { return copyPtr(n) }

// Copy returns a copy of the constraint.
func (c *Constraint) Copy() *Constraint { return copyPtr(c) }

// Copy returns a copy of the affinity.
func (a *Affinity) Copy() *Affinity { return copyPtr(a) }

// Copy returns a deep copy of the spread.
func (s *Spread) Copy() *Spread {
	if s == nil {
		return nil
	}
	c := *s
	c.SpreadTarget = copyEach(s.SpreadTarget, (*SpreadTarget).Copy)
	return &c
}

// Copy returns a copy of the spread target.
func (s *SpreadTarget) Copy() *SpreadTarget { return copyPtr(s) }

// Copy returns a copy of the update strategy.
func (u *UpdateStrategy) Copy() *UpdateStrategy { return copyPtr(u) }

// Copy returns a copy of the migrate strategy.
func (m *MigrateStrategy) Copy() *MigrateStrategy { return copyPtr(m) }

// Copy returns a copy of the reschedule policy.
func (r *ReschedulePolicy) Copy() *ReschedulePolicy { return copyPtr(r) }

// Copy returns a copy of the restart policy.
func (r *RestartPolicy) Copy() *RestartPolicy { return copyPtr(r) }

// Copy returns a deep copy of the periodic config.
func (p *PeriodicConfig) Copy() *PeriodicConfig {
	if p == nil {
		return nil
	}
	c := *p
	c.Specs = slices.Clone(p.Specs)
	return &c
}

// Copy returns a deep copy of the parameterized config.
func (p *ParameterizedJobConfig) Copy() *ParameterizedJobConfig {
	if p == nil {
		return nil
	}
	c := *p
	c.MetaRequired = slices.Clone(p.MetaRequired)
	c.MetaOptional = slices.Clone(p.MetaOptional)
	return &c
}

// ---- taskgroup.go ----

// Copy returns a deep copy of the task group.
func (tg *TaskGroup) Copy() *TaskGroup {
	if tg == nil {
		return nil
	}
	c := *tg
	c.Update = tg.Update.Copy()
	c.Migrate = tg.Migrate.Copy()
	c.Constraints = copyEach(tg.Constraints, (*Constraint).Copy)
	c.Affinities = copyEach(tg.Affinities, (*Affinity).Copy)
	c.Spreads = copyEach(tg.Spreads, (*Spread).Copy)
	c.Scaling = tg.Scaling.Copy()
	c.RestartPolicy = tg.RestartPolicy.Copy()
	c.ReschedulePolicy = tg.ReschedulePolicy.Copy()
	c.Disconnect = tg.Disconnect.Copy()
	c.EphemeralDisk = tg.EphemeralDisk.Copy()
	c.Networks = copyEach(tg.Networks, (*NetworkResource).Copy)
	c.Services = copyEach(tg.Services, (*Service).Copy)
	c.Tasks = copyEach(tg.Tasks, (*Task).Copy)
	c.Volumes = copyEachValue(tg.Volumes, (*VolumeRequest).Copy)
	c.Meta = maps.Clone(tg.Meta)
	c.StopAfterClientDisconnect = copyPtr(tg.StopAfterClientDisconnect)
	c.MaxClientDisconnect = copyPtr(tg.MaxClientDisconnect)
	c.ShutdownDelay = copyPtr(tg.ShutdownDelay)
	c.MaxRunDuration = copyPtr(tg.MaxRunDuration)
	return &c
}

// Copy returns a deep copy of the disconnect strategy.
func (d *DisconnectStrategy) Copy() *DisconnectStrategy {
	if d == nil {
		return nil
	}
	c := *d
	c.StopOnClientAfter = copyPtr(d.StopOnClientAfter)
	c.Replace = copyPtr(d.Replace)
	return &c
}

// Copy returns a deep copy of the scaling policy, including nested values
// of the free-form Policy map.
func (s *ScalingPolicy) Copy() *ScalingPolicy {
	if s == nil {
		return nil
	}
	c := *s
	c.Policy = CopyMapAny(s.Policy)
	return &c
}

// Copy returns a copy of the ephemeral disk.
func (e *EphemeralDisk) Copy() *EphemeralDisk { return copyPtr(e) }

// Copy returns a deep copy of the service.
func (s *Service) Copy() *Service {
	if s == nil {
		return nil
	}
	c := *s
	c.Tags = slices.Clone(s.Tags)
	c.Checks = copyEach(s.Checks, (*ServiceCheck).Copy)
	c.CanaryTags = slices.Clone(s.CanaryTags)
	c.CanaryMeta = maps.Clone(s.CanaryMeta)
	c.Meta = maps.Clone(s.Meta)
	c.TaggedAddresses = maps.Clone(s.TaggedAddresses)
	return &c
}

// Copy returns a deep copy of the check.
func (s *ServiceCheck) Copy() *ServiceCheck {
	if s == nil {
		return nil
	}
	c := *s
	c.Args = slices.Clone(s.Args)
	c.CheckRestart = s.CheckRestart.Copy()
	if s.Header != nil {
		c.Header = make(map[string][]string, len(s.Header))
		for k, v := range s.Header {
			c.Header[k] = slices.Clone(v)
		}
	}
	return &c
}

// Copy returns a copy of the check_restart block.
func (c *CheckRestart) Copy() *CheckRestart { return copyPtr(c) }

// Copy returns a deep copy of the task, including nested values of the
// free-form driver Config.
func (t *Task) Copy() *Task {
	if t == nil {
		return nil
	}
	c := *t
	c.Config = CopyMapAny(t.Config)
	c.Env = maps.Clone(t.Env)
	c.Constraints = copyEach(t.Constraints, (*Constraint).Copy)
	c.Affinities = copyEach(t.Affinities, (*Affinity).Copy)
	c.Resources = t.Resources.Copy()
	c.RestartPolicy = t.RestartPolicy.Copy()
	c.Lifecycle = t.Lifecycle.Copy()
	c.Meta = maps.Clone(t.Meta)
	c.Identity = t.Identity.Copy()
	c.Identities = copyEach(t.Identities, (*WorkloadIdentity).Copy)
	c.VolumeMounts = copyEach(t.VolumeMounts, (*VolumeMount).Copy)
	c.Actions = copyEach(t.Actions, (*Action).Copy)
	c.LogConfig = t.LogConfig.Copy()
	c.Artifacts = copyEach(t.Artifacts, (*TaskArtifact).Copy)
	c.Templates = copyEach(t.Templates, (*Template).Copy)
	c.Services = copyEach(t.Services, (*Service).Copy)
	c.DispatchPayload = t.DispatchPayload.Copy()
	return &c
}

// Copy returns a copy of the lifecycle config.
func (l *TaskLifecycleConfig) Copy() *TaskLifecycleConfig { return copyPtr(l) }

// Copy returns a copy of the log config.
func (l *LogConfig) Copy() *LogConfig { return copyPtr(l) }

// Copy returns a deep copy of the artifact.
func (a *TaskArtifact) Copy() *TaskArtifact {
	if a == nil {
		return nil
	}
	c := *a
	c.GetterOptions = maps.Clone(a.GetterOptions)
	return &c
}

// Copy returns a copy of the template.
func (t *Template) Copy() *Template {
	if t == nil {
		return nil
	}
	c := *t
	c.Wait = copyPtr(t.Wait)
	c.Uid, c.Gid = copyPtr(t.Uid), copyPtr(t.Gid)
	if t.ChangeScript != nil {
		cs := *t.ChangeScript
		cs.Args = slices.Clone(t.ChangeScript.Args)
		c.ChangeScript = &cs
	}
	return &c
}

// Copy returns a copy of the dispatch payload config.
func (d *DispatchPayloadConfig) Copy() *DispatchPayloadConfig { return copyPtr(d) }

// Copy returns a deep copy of the resources.
func (r *Resources) Copy() *Resources {
	if r == nil {
		return nil
	}
	c := *r
	c.Networks = copyEach(r.Networks, (*NetworkResource).Copy)
	c.Devices = copyEach(r.Devices, (*RequestedDevice).Copy)
	return &c
}

// Copy returns a deep copy of the device request.
func (d *RequestedDevice) Copy() *RequestedDevice {
	c := copyPtr(d)
	if c != nil {
		c.Constraints = copyEach(d.Constraints, func(x *Constraint) *Constraint { return copyPtr(x) })
		c.Affinities = copyEach(d.Affinities, func(x *Affinity) *Affinity { return copyPtr(x) })
	}
	return c
}

// Copy returns a deep copy of the device group.
func (d *NodeDeviceResource) Copy() *NodeDeviceResource {
	c := copyPtr(d)
	if c != nil {
		c.Instances = copyEach(d.Instances, copyPtr[NodeDevice])
		c.Attributes = maps.Clone(d.Attributes)
	}
	return c
}

// Copy returns a deep copy of the granted devices.
func (d *AllocatedDeviceResource) Copy() *AllocatedDeviceResource {
	c := copyPtr(d)
	if c != nil {
		c.DeviceIDs = slices.Clone(d.DeviceIDs)
	}
	return c
}

// Copy returns a deep copy of the network.
func (n *NetworkResource) Copy() *NetworkResource {
	if n == nil {
		return nil
	}
	c := *n
	c.ReservedPorts = slices.Clone(n.ReservedPorts)
	c.DynamicPorts = slices.Clone(n.DynamicPorts)
	c.DNS = n.DNS.Copy()
	c.CNI = n.CNI.Copy()
	return &c
}

// Copy returns a deep copy of the DNS settings.
func (d *DNSConfig) Copy() *DNSConfig {
	if d == nil {
		return nil
	}
	return &DNSConfig{Servers: slices.Clone(d.Servers), Searches: slices.Clone(d.Searches), Options: slices.Clone(d.Options)}
}

// Copy returns a deep copy of the CNI settings.
func (c *CNIConfig) Copy() *CNIConfig {
	if c == nil {
		return nil
	}
	return &CNIConfig{Args: maps.Clone(c.Args)}
}

// Copy returns a copy of the port.
func (p *Port) Copy() *Port { return copyPtr(p) }

// ---- resources.go ----

// Copy returns a copy of the comparable resources.
func (c *ComparableResources) Copy() *ComparableResources { return copyPtr(c) }

// ---- node.go ----

// Copy returns a deep copy of the node.
func (n *Node) Copy() *Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Attributes = maps.Clone(n.Attributes)
	c.Meta = maps.Clone(n.Meta)
	c.NodeResources = n.NodeResources.Copy()
	c.ReservedResources = n.ReservedResources.Copy()
	c.Drivers = copyEachValue(n.Drivers, (*DriverInfo).Copy)
	c.Links = maps.Clone(n.Links)
	c.DrainStrategy = n.DrainStrategy.Copy()
	c.LastDrain = n.LastDrain.Copy()
	c.Events = copyEach(n.Events, (*NodeEvent).Copy)
	c.HostVolumes = copyEachValue(n.HostVolumes, (*ClientHostVolumeConfig).Copy)
	c.HostNetworks = copyEachValue(n.HostNetworks, (*ClientHostNetworkConfig).Copy)
	return &c
}

// Copy returns a deep copy of the node resources.
func (r *NodeResources) Copy() *NodeResources {
	if r == nil {
		return nil
	}
	c := *r
	c.CPU = *r.CPU.Copy()
	c.Networks = copyEach(r.Networks, (*NetworkResource).Copy)
	c.Devices = copyEach(r.Devices, (*NodeDeviceResource).Copy)
	return &c
}

// Copy returns a deep copy of the CPU resources.
func (r *NodeCPUResources) Copy() *NodeCPUResources {
	if r == nil {
		return nil
	}
	c := *r
	c.ReservableCpuCores = slices.Clone(r.ReservableCpuCores)
	return &c
}

// Copy returns a copy of the reserved resources.
func (r *NodeReservedResources) Copy() *NodeReservedResources { return copyPtr(r) }

// Copy returns a deep copy of the driver info.
func (d *DriverInfo) Copy() *DriverInfo {
	if d == nil {
		return nil
	}
	c := *d
	c.Attributes = maps.Clone(d.Attributes)
	return &c
}

// Copy returns a copy of the drain strategy.
func (d *DrainStrategy) Copy() *DrainStrategy { return copyPtr(d) }

// Copy returns a deep copy of the drain metadata.
func (d *DrainMetadata) Copy() *DrainMetadata {
	if d == nil {
		return nil
	}
	c := *d
	c.Meta = maps.Clone(d.Meta)
	return &c
}

// Copy returns a deep copy of the node event.
func (e *NodeEvent) Copy() *NodeEvent {
	if e == nil {
		return nil
	}
	c := *e
	c.Details = maps.Clone(e.Details)
	return &c
}

// ---- alloc.go ----

// Copy returns a deep copy of the allocation, including its Job. Prefer
// CopySkipJob when the job is not going to be changed.
func (a *Allocation) Copy() *Allocation {
	if a == nil {
		return nil
	}
	c := a.CopySkipJob()
	c.Job = a.Job.Copy()
	return c
}

// CopySkipJob returns a deep copy of the allocation that shares its Job
// pointer. Jobs read from the state store are immutable, so sharing is safe
// and avoids copying the largest part of an allocation on every update.
func (a *Allocation) CopySkipJob() *Allocation {
	if a == nil {
		return nil
	}
	c := *a
	c.AllocatedResources = a.AllocatedResources.Copy()
	c.Metrics = a.Metrics.Copy()
	c.DesiredTransition = *a.DesiredTransition.Copy()
	c.TaskStates = copyEachValue(a.TaskStates, (*TaskState).Copy)
	c.DeploymentStatus = a.DeploymentStatus.Copy()
	c.RescheduleTracker = a.RescheduleTracker.Copy()
	c.PreemptedAllocations = slices.Clone(a.PreemptedAllocations)
	c.NetworkStatus = a.NetworkStatus.Copy()
	return &c
}

// Copy returns a deep copy of the desired transition.
func (d *DesiredTransition) Copy() *DesiredTransition {
	if d == nil {
		return nil
	}
	return &DesiredTransition{
		Migrate:         copyPtr(d.Migrate),
		Reschedule:      copyPtr(d.Reschedule),
		ForceReschedule: copyPtr(d.ForceReschedule),
		NoShutdownDelay: copyPtr(d.NoShutdownDelay),
	}
}

// Copy returns a deep copy of the allocated resources.
func (a *AllocatedResources) Copy() *AllocatedResources {
	if a == nil {
		return nil
	}
	return &AllocatedResources{
		Tasks:  copyEachValue(a.Tasks, (*AllocatedTaskResources).Copy),
		Shared: *a.Shared.Copy(),
	}
}

// Copy returns a deep copy of one task's allocated resources.
func (a *AllocatedTaskResources) Copy() *AllocatedTaskResources {
	if a == nil {
		return nil
	}
	c := *a
	c.ReservedCores = slices.Clone(a.ReservedCores)
	c.Networks = copyEach(a.Networks, (*NetworkResource).Copy)
	c.Devices = copyEach(a.Devices, (*AllocatedDeviceResource).Copy)
	return &c
}

// Copy returns a deep copy of the group's shared resources.
func (a *AllocatedSharedResources) Copy() *AllocatedSharedResources {
	if a == nil {
		return nil
	}
	c := *a
	c.Networks = copyEach(a.Networks, (*NetworkResource).Copy)
	c.Ports = slices.Clone(a.Ports)
	return &c
}

// Copy returns a copy of the port mapping.
func (p *AllocatedPortMapping) Copy() *AllocatedPortMapping { return copyPtr(p) }

// Copy returns a deep copy of the task state.
func (t *TaskState) Copy() *TaskState {
	if t == nil {
		return nil
	}
	c := *t
	c.Events = copyEach(t.Events, (*TaskEvent).Copy)
	return &c
}

// Copy returns a deep copy of the task event.
func (e *TaskEvent) Copy() *TaskEvent {
	if e == nil {
		return nil
	}
	c := *e
	c.Details = maps.Clone(e.Details)
	return &c
}

// Copy returns a deep copy of the deployment status.
func (s *AllocDeploymentStatus) Copy() *AllocDeploymentStatus {
	if s == nil {
		return nil
	}
	c := *s
	c.Healthy = copyPtr(s.Healthy)
	return &c
}

// Copy returns a deep copy of the reschedule tracker.
func (r *RescheduleTracker) Copy() *RescheduleTracker {
	if r == nil {
		return nil
	}
	return &RescheduleTracker{Events: copyEach(r.Events, (*RescheduleEvent).Copy)}
}

// Copy returns a copy of the reschedule event.
func (r *RescheduleEvent) Copy() *RescheduleEvent { return copyPtr(r) }

// Copy returns a deep copy of the alloc metric.
func (m *AllocMetric) Copy() *AllocMetric {
	if m == nil {
		return nil
	}
	c := *m
	c.NodesAvailable = maps.Clone(m.NodesAvailable)
	c.ClassFiltered = maps.Clone(m.ClassFiltered)
	c.ConstraintFiltered = maps.Clone(m.ConstraintFiltered)
	c.ClassExhausted = maps.Clone(m.ClassExhausted)
	c.DimensionExhausted = maps.Clone(m.DimensionExhausted)
	c.QuotaExhausted = slices.Clone(m.QuotaExhausted)
	c.ScoreMetaData = copyEach(m.ScoreMetaData, (*NodeScoreMeta).Copy)
	return &c
}

// Copy returns a deep copy of the score metadata.
func (s *NodeScoreMeta) Copy() *NodeScoreMeta {
	if s == nil {
		return nil
	}
	c := *s
	c.Scores = maps.Clone(s.Scores)
	return &c
}

// ---- eval.go ----

// Copy returns a deep copy of the evaluation.
func (e *Evaluation) Copy() *Evaluation {
	if e == nil {
		return nil
	}
	c := *e
	c.RelatedEvals = copyEach(e.RelatedEvals, (*EvaluationStub).Copy)
	c.FailedTGAllocs = copyEachValue(e.FailedTGAllocs, (*AllocMetric).Copy)
	c.ClassEligibility = maps.Clone(e.ClassEligibility)
	c.QueuedAllocations = maps.Clone(e.QueuedAllocations)
	c.Timeline = copyEach(e.Timeline, (*EvalTimelineEntry).Copy)
	return &c
}

// Copy returns a copy of the timeline entry.
func (t *EvalTimelineEntry) Copy() *EvalTimelineEntry { return copyPtr(t) }

// Copy returns a copy of the evaluation stub.
func (s *EvaluationStub) Copy() *EvaluationStub { return copyPtr(s) }

// ---- deployment.go ----

// Copy returns a deep copy of the deployment.
func (d *Deployment) Copy() *Deployment {
	if d == nil {
		return nil
	}
	c := *d
	c.TaskGroups = copyEachValue(d.TaskGroups, (*DeploymentState).Copy)
	return &c
}

// Copy returns a deep copy of the deployment state.
func (s *DeploymentState) Copy() *DeploymentState {
	if s == nil {
		return nil
	}
	c := *s
	c.PlacedCanaries = slices.Clone(s.PlacedCanaries)
	return &c
}

// Copy returns a copy of the deployment status update.
func (u *DeploymentStatusUpdate) Copy() *DeploymentStatusUpdate { return copyPtr(u) }

// ---- plan.go ----

// Copy returns a deep copy of the plan, including its allocations' jobs.
func (p *Plan) Copy() *Plan {
	if p == nil {
		return nil
	}
	c := *p
	c.Job = p.Job.Copy()
	c.NodeUpdate = copyAllocsByNode(p.NodeUpdate)
	c.NodeAllocation = copyAllocsByNode(p.NodeAllocation)
	c.NodePreemptions = copyAllocsByNode(p.NodePreemptions)
	c.Annotations = p.Annotations.Copy()
	c.Deployment = p.Deployment.Copy()
	c.DeploymentUpdates = copyEach(p.DeploymentUpdates, (*DeploymentStatusUpdate).Copy)
	c.FinalEval = p.FinalEval.Copy()
	return &c
}

// Copy returns a deep copy of the plan annotations.
func (a *PlanAnnotations) Copy() *PlanAnnotations {
	if a == nil {
		return nil
	}
	return &PlanAnnotations{
		DesiredTGUpdates: copyEachValue(a.DesiredTGUpdates, (*DesiredUpdates).Copy),
		PreemptedAllocs:  copyEach(a.PreemptedAllocs, (*Allocation).Copy),
	}
}

// Copy returns a copy of the desired updates.
func (d *DesiredUpdates) Copy() *DesiredUpdates { return copyPtr(d) }

// Copy returns a deep copy of the plan result.
func (r *PlanResult) Copy() *PlanResult {
	if r == nil {
		return nil
	}
	c := *r
	c.NodeUpdate = copyAllocsByNode(r.NodeUpdate)
	c.NodeAllocation = copyAllocsByNode(r.NodeAllocation)
	c.NodePreemptions = copyAllocsByNode(r.NodePreemptions)
	c.Deployment = r.Deployment.Copy()
	c.DeploymentUpdates = copyEach(r.DeploymentUpdates, (*DeploymentStatusUpdate).Copy)
	c.RejectedNodes = slices.Clone(r.RejectedNodes)
	return &c
}

// Copy returns a copy of the scheduler configuration.
func (c *SchedulerConfiguration) Copy() *SchedulerConfiguration { return copyPtr(c) }

// Copy returns a copy of the preemption config.
func (p *PreemptionConfig) Copy() *PreemptionConfig { return copyPtr(p) }
