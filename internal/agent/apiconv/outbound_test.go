package apiconv

import (
	"reflect"
	"testing"

	"github.com/drover-project/drover/internal/structs"
	"github.com/hashicorp/nomad/api"
)

// Each outbound case converts a fully populated structs object and checks
// that (1) every same-named field carries the same value and (2) no field
// is left zero except those listed as api-only (structs has no source for
// them) or as deliberately not converted.
func TestOutboundConversions(t *testing.T) {
	metricOnly := []string{"NodePool", "ResourcesExhausted", "Scores"}
	cases := []struct {
		name    string
		in      any
		convert func() any
		skip    []string
	}{
		{
			name: "eval", in: fullStructsEval(),
			convert: func() any { return EvalFromStructs(fullStructsEval()) },
			skip: append([]string{"PlanAnnotations", "MissingNonNodeResources"},
				withPrefixes(metricOnly, "FailedTGAllocs.")...),
		},
		{
			name: "eval stub", in: fullStructsEval(),
			convert: func() any { return EvalStubFromStructs(fullStructsEval()) },
		},
		{
			name: "alloc", in: fullStructsAlloc(),
			convert: func() any { return AllocFromStructs(fullStructsAlloc()) },
			skip: append(append([]string{
				"Job", // covered by the job tests
				"Services", "DesiredTransition.MigrateDisablePlacement",
				"AllocatedResources.Tasks.Devices", "RescheduleTracker.LastReschedule",
			}, withPrefixes(metricOnly, "Metrics.")...), append(allocAPIOnlyFields(), legacyResourceUnfilled()...)...),
		},
		{
			name: "alloc stub", in: fullStructsAlloc(),
			convert: func() any { return AllocStubFromStructs(fullStructsAlloc(), true) },
			skip:    append([]string{"AllocatedResources.Tasks.Devices", "RescheduleTracker.LastReschedule"}, allocAPIOnlyFields()...),
		},
		{
			name: "node", in: fullStructsNode(),
			convert: func() any { return NodeFromStructs(fullStructsNode()) },
			skip: append([]string{
				"TLSEnabled", "Resources", "Reserved", "CgroupParent", "HostVolumes", "GCVolumesOnNodeGC",
				"CSIControllerPlugins", "CSINodePlugins", "NodeMaxAllocs", "NodeResources.Devices", "HostNetworks.Addresses",
			}, withPrefixes(apiOnlyNetworkFields, "NodeResources.Networks.")...),
		},
		{
			name: "node stub", in: fullStructsNode(),
			convert: func() any { return NodeStubFromStructs(fullStructsNode(), NodeStubFields{Resources: true}) },
			// Attributes holds only the OS subset; see TestOutboundRenamedFields.
			skip: append([]string{"Attributes", "NodeResources.Devices", "HostNetworks.Addresses"}, withPrefixes(apiOnlyNetworkFields, "NodeResources.Networks.")...),
		},
		{
			name: "deployment", in: fullStructsDeployment(),
			convert: func() any { return DeploymentFromStructs(fullStructsDeployment()) },
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			requireNoZero(t, tc.in)
			out := tc.convert()
			requireSameByName(t, out, tc.in, tc.skip...)
			requireNoZero(t, out, tc.skip...)
		})
	}
}

// allocAPIOnlyFields lists the api-only fields shared by allocs and stubs:
// deprecated task event details and network settings structs lacks.
func allocAPIOnlyFields() []string {
	out := withPrefixes([]string{
		"SetupError", "DriverError", "DriverMessage", "KillReason", "KillError", "StartDelay", "DownloadError",
		"ValidationError", "DiskLimit", "DiskSize", "FailedSibling", "VaultError", "TaskSignalReason", "TaskSignal", "GenericSource",
	}, "TaskStates.Events.")
	return append(out, withPrefixes(apiOnlyNetworkFields, "AllocatedResources.Shared.Networks.", "AllocatedResources.Tasks.Networks.")...)
}

