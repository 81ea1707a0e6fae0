package structs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

var timeType = reflect.TypeOf(time.Time{})

// fillValue sets every field reachable from v to deterministic non-zero
// data: pointers are allocated, slices get two elements, maps two entries,
// and free-form `any` values get nested maps and slices. Calling it twice on
// fresh values yields reflect.DeepEqual results, which lets a test rebuild
// the expected original without trusting Copy.
func fillValue(t *testing.T, v reflect.Value, depth int) {
	t.Helper()
	if depth > 40 {
		t.Fatalf("fillValue: type %s nests too deeply (cycle?)", v.Type())
	}
	if v.Type() == timeType {
		v.Set(reflect.ValueOf(time.Unix(1700000000, 42).UTC()))
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(0.5)
	case reflect.String:
		v.SetString("s")
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillValue(t, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := 0; i < 2; i++ {
			fillValue(t, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for i := 0; i < 2; i++ {
			k := reflect.New(v.Type().Key()).Elem()
			setDistinctKey(t, k, i)
			e := reflect.New(v.Type().Elem()).Elem()
			fillValue(t, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Interface:
		v.Set(reflect.ValueOf(freeFormValue()))
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if derivedCaches[v.Type().String()+"."+v.Type().Field(i).Name] {
				continue // left zero, as Copy leaves it
			}
			if !v.Type().Field(i).IsExported() {
				t.Fatalf("fillValue: %s.%s is unexported; teach the test about it",
					v.Type(), v.Type().Field(i).Name)
			}
			fillValue(t, v.Field(i), depth+1)
		}
	default:
		t.Fatalf("fillValue: unhandled kind %s (%s)", v.Kind(), v.Type())
	}
}

// derivedCaches are unexported fields that only cache what the exported
// ones say (set by a method like AllocatedResources.Seal); Copy leaves
// them out, and their own tests cover them.
var derivedCaches = map[string]bool{"structs.AllocatedResources.flat": true}

// freeFormValue is what a driver config or scaling policy value may decode
// to: maps and slices nested in each other.
func freeFormValue() any {
	return map[string]any{
		"list":   []any{"a", map[string]any{"deep": "b"}, []any{1}},
		"nested": map[string]any{"inner": []string{"x"}},
		"scalar": "c",
	}
}

func setDistinctKey(t *testing.T, k reflect.Value, i int) {
	t.Helper()
	switch k.Kind() {
	case reflect.String:
		k.SetString("k" + string(rune('0'+i)))
	case reflect.Int, reflect.Int64, reflect.Int32:
		k.SetInt(int64(i))
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		k.SetUint(uint64(i))
	default:
		t.Fatalf("setDistinctKey: unhandled key kind %s", k.Kind())
	}
}

// mutateInPlace changes every value reachable from v without replacing any
// map, slice or pointer it reaches through: if any of those is shared with
// another value, that other value changes too. It also adds a key to every
// map so a shared map shows up even when its values are scalars.
func mutateInPlace(t *testing.T, v reflect.Value) {
	t.Helper()
	if v.Type() == timeType {
		v.Set(reflect.ValueOf(time.Unix(1, 0)))
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(v.Float() + 1)
	case reflect.String:
		v.SetString(v.String() + "-mutated")
	case reflect.Pointer:
		if !v.IsNil() {
			mutateInPlace(t, v.Elem())
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			mutateInPlace(t, v.Index(i))
		}
	case reflect.Map:
		mutateMap(t, v)
	case reflect.Interface:
		mutateInterface(t, v)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			mutateInPlace(t, v.Field(i))
		}
	default:
		t.Fatalf("mutateInPlace: unhandled kind %s (%s)", v.Kind(), v.Type())
	}
}

func mutateMap(t *testing.T, m reflect.Value) {
	t.Helper()
	if m.IsNil() {
		return
	}
	keys := m.MapKeys()
	for _, k := range keys {
		// Map values are not addressable: mutate a shallow copy and store it
		// back. Anything the copy shares with the stored value is reached
		// through a reference, so sharing with the original still shows.
		e := reflect.New(m.Type().Elem()).Elem()
		e.Set(m.MapIndex(k))
		mutateInPlace(t, e)
		m.SetMapIndex(k, e)
	}
	if len(keys) > 0 {
		extra := reflect.New(m.Type().Key()).Elem()
		setDistinctKey(t, extra, 9)
		m.SetMapIndex(extra, reflect.Zero(m.Type().Elem()))
	}
}

func mutateInterface(t *testing.T, v reflect.Value) {
	t.Helper()
	if v.IsNil() {
		return
	}
	inner := v.Elem()
	switch inner.Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer:
		mutateInPlace(t, inner) // reference: changes whatever shares it
	default:
		v.Set(reflect.ValueOf("mutated"))
	}
}

// checkDeepCopy fills a T, copies it, checks the copy is equal, then mutates
// the copy everywhere and checks the original did not move.
func checkDeepCopy[T any](t *testing.T, cp func(*T) *T) {
	t.Helper()
	if got := cp(nil); got != nil {
		t.Errorf("Copy of nil %T = %v, want nil", got, got)
	}
	orig := filled[T](t)
	c := cp(orig)
	if c == orig {
		t.Fatalf("Copy returned its receiver")
	}
	if !reflect.DeepEqual(orig, c) {
		t.Fatalf("copy differs from original:\norig %+v\ncopy %+v", orig, c)
	}
	mutateInPlace(t, reflect.ValueOf(c).Elem())
	if !reflect.DeepEqual(orig, filled[T](t)) {
		t.Fatalf("mutating the copy changed the original %T: some field is shared", orig)
	}
}

func filled[T any](t *testing.T) *T {
	t.Helper()
	p := new(T)
	fillValue(t, reflect.ValueOf(p).Elem(), 0)
	return p
}

// copyCases names every type with a Copy method and how to run it. The
// coverage test below fails when a struct type is added to the package
// without an entry here.
var copyCases = map[string]func(*testing.T){
	"Job":                      func(t *testing.T) { checkDeepCopy(t, (*Job).Copy) },
	"JobVersionTag":            func(t *testing.T) { checkDeepCopy(t, (*JobVersionTag).Copy) },
	"NodePool":                 func(t *testing.T) { checkDeepCopy(t, (*NodePool).Copy) },
	"ScalingEvent":             func(t *testing.T) { checkDeepCopy(t, (*ScalingEvent).Copy) },
	"JobScalingEvents":         func(t *testing.T) { checkDeepCopy(t, (*JobScalingEvents).Copy) },
	"JobSubmission":            func(t *testing.T) { checkDeepCopy(t, (*JobSubmission).Copy) },
	"NamespacedID":             func(t *testing.T) { checkDeepCopy(t, (*NamespacedID).Copy) },
	"TaskGroup":                func(t *testing.T) { checkDeepCopy(t, (*TaskGroup).Copy) },
	"Task":                     func(t *testing.T) { checkDeepCopy(t, (*Task).Copy) },
	"Constraint":               func(t *testing.T) { checkDeepCopy(t, (*Constraint).Copy) },
	"Affinity":                 func(t *testing.T) { checkDeepCopy(t, (*Affinity).Copy) },
	"Spread":                   func(t *testing.T) { checkDeepCopy(t, (*Spread).Copy) },
	"SpreadTarget":             func(t *testing.T) { checkDeepCopy(t, (*SpreadTarget).Copy) },
	"UpdateStrategy":           func(t *testing.T) { checkDeepCopy(t, (*UpdateStrategy).Copy) },
	"MigrateStrategy":          func(t *testing.T) { checkDeepCopy(t, (*MigrateStrategy).Copy) },
	"ReschedulePolicy":         func(t *testing.T) { checkDeepCopy(t, (*ReschedulePolicy).Copy) },
	"RestartPolicy":            func(t *testing.T) { checkDeepCopy(t, (*RestartPolicy).Copy) },
	"PeriodicConfig":           func(t *testing.T) { checkDeepCopy(t, (*PeriodicConfig).Copy) },
	"ParameterizedJobConfig":   func(t *testing.T) { checkDeepCopy(t, (*ParameterizedJobConfig).Copy) },
	"ScalingPolicy":            func(t *testing.T) { checkDeepCopy(t, (*ScalingPolicy).Copy) },
	"DisconnectStrategy":       func(t *testing.T) { checkDeepCopy(t, (*DisconnectStrategy).Copy) },
	"EphemeralDisk":            func(t *testing.T) { checkDeepCopy(t, (*EphemeralDisk).Copy) },
	"Service":                  func(t *testing.T) { checkDeepCopy(t, (*Service).Copy) },
	"ServiceCheck":             func(t *testing.T) { checkDeepCopy(t, (*ServiceCheck).Copy) },
	"CheckRestart":             func(t *testing.T) { checkDeepCopy(t, (*CheckRestart).Copy) },
	"Resources":                func(t *testing.T) { checkDeepCopy(t, (*Resources).Copy) },
	"RequestedDevice":          func(t *testing.T) { checkDeepCopy(t, (*RequestedDevice).Copy) },
	"NetworkResource":          func(t *testing.T) { checkDeepCopy(t, (*NetworkResource).Copy) },
	"Port":                     func(t *testing.T) { checkDeepCopy(t, (*Port).Copy) },
	"DNSConfig":                func(t *testing.T) { checkDeepCopy(t, (*DNSConfig).Copy) },
	"CNIConfig":                func(t *testing.T) { checkDeepCopy(t, (*CNIConfig).Copy) },
	"AllocNetworkStatus":       func(t *testing.T) { checkDeepCopy(t, (*AllocNetworkStatus).Copy) },
	"LogConfig":                func(t *testing.T) { checkDeepCopy(t, (*LogConfig).Copy) },
	"TaskArtifact":             func(t *testing.T) { checkDeepCopy(t, (*TaskArtifact).Copy) },
	"Template":                 func(t *testing.T) { checkDeepCopy(t, (*Template).Copy) },
	"WorkloadIdentity":         func(t *testing.T) { checkDeepCopy(t, (*WorkloadIdentity).Copy) },
	"TaskLifecycleConfig":      func(t *testing.T) { checkDeepCopy(t, (*TaskLifecycleConfig).Copy) },
	"DispatchPayloadConfig":    func(t *testing.T) { checkDeepCopy(t, (*DispatchPayloadConfig).Copy) },
	"ComparableResources":      func(t *testing.T) { checkDeepCopy(t, (*ComparableResources).Copy) },
	"Node":                     func(t *testing.T) { checkDeepCopy(t, (*Node).Copy) },
	"NodeResources":            func(t *testing.T) { checkDeepCopy(t, (*NodeResources).Copy) },
	"NodeCPUResources":         func(t *testing.T) { checkDeepCopy(t, (*NodeCPUResources).Copy) },
	"NodeReservedResources":    func(t *testing.T) { checkDeepCopy(t, (*NodeReservedResources).Copy) },
	"DriverInfo":               func(t *testing.T) { checkDeepCopy(t, (*DriverInfo).Copy) },
	"DrainStrategy":            func(t *testing.T) { checkDeepCopy(t, (*DrainStrategy).Copy) },
	"DrainMetadata":            func(t *testing.T) { checkDeepCopy(t, (*DrainMetadata).Copy) },
	"NodeEvent":                func(t *testing.T) { checkDeepCopy(t, (*NodeEvent).Copy) },
	"Allocation":               func(t *testing.T) { checkDeepCopy(t, (*Allocation).Copy) },
	"DesiredTransition":        func(t *testing.T) { checkDeepCopy(t, (*DesiredTransition).Copy) },
	"AllocatedResources":       func(t *testing.T) { checkDeepCopy(t, (*AllocatedResources).Copy) },
	"AllocatedTaskResources":   func(t *testing.T) { checkDeepCopy(t, (*AllocatedTaskResources).Copy) },
	"AllocatedSharedResources": func(t *testing.T) { checkDeepCopy(t, (*AllocatedSharedResources).Copy) },
	"AllocatedPortMapping":     func(t *testing.T) { checkDeepCopy(t, (*AllocatedPortMapping).Copy) },
	"TaskState":                func(t *testing.T) { checkDeepCopy(t, (*TaskState).Copy) },
	"TaskEvent":                func(t *testing.T) { checkDeepCopy(t, (*TaskEvent).Copy) },
	"AllocDeploymentStatus":    func(t *testing.T) { checkDeepCopy(t, (*AllocDeploymentStatus).Copy) },
	"RescheduleTracker":        func(t *testing.T) { checkDeepCopy(t, (*RescheduleTracker).Copy) },
	"RescheduleEvent":          func(t *testing.T) { checkDeepCopy(t, (*RescheduleEvent).Copy) },
	"AllocMetric":              func(t *testing.T) { checkDeepCopy(t, (*AllocMetric).Copy) },
	"NodeScoreMeta":            func(t *testing.T) { checkDeepCopy(t, (*NodeScoreMeta).Copy) },
	"Evaluation":               func(t *testing.T) { checkDeepCopy(t, (*Evaluation).Copy) },
	"EvaluationStub":           func(t *testing.T) { checkDeepCopy(t, (*EvaluationStub).Copy) },
	"EvalTimelineEntry":        func(t *testing.T) { checkDeepCopy(t, (*EvalTimelineEntry).Copy) },
	"Deployment":               func(t *testing.T) { checkDeepCopy(t, (*Deployment).Copy) },
	"DeploymentState":          func(t *testing.T) { checkDeepCopy(t, (*DeploymentState).Copy) },
	"DeploymentStatusUpdate":   func(t *testing.T) { checkDeepCopy(t, (*DeploymentStatusUpdate).Copy) },
	"Plan":                     func(t *testing.T) { checkDeepCopy(t, (*Plan).Copy) },
	"PlanAnnotations":          func(t *testing.T) { checkDeepCopy(t, (*PlanAnnotations).Copy) },
	"DesiredUpdates":           func(t *testing.T) { checkDeepCopy(t, (*DesiredUpdates).Copy) },
	"PlanResult":               func(t *testing.T) { checkDeepCopy(t, (*PlanResult).Copy) },
	"SchedulerConfiguration":   func(t *testing.T) { checkDeepCopy(t, (*SchedulerConfiguration).Copy) },
	"AutopilotConfig":          func(t *testing.T) { checkDeepCopy(t, (*AutopilotConfig).Copy) },
	"Namespace":                func(t *testing.T) { checkDeepCopy(t, (*Namespace).Copy) },
	"PreemptionConfig":         func(t *testing.T) { checkDeepCopy(t, (*PreemptionConfig).Copy) },
	"ACLPolicy":                func(t *testing.T) { checkDeepCopy(t, (*ACLPolicy).Copy) },
	"ACLToken":                 func(t *testing.T) { checkDeepCopy(t, (*ACLToken).Copy) },
	"ACLRole":                  func(t *testing.T) { checkDeepCopy(t, (*ACLRole).Copy) },
	"ACLAuthMethod":            func(t *testing.T) { checkDeepCopy(t, (*ACLAuthMethod).Copy) },
	"ACLBindingRule":           func(t *testing.T) { checkDeepCopy(t, (*ACLBindingRule).Copy) },
	"ServiceRegistration":      func(t *testing.T) { checkDeepCopy(t, (*ServiceRegistration).Copy) },
	"VariableEncrypted":        func(t *testing.T) { checkDeepCopy(t, (*VariableEncrypted).Copy) },
	"VariableDecrypted":        func(t *testing.T) { checkDeepCopy(t, (*VariableDecrypted).Copy) },
	"RootKey":                  func(t *testing.T) { checkDeepCopy(t, (*RootKey).Copy) },
	"ClientHostVolumeConfig":   func(t *testing.T) { checkDeepCopy(t, (*ClientHostVolumeConfig).Copy) },
	"ClientHostNetworkConfig":  func(t *testing.T) { checkDeepCopy(t, (*ClientHostNetworkConfig).Copy) },
	"NodeDeviceResource":       func(t *testing.T) { checkDeepCopy(t, (*NodeDeviceResource).Copy) },
	"AllocatedDeviceResource":  func(t *testing.T) { checkDeepCopy(t, (*AllocatedDeviceResource).Copy) },
	"VolumeRequest":            func(t *testing.T) { checkDeepCopy(t, (*VolumeRequest).Copy) },
	"VolumeMount":              func(t *testing.T) { checkDeepCopy(t, (*VolumeMount).Copy) },
	"Action":                   func(t *testing.T) { checkDeepCopy(t, (*Action).Copy) },
}

// notCopied lists struct types deliberately without Copy, with the reason.
var notCopied = map[string]string{
	"NodeDevice": "flat value, copied inside NodeDeviceResource.Copy",
	// The state store's derived per-node summary: Clone copies its slice
	// and maps and shares the (immutable) allocs.
	"NodeUsage":    "state-store summary with Clone",
	"HostAddrPort": "flat map key of NodeUsage.Ports",
	// The cluster's RPC and endpoint payloads (cluster.go, worker_rpc.go).
	"ServerRaftStatsRequest":     "RPC payload",
	"ServerRaftStats":            "RPC payload",
	"ClusterMember":              "RPC payload",
	"ClusterMembersResponse":     "RPC payload",
	"ClusterJoinRequest":         "RPC payload",
	"ClusterJoinResponse":        "RPC payload",
	"ForceLeaveRequest":          "RPC payload",
	"RaftPeerRequest":            "RPC payload",
	"AutopilotConfigRequest":     "RPC payload",
	"AutopilotConfigResponse":    "RPC payload",
	"AutopilotSetConfigRequest":  "RPC payload",
	"AutopilotSetConfigResponse": "RPC payload",
	"ServerHealth":               "RPC payload",
	"OperatorHealthRequest":      "RPC payload",
	"OperatorHealthResponse":     "RPC payload",
	"ClusterMembersRequest":      "RPC payload",
	"GossipKeyringRequest":       "RPC payload",
	"GossipKeyringResponse":      "RPC payload",
	"SnapshotRestoreRequest":     "RPC payload",
	"EvalDequeueRequest":         "RPC payload",
	"EvalDequeueResponse":        "RPC payload",
	"EvalAckRequest":             "RPC payload",
	"EvalUpdateArgs":             "RPC payload",
	"PlanSubmitRequest":          "RPC payload",
	"PlanSubmitResponse":         "RPC payload",
	"PlanAcceptance":             "RPC payload",
	"AllocGroup":                 "map key of strings",
	// Raft payloads: built once by an endpoint, decoded fresh by every FSM
	// apply, never shared.
	"JobRegisterRequest":                  "raft payload",
	"JobStabilityRequest":                 "raft payload",
	"NodePoolUpsertRequest":               "raft payload",
	"NodePoolEvent":                       "event payload",
	"NodePoolDeleteRequest":               "raft payload",
	"JobVersionTagRequest":                "raft payload",
	"ScalingEventEntry":                   "raft payload",
	"JobDeregisterRequest":                "raft payload",
	"JobBatchDeregisterRequest":           "raft payload",
	"EvalUpdateRequest":                   "raft payload",
	"EvalDeleteRequest":                   "raft payload",
	"NodeRegisterRequest":                 "raft payload",
	"NodeDeregisterRequest":               "raft payload",
	"NodeUpdateStatusRequest":             "raft payload",
	"NodeUpdateDrainRequest":              "raft payload",
	"NodeUpdateEligibilityRequest":        "raft payload",
	"AllocUpdateRequest":                  "raft payload",
	"AllocUpdateDesiredTransitionRequest": "raft payload",
	"ApplyPlanResultsRequest":             "raft payload",
	"DeploymentStatusUpdateRequest":       "raft payload",
	"DeploymentPromoteRequest":            "raft payload",
	"DeploymentAllocHealthRequest":        "raft payload",
	"NodeRegisterArgs":                    "RPC payload",
	"NodeHeartbeatArgs":                   "RPC payload",
	"NodeUpdateResponse":                  "RPC payload",
	"NodeAllocsArgs":                      "RPC payload",
	"NodeAllocsResponse":                  "RPC payload",
	"NodeClientAllocsResponse":            "RPC payload",
	"AllocsGetArgs":                       "RPC payload",
	"AllocsGetResponse":                   "RPC payload",
	"PrevAllocMigrationArgs":              "RPC payload",
	"PrevAllocMigrationResponse":          "RPC payload",
	"AllocClientUpdateArgs":               "RPC payload",
	"GenericResponse":                     "RPC payload",
	"SchedulerSetConfigRequest":           "raft payload",
	"AutopilotSetConfigEntry":             "raft payload",
	"ACLPolicyUpsertRequest":              "raft payload",
	"ACLPolicyDeleteRequest":              "raft payload",
	"ACLTokenUpsertRequest":               "raft payload",
	"ACLTokenDeleteRequest":               "raft payload",
	"ACLTokenBootstrapRequest":            "raft payload",
	"ACLRoleUpsertRequest":                "raft payload",
	"ACLRoleDeleteRequest":                "raft payload",
	"ACLRolePolicyLink":                   "value inside ACLRole, copied by its Copy",
	"ACLTokenRoleLink":                    "value inside ACLToken, copied by its Copy",
	// Auth methods, binding rules, one-time tokens: payloads.
	"ACLAuthMethodConfig":           "value inside ACLAuthMethod, copied by its Copy",
	"OneTimeToken":                  "stored without pointers, copied by value",
	"ACLAuthMethodUpsertRequest":    "raft payload",
	"ACLAuthMethodDeleteRequest":    "raft payload",
	"ACLBindingRuleUpsertRequest":   "raft payload",
	"ACLBindingRuleDeleteRequest":   "raft payload",
	"OneTimeTokenUpsertRequest":     "raft payload",
	"OneTimeTokenDeleteRequest":     "raft payload",
	"OIDCAuthRequest":               "stored without pointers, copied by value",
	"OIDCAuthRequestUpsertRequest":  "raft payload",
	"OIDCAuthRequestDeleteRequest":  "raft payload",
	"ACLTokenEvent":                 "event payload",
	"ACLPolicyEvent":                "event payload",
	"ACLRoleEvent":                  "event payload",
	"ACLAuthMethodEvent":            "event payload",
	"ACLBindingRuleEvent":           "event payload",
	"ACLAuthMethodUpsertArgs":       "RPC payload",
	"ACLAuthMethodUpsertResponse":   "RPC payload",
	"ACLAuthMethodDeleteArgs":       "RPC payload",
	"ACLAuthMethodListRequest":      "RPC payload",
	"ACLAuthMethodListResponse":     "RPC payload",
	"ACLAuthMethodGetRequest":       "RPC payload",
	"ACLAuthMethodGetResponse":      "RPC payload",
	"ACLBindingRuleUpsertArgs":      "RPC payload",
	"ACLBindingRuleUpsertResponse":  "RPC payload",
	"ACLBindingRuleDeleteArgs":      "RPC payload",
	"ACLBindingRuleListRequest":     "RPC payload",
	"ACLBindingRuleListResponse":    "RPC payload",
	"ACLBindingRuleGetRequest":      "RPC payload",
	"ACLBindingRuleGetResponse":     "RPC payload",
	"ACLLoginArgs":                  "RPC payload",
	"ACLOneTimeTokenUpsertArgs":     "RPC payload",
	"ACLOneTimeTokenUpsertResponse": "RPC payload",
	"ACLOneTimeTokenExchangeArgs":   "RPC payload",
	"ACLOIDCAuthURLArgs":            "RPC payload",
	"ACLOIDCAuthURLResponse":        "RPC payload",
	"ACLOIDCCompleteAuthArgs":       "RPC payload",
	// Event stream: built once per applied entry around stored (immutable)
	// objects, then only read by subscribers.
	"Event":              "event stream, read-only",
	"Events":             "event stream, read-only",
	"JobEvent":           "event stream, read-only",
	"EvaluationEvent":    "event stream, read-only",
	"AllocationEvent":    "event stream, read-only",
	"DeploymentEvent":    "event stream, read-only",
	"NodeStreamEvent":    "event stream, read-only",
	"EventStreamRequest": "RPC payload",
	// Errors are values handed to callers, not stored state.
	"ValidationError": "error value",
	"RPCError":        "error value",
	// Native services, variables, keyring, workload identity: payloads.
	"ServiceRegistrationUpsertRequest":     "RPC or raft payload",
	"ServiceRegistrationDeleteByIDRequest": "RPC or raft payload",
	"ServiceRegistrationUpsertResponse":    "RPC or raft payload",
	"ServiceRegistrationListRequest":       "RPC or raft payload",
	"ServiceRegistrationListStub":          "RPC or raft payload",
	"ServiceRegistrationStub":              "RPC or raft payload",
	"ServiceRegistrationListResponse":      "RPC or raft payload",
	"ServiceRegistrationByNameRequest":     "RPC or raft payload",
	"ServiceRegistrationByJobRequest":      "RPC or raft payload",
	"ServiceRegistrationByAllocRequest":    "RPC or raft payload",
	"ServiceRegistrationsResponse":         "RPC or raft payload",
	"VariableApplyRequest":                 "RPC or raft payload",
	"VariablesApplyArgs":                   "RPC or raft payload",
	"VariablesApplyResponse":               "RPC or raft payload",
	"VariablesReadRequest":                 "RPC or raft payload",
	"VariablesReadResponse":                "RPC or raft payload",
	"VariablesListRequest":                 "RPC or raft payload",
	"VariablesListResponse":                "RPC or raft payload",
	"RootKeyUpsertRequest":                 "RPC or raft payload",
	"KeyringRotateArgs":                    "RPC or raft payload",
	"RootKeyStateRequest":                  "RPC or raft payload",
	"VariablesRekeyRequest":                "RPC or raft payload",
	"KeyringInstallKEKRequest":             "RPC or raft payload",
	"KeyringInstallKEKResponse":            "RPC or raft payload",
	"KeyringRotateResponse":                "RPC or raft payload",
	"KeyringDeleteArgs":                    "RPC or raft payload",
	"KeyringDeleteResponse":                "RPC or raft payload",
	"RootKeyDeleteRequest":                 "RPC or raft payload",
	"KeyringListRequest":                   "RPC or raft payload",
	"KeyringListResponse":                  "RPC or raft payload",
	"WorkloadIdentitySignRequest":          "RPC or raft payload",
	"WorkloadIdentitySignResponse":         "RPC or raft payload",
	"JWKSRequest":                          "RPC or raft payload",
	"JSONWebKey":                           "RPC or raft payload",
	"JWKSResponse":                         "RPC or raft payload",
	"WorkloadIdentityRequest":              "RPC or raft payload",
	"SignedWorkloadIdentity":               "RPC or raft payload",
	"OIDCDiscoveryRequest":                 "RPC or raft payload",
	"OIDCDiscoveryResponse":                "RPC or raft payload",
	"VariableMetadata":                     "copied by VariableMetadata.Copy (a value method)",
	"VariableLock":                         "copied inside VariableMetadata.Copy",
	"TemplateWait":                         "copied inside Template.Copy",
	"ChangeScript":                         "copied inside Template.Copy",
	"IdentityClaims":                       "decoded from a token per request",
	"VariableConflictError":                "error value",
	"ServiceRegistrationEvent":             "event stream, read-only",
}

func TestCopy_DeepAndIndependent(t *testing.T) {
	names := make([]string, 0, len(copyCases))
	for name := range copyCases {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, copyCases[name])
	}
}

// TestCopy_EveryStructTypeCovered parses the package's sources so a new
// struct type cannot be added without deciding how it is copied.
func TestCopy_EveryStructTypeCovered(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		// Endpoint requests and replies (rpc_meta.go, *_endpoint.go) are
		// built per call and never stored, so they need no Copy.
		if e.Name() == "rpc_meta.go" || strings.HasSuffix(e.Name(), "_endpoint.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			checkStructDecls(t, decl)
		}
	}
}

