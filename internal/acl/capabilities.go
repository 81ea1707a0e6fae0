package acl

import "slices"

// Coarse dispositions of a rule's `policy` field.
const (
	PolicyDeny  = "deny"
	PolicyRead  = "read"
	PolicyWrite = "write"
	PolicyList  = "list"
	PolicyScale = "scale"
)

// Namespace capabilities, Nomad's names.
const (
	NamespaceCapabilityDeny                 = "deny"
	NamespaceCapabilityListJobs             = "list-jobs"
	NamespaceCapabilityParseJob             = "parse-job"
	NamespaceCapabilityReadJob              = "read-job"
	NamespaceCapabilitySubmitJob            = "submit-job"
	NamespaceCapabilityDispatchJob          = "dispatch-job"
	NamespaceCapabilityReadLogs             = "read-logs"
	NamespaceCapabilityReadFS               = "read-fs"
	NamespaceCapabilityAllocExec            = "alloc-exec"
	NamespaceCapabilityAllocNodeExec        = "alloc-node-exec"
	NamespaceCapabilityAllocLifecycle       = "alloc-lifecycle"
	NamespaceCapabilityCSIRegisterPlugin    = "csi-register-plugin"
	NamespaceCapabilityCSIWriteVolume       = "csi-write-volume"
	NamespaceCapabilityCSIReadVolume        = "csi-read-volume"
	NamespaceCapabilityCSIListVolume        = "csi-list-volume"
	NamespaceCapabilityCSIMountVolume       = "csi-mount-volume"
	NamespaceCapabilityHostVolumeCreate     = "host-volume-create"
	NamespaceCapabilityHostVolumeRegister   = "host-volume-register"
	NamespaceCapabilityHostVolumeRead       = "host-volume-read"
	NamespaceCapabilityHostVolumeWrite      = "host-volume-write"
	NamespaceCapabilityHostVolumeDelete     = "host-volume-delete"
	NamespaceCapabilityListScalingPolicies  = "list-scaling-policies"
	NamespaceCapabilityReadScalingPolicy    = "read-scaling-policy"
	NamespaceCapabilityReadJobScaling       = "read-job-scaling"
	NamespaceCapabilityScaleJob             = "scale-job"
	NamespaceCapabilitySubmitRecommendation = "submit-recommendation"
	NamespaceCapabilitySentinelOverride     = "sentinel-override"
)

// Host volume capabilities.
const (
	HostVolumeCapabilityDeny           = "deny"
	HostVolumeCapabilityMountReadOnly  = "mount-readonly"
	HostVolumeCapabilityMountReadWrite = "mount-readwrite"
)

// Variable path capabilities.
const (
	VariablesCapabilityWrite   = "write"
	VariablesCapabilityRead    = "read"
	VariablesCapabilityList    = "list"
	VariablesCapabilityDestroy = "destroy"
	VariablesCapabilityDeny    = "deny"
)

var namespaceCapabilities = set(
	NamespaceCapabilityDeny, NamespaceCapabilityListJobs, NamespaceCapabilityParseJob,
	NamespaceCapabilityReadJob, NamespaceCapabilitySubmitJob, NamespaceCapabilityDispatchJob,
	NamespaceCapabilityReadLogs, NamespaceCapabilityReadFS, NamespaceCapabilityAllocExec,
	NamespaceCapabilityAllocNodeExec, NamespaceCapabilityAllocLifecycle,
	NamespaceCapabilityCSIRegisterPlugin, NamespaceCapabilityCSIWriteVolume,
	NamespaceCapabilityCSIReadVolume, NamespaceCapabilityCSIListVolume,
	NamespaceCapabilityCSIMountVolume, NamespaceCapabilityHostVolumeCreate,
	NamespaceCapabilityHostVolumeRegister, NamespaceCapabilityHostVolumeRead,
	NamespaceCapabilityHostVolumeWrite, NamespaceCapabilityHostVolumeDelete,
	NamespaceCapabilityListScalingPolicies, NamespaceCapabilityReadScalingPolicy,
	NamespaceCapabilityReadJobScaling, NamespaceCapabilityScaleJob,
	NamespaceCapabilitySubmitRecommendation, NamespaceCapabilitySentinelOverride,
)

var hostVolumeCapabilities = set(HostVolumeCapabilityDeny, HostVolumeCapabilityMountReadOnly, HostVolumeCapabilityMountReadWrite)

var variablesCapabilities = set(VariablesCapabilityWrite, VariablesCapabilityRead, VariablesCapabilityList,
	VariablesCapabilityDestroy, VariablesCapabilityDeny)

// namespaceReadCapabilities are what `policy = "read"` grants in a namespace.
var namespaceReadCapabilities = []string{
	NamespaceCapabilityListJobs, NamespaceCapabilityParseJob, NamespaceCapabilityReadJob,
	NamespaceCapabilityCSIListVolume, NamespaceCapabilityCSIReadVolume,
	NamespaceCapabilityReadJobScaling, NamespaceCapabilityListScalingPolicies,
	NamespaceCapabilityReadScalingPolicy, NamespaceCapabilityHostVolumeRead,
}

// namespaceWriteCapabilities are what `policy = "write"` adds to read and
// scale.
var namespaceWriteCapabilities = []string{
	NamespaceCapabilitySubmitJob, NamespaceCapabilityDispatchJob, NamespaceCapabilityReadLogs,
	NamespaceCapabilityReadFS, NamespaceCapabilityAllocExec, NamespaceCapabilityAllocLifecycle,
	NamespaceCapabilityCSIMountVolume, NamespaceCapabilityCSIWriteVolume,
	NamespaceCapabilitySubmitRecommendation, NamespaceCapabilityHostVolumeCreate,
	NamespaceCapabilityHostVolumeWrite,
}

// namespaceScaleCapabilities are what `policy = "scale"` grants.
var namespaceScaleCapabilities = []string{
	NamespaceCapabilityListScalingPolicies, NamespaceCapabilityReadScalingPolicy,
	NamespaceCapabilityReadJobScaling, NamespaceCapabilityScaleJob,
}

// expandNamespacePolicy lists the capabilities a namespace disposition
// grants.
func expandNamespacePolicy(policy string) []string {
	switch policy {
	case PolicyDeny:
		return []string{NamespaceCapabilityDeny}
	case PolicyRead:
		return namespaceReadCapabilities
	case PolicyList:
		return []string{NamespaceCapabilityListJobs}
	case PolicyScale:
		return namespaceScaleCapabilities
	case PolicyWrite:
		out := append([]string{}, namespaceReadCapabilities...)
		out = append(out, namespaceScaleCapabilities...)
		return append(out, namespaceWriteCapabilities...)
	}
	return nil
}

// expandHostVolumePolicy lists the capabilities a host_volume disposition
// grants.
func expandHostVolumePolicy(policy string) []string {
	switch policy {
	case PolicyDeny:
		return []string{HostVolumeCapabilityDeny}
	case PolicyRead:
		return []string{HostVolumeCapabilityMountReadOnly}
	case PolicyWrite:
		return []string{HostVolumeCapabilityMountReadOnly, HostVolumeCapabilityMountReadWrite}
	}
	return nil
}

// expandVariablesCapabilities is what a variables path's capabilities
// grant: read implies list (Nomad's rule); deny is kept as it is and wins
// when the sets are checked.
func expandVariablesCapabilities(caps []string) []string {
	if slices.Contains(caps, VariablesCapabilityRead) && !slices.Contains(caps, VariablesCapabilityList) {
		return append(slices.Clone(caps), VariablesCapabilityList)
	}
	return caps
}

func set(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}