// legacyResourceUnfilled are the fields of the derived legacy Resources and
// TaskResources that AllocatedResources has no source for (a task's disk is
// the group's, in Resources).
func legacyResourceUnfilled() []string {
	out := withPrefixes([]string{"Devices", "IOPS", "NUMA", "SecretsMB"}, "Resources.", "TaskResources.")
	out = append(out, "TaskResources.DiskMB")
	return append(out, withPrefixes(apiOnlyNetworkFields, "Resources.Networks.", "TaskResources.Networks.")...)
}

// Fields whose names differ between the two sides, which sameByName cannot
// pair up, are checked here.
func TestOutboundRenamedFields(t *testing.T) {
	a := fullStructsAlloc()
	out := AllocFromStructs(a)
	task := a.AllocatedResources.Tasks["server"]
	apiTask := out.AllocatedResources.Tasks["server"]
	expect(t, apiTask.Cpu.CpuShares, task.CpuShares)
	expect(t, apiTask.Memory.MemoryMB, task.MemoryMB)
	expect(t, apiTask.Memory.MemoryMaxMB, task.MemoryMaxMB)
	requireEqual(t, JobFromStructs(a.Job), out.Job)

	stub := AllocStubFromStructs(a, false)
	expect(t, stub.JobType, a.Job.Type)
	expect(t, stub.JobVersion, a.Job.Version)
	expect(t, stub.AllocatedResources, (*api.AllocatedResources)(nil))

	n := fullStructsNode()
	apiNode := NodeFromStructs(n)
	r := n.NodeResources
	requireEqual(t, api.NodeCpuResources{CpuShares: r.CPU.CpuShares, TotalCpuCores: r.CPU.TotalCpuCores, ReservableCpuCores: r.CPU.ReservableCpuCores}, apiNode.NodeResources.Cpu)
	expect(t, apiNode.NodeResources.Memory.MemoryMB, r.MemoryMB)
	expect(t, apiNode.NodeResources.Disk.DiskMB, r.DiskMB)
	requireEqual(t, &api.NodeReservedResources{
		Cpu: api.NodeReservedCpuResources{CpuShares: 100}, Memory: api.NodeReservedMemoryResources{MemoryMB: 256},
		Disk: api.NodeReservedDiskResources{DiskMB: 1024}, Networks: api.NodeReservedNetworkResources{ReservedHostPorts: "22,80"},
	}, apiNode.ReservedResources)
	expect(t, apiNode.Drain, true)

	nodeStub := NodeStubFromStructs(n, NodeStubFields{OS: true})
	expect(t, nodeStub.Address, "10.0.0.1")
	expect(t, nodeStub.Version, "1.9.0")
	expect(t, nodeStub.Drain, true)
	requireEqual(t, map[string]string{"os.name": "ubuntu", "os.version": "24.04"}, nodeStub.Attributes)
	expect(t, nodeStub.NodeResources, (*api.NodeResources)(nil))
}

// The token an eval was created under must never leave the server.
func TestEvalFromStructsOmitsLeaderACL(t *testing.T) {
	out := reflect.ValueOf(EvalFromStructs(fullStructsEval())).Elem()
	for i := range out.NumField() {
		if s, ok := out.Field(i).Interface().(string); ok && s == "secret-token" {
			t.Fatalf("LeaderACL leaked into %s", out.Type().Field(i).Name)
		}
	}
}

func TestNodeRoundTrip(t *testing.T) {
	n := fullStructsNode()
	got := NodeToStructs(NodeFromStructs(n))
	// Never sent to clients of the HTTP API, and recomputed by the server.
	n.SecretID, n.ComputedClass = "", ""
	// The fingerprinted host network addresses: api.HostNetworkInfo has no
	// field for them (clients register them over RPC).
	for _, h := range n.HostNetworks {
		h.Addresses = nil
	}
	// Node devices are not shown: api.NodeDeviceResource's attributes are
	// typed plugin values Drover does not produce.
	n.NodeResources.Devices = nil
	requireEqual(t, n, got)
}