func checkStructDecls(t *testing.T, decl ast.Decl) {
	t.Helper()
	gen, ok := decl.(*ast.GenDecl)
	if !ok || gen.Tok != token.TYPE {
		return
	}
	for _, spec := range gen.Specs {
		ts := spec.(*ast.TypeSpec)
		if _, isStruct := ts.Type.(*ast.StructType); !isStruct || !ts.Name.IsExported() {
			continue
		}
		name := ts.Name.Name
		if _, ok := copyCases[name]; ok {
			continue
		}
		if _, ok := notCopied[name]; ok {
			continue
		}
		t.Errorf("struct type %s has no entry in copyCases (or notCopied)", name)
	}
}

func TestAllocation_CopySkipJobSharesOnlyTheJob(t *testing.T) {
	orig := filled[Allocation](t)
	c := orig.CopySkipJob()
	if c.Job != orig.Job {
		t.Fatalf("CopySkipJob must share the job pointer")
	}
	if !reflect.DeepEqual(orig, c) {
		t.Fatalf("copy differs from original")
	}
	c.Job = nil // the job is shared on purpose; everything else must not be
	mutateInPlace(t, reflect.ValueOf(c).Elem())
	want := filled[Allocation](t)
	if !reflect.DeepEqual(orig, want) {
		t.Fatalf("mutating the CopySkipJob copy changed the original")
	}
	if (*Allocation)(nil).CopySkipJob() != nil {
		t.Fatalf("CopySkipJob of nil must be nil")
	}
}