func TestPlanAnnotationsFromStructs(t *testing.T) {
	in := &structs.PlanAnnotations{
		DesiredTGUpdates: map[string]*structs.DesiredUpdates{"web": {
			Ignore: 1, Place: 2, Migrate: 3, Stop: 4, InPlaceUpdate: 5, DestructiveUpdate: 6, Canary: 7, Preemptions: 8,
		}},
		PreemptedAllocs: []*structs.Allocation{fullStructsAlloc()},
	}
	requireNoZero(t, in)
	out := PlanAnnotationsFromStructs(in)
	requireSameByName(t, out.DesiredTGUpdates, in.DesiredTGUpdates)
	requireNoZero(t, out.DesiredTGUpdates, "Disconnect", "Reconnect", "RescheduleNow", "RescheduleLater")
	requireEqual(t, []*api.AllocationListStub{AllocStubFromStructs(in.PreemptedAllocs[0], false)}, out.PreemptedAllocs)
}

func TestSchedulerConfigRoundTrip(t *testing.T) {
	in := &structs.SchedulerConfiguration{
		SchedulerAlgorithm: "spread",
		PreemptionConfig: structs.PreemptionConfig{
			SystemSchedulerEnabled: true, SysBatchSchedulerEnabled: true, BatchSchedulerEnabled: true, ServiceSchedulerEnabled: true,
		},
		MemoryOversubscriptionEnabled: true, RejectJobRegistration: true, PauseEvalBroker: true,
		CreateIndex: 1, ModifyIndex: 2,
	}
	requireNoZero(t, in)
	out := SchedulerConfigFromStructs(in)
	requireSameByName(t, out, in)
	requireNoZero(t, out, "NodeLimitForFeasibilityChecks")
	requireEqual(t, in, SchedulerConfigToStructs(out))
}

func TestNilInputsReturnNil(t *testing.T) {
	for name, isNil := range map[string]bool{
		"JobToStructs":                     JobToStructs(nil) == nil,
		"JobFromStructs":                   JobFromStructs(nil) == nil,
		"JobListStub":                      JobListStub(nil, nil) == nil,
		"EvalFromStructs":                  EvalFromStructs(nil) == nil,
		"EvalStubFromStructs":              EvalStubFromStructs(nil) == nil,
		"AllocFromStructs":                 AllocFromStructs(nil) == nil,
		"AllocStubFromStructs":             AllocStubFromStructs(nil, true) == nil,
		"AllocatedResourcesFromStructs":    AllocatedResourcesFromStructs(nil) == nil,
		"NodeFromStructs":                  NodeFromStructs(nil) == nil,
		"NodeToStructs":                    NodeToStructs(nil) == nil,
		"NodeStubFromStructs":              NodeStubFromStructs(nil, NodeStubFields{}) == nil,
		"NodeResourcesFromStructs":         NodeResourcesFromStructs(nil) == nil,
		"NodeReservedResourcesFromStructs": NodeReservedResourcesFromStructs(nil) == nil,
		"DeploymentFromStructs":            DeploymentFromStructs(nil) == nil,
		"PlanAnnotationsFromStructs":       PlanAnnotationsFromStructs(nil) == nil,
		"SchedulerConfigFromStructs":       SchedulerConfigFromStructs(nil) == nil,
		"SchedulerConfigToStructs":         SchedulerConfigToStructs(nil) == nil,
	} {
		if !isNil {
			t.Errorf("%s(nil) is not nil", name)
		}
	}
}

// Empty objects must convert without panicking on their nil members.
func TestEmptyInputsDoNotPanic(t *testing.T) {
	JobToStructs(&api.Job{TaskGroups: []*api.TaskGroup{{Tasks: []*api.Task{{}}}}})
	JobFromStructs(&structs.Job{TaskGroups: []*structs.TaskGroup{{Tasks: []*structs.Task{{}}}}})
	EvalFromStructs(&structs.Evaluation{})
	AllocFromStructs(&structs.Allocation{})
	AllocStubFromStructs(&structs.Allocation{}, true)
	NodeFromStructs(&structs.Node{})
	NodeStubFromStructs(&structs.Node{}, NodeStubFields{Resources: true, OS: true})
	NodeToStructs(&api.Node{})
	DeploymentFromStructs(&structs.Deployment{})
	PlanAnnotationsFromStructs(&structs.PlanAnnotations{})
}