func TestAllocation_CopyDoesNotShareJob(t *testing.T) {
	orig := filled[Allocation](t)
	if c := orig.Copy(); c.Job == orig.Job {
		t.Fatalf("Copy must deep copy the job")
	}
}

func TestCopy_PreservesNilVersusEmpty(t *testing.T) {
	j := &Job{Datacenters: []string{}, Meta: nil, TaskGroups: []*TaskGroup{{Meta: map[string]string{}}}}
	c := j.Copy()
	if c.Datacenters == nil || c.Meta != nil || c.TaskGroups[0].Meta == nil {
		t.Fatalf("nil/empty not preserved: %#v", c)
	}
}

func TestCopyAny_DeepCopiesNestedFreeForm(t *testing.T) {
	type custom struct{ N int }
	orig := map[string]any{
		"ports":   []any{"http", map[string]any{"to": 8080}},
		"labels":  []map[string]any{{"a": "b"}},
		"pointer": &custom{N: 1},
		"strings": []string{"x"},
	}
	c := CopyMapAny(orig)
	c["ports"].([]any)[1].(map[string]any)["to"] = 1
	c["labels"].([]map[string]any)[0]["a"] = "changed"
	c["pointer"].(*custom).N = 2
	c["strings"].([]string)[0] = "y"

	want := map[string]any{
		"ports":   []any{"http", map[string]any{"to": 8080}},
		"labels":  []map[string]any{{"a": "b"}},
		"pointer": &custom{N: 1},
		"strings": []string{"x"},
	}
	if !reflect.DeepEqual(orig, want) {
		t.Fatalf("original changed: %#v", orig)
	}
}
