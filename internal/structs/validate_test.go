package structs

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// testJob returns a canonicalized service job that passes validation and
// exercises most blocks, so each test case needs only one mutation.
func testJob() *Job {
	j := &Job{
		ID:          "web",
		Datacenters: []string{"dc1"},
		Constraints: []*Constraint{{LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "="}},
		Affinities:  []*Affinity{{LTarget: "${node.class}", RTarget: "large", Operand: "=", Weight: 50}},
		Spreads: []*Spread{{Attribute: "${node.datacenter}", Weight: 50, SpreadTarget: []*SpreadTarget{
			{Value: "dc1", Percent: 60}, {Value: "dc2", Percent: 40},
		}}},
		Update: UpdateStrategy{
			MaxParallel: 1, HealthCheck: UpdateHealthCheckChecks, MinHealthyTime: 10 * time.Second,
			HealthyDeadline: 5 * time.Minute, ProgressDeadline: 10 * time.Minute,
		},
		TaskGroups: []*TaskGroup{testGroup("frontend"), testGroup("backend")},
	}
	j.Canonicalize()
	return j
}

func testGroup(name string) *TaskGroup {
	return &TaskGroup{
		Name:  name,
		Count: 2,
		Networks: []*NetworkResource{{
			ReservedPorts: []Port{{Label: name + "-admin", Value: portFor(name), To: -1}},
			DynamicPorts:  []Port{{Label: name + "-http", To: 8080}},
		}},
		Tasks: []*Task{
			{Name: "server", Driver: "docker", Config: map[string]any{"image": "nginx"},
				Resources: &Resources{CPU: 500, MemoryMB: 256, MemoryMaxMB: 512}},
			{Name: "sidecar", Driver: "exec",
				Lifecycle: &TaskLifecycleConfig{Hook: TaskLifecycleHookPrestart, Sidecar: true}},
		},
	}
}

// portFor gives each test group its own static port so the two groups of
// testJob never collide.
func portFor(group string) int { return 9000 + len(group) }

func testBatchJob() *Job {
	j := testJob()
	j.Type = JobTypeBatch
	j.Update = UpdateStrategy{}
	for _, tg := range j.TaskGroups {
		tg.Update, tg.ReschedulePolicy = nil, nil
	}
	j.Canonicalize()
	return j
}

func testSystemJob() *Job {
	j := testJob()
	j.Type = JobTypeSystem
	j.Affinities, j.Spreads = nil, nil
	for _, tg := range j.TaskGroups {
		tg.Count = 1
		tg.ReschedulePolicy = nil
	}
	return j
}

func TestJobValidate_TestJobsAreValid(t *testing.T) {
	for name, j := range map[string]*Job{"service": testJob(), "batch": testBatchJob(), "system": testSystemJob()} {
		if err := j.Validate(); err != nil {
			t.Errorf("%s: base job invalid: %v", name, err)
		}
	}
}

type jobCase struct {
	name   string
	base   func() *Job // testJob when nil
	mutate func(j *Job)
	field  string // expected field path with a problem
}

func group(j *Job, i int) *TaskGroup { return j.TaskGroups[i] }
func task(j *Job, g, i int) *Task    { return j.TaskGroups[g].Tasks[i] }

var jobCases = []jobCase{
	// identity
	{name: "missing ID", mutate: func(j *Job) { j.ID = "" }, field: "ID"},
	{name: "ID with space", mutate: func(j *Job) { j.ID = "my job" }, field: "ID"},
	{name: "ID with null", mutate: func(j *Job) { j.ID = "a\x00b" }, field: "ID"},
	{name: "ID too long", mutate: func(j *Job) { j.ID = strings.Repeat("x", 129) }, field: "ID"},
	{name: "missing name", mutate: func(j *Job) { j.Name = "" }, field: "Name"},
	{name: "missing namespace", mutate: func(j *Job) { j.Namespace = "" }, field: "Namespace"},
	{name: "missing region", mutate: func(j *Job) { j.Region = "" }, field: "Region"},

	// scheduling
	{name: "bad type", mutate: func(j *Job) { j.Type = "daemon" }, field: "Type"},
	{name: "core type", mutate: func(j *Job) { j.Type = JobTypeCore }, field: "Type"},
	{name: "priority zero", mutate: func(j *Job) { j.Priority = 0 }, field: "Priority"},
	{name: "priority too high", mutate: func(j *Job) { j.Priority = 101 }, field: "Priority"},
	{name: "no datacenters", mutate: func(j *Job) { j.Datacenters = nil }, field: "Datacenters"},
	{name: "empty datacenter", mutate: func(j *Job) { j.Datacenters = []string{"dc1", ""} }, field: "Datacenters[1]"},

	// groups
	{name: "no groups", mutate: func(j *Job) { j.TaskGroups = nil }, field: "TaskGroups"},
	{name: "group without name", mutate: func(j *Job) { group(j, 0).Name = "" }, field: "TaskGroups[0].Name"},
	{name: "duplicate group", mutate: func(j *Job) { group(j, 1).Name = "frontend" }, field: "TaskGroups[1].Name"},
	{name: "negative count", mutate: func(j *Job) { group(j, 1).Count = -1 }, field: "TaskGroups[1].Count"},
	{name: "system count above one", base: testSystemJob, mutate: func(j *Job) { group(j, 0).Count = 2 }, field: "TaskGroups[0].Count"},
	{name: "sysbatch count above one", base: testSystemJob, mutate: func(j *Job) { j.Type = JobTypeSysBatch; group(j, 1).Count = 3 }, field: "TaskGroups[1].Count"},
	{name: "system affinity", base: testSystemJob, mutate: func(j *Job) { j.Affinities = testJob().Affinities }, field: "Affinities[0]"},
	{name: "system spread", base: testSystemJob, mutate: func(j *Job) { group(j, 0).Spreads = testJob().Spreads }, field: "TaskGroups[0].Spreads[0]"},
	{name: "system reschedule", base: testSystemJob, mutate: func(j *Job) { group(j, 0).ReschedulePolicy = DefaultReschedulePolicy(JobTypeService) }, field: "TaskGroups[0].ReschedulePolicy"},
	{name: "group without tasks", mutate: func(j *Job) { group(j, 0).Tasks = nil }, field: "TaskGroups[0].Tasks"},
	{name: "negative disk", mutate: func(j *Job) { group(j, 0).EphemeralDisk.SizeMB = -1 }, field: "TaskGroups[0].EphemeralDisk.SizeMB"},
	{name: "scaling max below min", mutate: func(j *Job) { group(j, 0).Scaling = &ScalingPolicy{Min: 2, Max: 1} }, field: "TaskGroups[0].Scaling.Max"},
	{name: "bad reconcile", mutate: func(j *Job) { group(j, 0).Disconnect = &DisconnectStrategy{Reconcile: "newest"} }, field: "TaskGroups[0].Disconnect.Reconcile"},

	// tasks
	{name: "task without name", mutate: func(j *Job) { task(j, 0, 1).Name = "" }, field: "TaskGroups[0].Tasks[1].Name"},
	{name: "duplicate task", mutate: func(j *Job) { task(j, 1, 1).Name = "server" }, field: "TaskGroups[1].Tasks[1].Name"},
	{name: "task name with slash", mutate: func(j *Job) { task(j, 0, 0).Name = "a/b" }, field: "TaskGroups[0].Tasks[0].Name"},
	{name: "task without driver", mutate: func(j *Job) { task(j, 0, 0).Driver = "" }, field: "TaskGroups[0].Tasks[0].Driver"},
	{name: "two leaders", mutate: func(j *Job) { task(j, 0, 0).Leader = true; task(j, 0, 1).Leader = true }, field: "TaskGroups[0].Tasks[1].Leader"},
	{name: "bad lifecycle hook", mutate: func(j *Job) { task(j, 0, 1).Lifecycle.Hook = "midstart" }, field: "TaskGroups[0].Tasks[1].Lifecycle.Hook"},
	{name: "negative kill timeout", mutate: func(j *Job) { task(j, 0, 0).KillTimeout = -time.Second }, field: "TaskGroups[0].Tasks[0].KillTimeout"},
	{name: "log max files", mutate: func(j *Job) { task(j, 0, 0).LogConfig.MaxFiles = 0 }, field: "TaskGroups[0].Tasks[0].LogConfig.MaxFiles"},
	{name: "log file size", mutate: func(j *Job) { task(j, 0, 0).LogConfig.MaxFileSizeMB = 0 }, field: "TaskGroups[0].Tasks[0].LogConfig.MaxFileSizeMB"},
	{name: "artifact without source", mutate: func(j *Job) { task(j, 0, 0).Artifacts = []*TaskArtifact{{}} }, field: "TaskGroups[0].Tasks[0].Artifacts[0].GetterSource"},
	{name: "template without dest", mutate: func(j *Job) { task(j, 0, 0).Templates = []*Template{{EmbeddedTmpl: "x"}} }, field: "TaskGroups[0].Tasks[0].Templates[0].DestPath"},
	{name: "signal template without signal", mutate: func(j *Job) {
		task(j, 0, 0).Templates = []*Template{{EmbeddedTmpl: "x", DestPath: "local/x", ChangeMode: TemplateChangeModeSignal}}
	}, field: "TaskGroups[0].Tasks[0].Templates[0].ChangeSignal"},
	{name: "named identity without aud", mutate: func(j *Job) {
		task(j, 0, 0).Identities = []*WorkloadIdentity{{Name: "vault"}}
	}, field: "TaskGroups[0].Tasks[0].Identities[0].Audience"},
	{name: "named identity called default", mutate: func(j *Job) {
		task(j, 0, 0).Identities = []*WorkloadIdentity{{Name: "default", Audience: []string{"x"}}}
	}, field: "TaskGroups[0].Tasks[0].Identities[0].Name"},
	{name: "identity name with a colon", mutate: func(j *Job) {
		task(j, 0, 0).Identities = []*WorkloadIdentity{{Name: "a:b", Audience: []string{"x"}}}
	}, field: "TaskGroups[0].Tasks[0].Identities[0].Name"},
	{name: "identity twice", mutate: func(j *Job) {
		task(j, 0, 0).Identities = []*WorkloadIdentity{{Name: "v", Audience: []string{"x"}}, {Name: "v", Audience: []string{"y"}}}
	}, field: "TaskGroups[0].Tasks[0].Identities[1].Name"},
	{name: "identity signal without signal", mutate: func(j *Job) {
		task(j, 0, 0).Identity = &WorkloadIdentity{ChangeMode: WIChangeModeSignal}
	}, field: "TaskGroups[0].Tasks[0].Identity.ChangeSignal"},
	{name: "identity bad change mode", mutate: func(j *Job) {
		task(j, 0, 0).Identities = []*WorkloadIdentity{{Name: "v", Audience: []string{"x"}, ChangeMode: "reload"}}
	}, field: "TaskGroups[0].Tasks[0].Identities[0].ChangeMode"},
	{name: "identity negative ttl", mutate: func(j *Job) {
		task(j, 0, 0).Identities = []*WorkloadIdentity{{Name: "v", Audience: []string{"x"}, TTL: -time.Second}}
	}, field: "TaskGroups[0].Tasks[0].Identities[0].TTL"},
	{name: "identity filepath without file", mutate: func(j *Job) {
		task(j, 0, 0).Identity = &WorkloadIdentity{Filepath: "local/t"}
	}, field: "TaskGroups[0].Tasks[0].Identity.Filepath"},
	{name: "template uid below -1", mutate: func(j *Job) {
		task(j, 0, 0).Templates = []*Template{{EmbeddedTmpl: "x", DestPath: "local/x", Uid: new(-2)}}
	}, field: "TaskGroups[0].Tasks[0].Templates[0].Uid"},
	{name: "max_run_duration on a service job", mutate: func(j *Job) { group(j, 0).MaxRunDuration = new(time.Hour) }, field: "TaskGroups[0].MaxRunDuration"},
	{name: "max_run_duration not positive", mutate: func(j *Job) {
		j.Type = JobTypeBatch
		j.Update = UpdateStrategy{}
		group(j, 0).MaxRunDuration = new(time.Duration(0))
	}, field: "TaskGroups[0].MaxRunDuration"},
	{name: "address_mode driver", mutate: func(j *Job) { group(j, 0).Services = []*Service{{Name: "s", AddressMode: AddressModeDriver}} }, field: "TaskGroups[0].Services[0].AddressMode"},
	{name: "address_mode unknown", mutate: func(j *Job) { group(j, 0).Services = []*Service{{Name: "s", AddressMode: "nic"}} }, field: "TaskGroups[0].Services[0].AddressMode"},
	{name: "address with address_mode host", mutate: func(j *Job) {
		group(j, 0).Services = []*Service{{Name: "s", AddressMode: AddressModeHost, Address: "10.0.0.1"}}
	}, field: "TaskGroups[0].Services[0].Address"},
	{name: "service on_update unknown", mutate: func(j *Job) { group(j, 0).Services = []*Service{{Name: "s", OnUpdate: "never"}} }, field: "TaskGroups[0].Services[0].OnUpdate"},
	{name: "check on_update unknown", mutate: func(j *Job) {
		group(j, 0).Services = []*Service{{Name: "s", Checks: []*ServiceCheck{{Type: "tcp", OnUpdate: "never"}}}}
	}, field: "TaskGroups[0].Services[0].Checks[0].OnUpdate"},
	{name: "check initial_status unknown", mutate: func(j *Job) {
		group(j, 0).Services = []*Service{{Name: "s", Checks: []*ServiceCheck{{Type: "tcp", InitialStatus: "ok"}}}}
	}, field: "TaskGroups[0].Services[0].Checks[0].InitialStatus"},
	{name: "negative failures_before_critical", mutate: func(j *Job) {
		group(j, 0).Services = []*Service{{Name: "s", Checks: []*ServiceCheck{{Type: "tcp", FailuresBeforeCritical: -1}}}}
	}, field: "TaskGroups[0].Services[0].Checks[0].FailuresBeforeCritical"},

	// resources
	{name: "cpu zero", mutate: func(j *Job) { task(j, 0, 0).Resources.CPU = 0 }, field: "TaskGroups[0].Tasks[0].Resources.CPU"},
	{name: "cpu and cores", mutate: func(j *Job) { task(j, 0, 0).Resources.Cores = 2 }, field: "TaskGroups[0].Tasks[0].Resources.Cores"},
	{name: "negative cores", mutate: func(j *Job) { task(j, 0, 0).Resources.Cores = -1 }, field: "TaskGroups[0].Tasks[0].Resources.Cores"},
	{name: "memory too small", mutate: func(j *Job) { task(j, 0, 1).Resources.MemoryMB = 9 }, field: "TaskGroups[0].Tasks[1].Resources.MemoryMB"},
	{name: "memory max below memory", mutate: func(j *Job) { task(j, 0, 0).Resources.MemoryMaxMB = 100 }, field: "TaskGroups[0].Tasks[0].Resources.MemoryMaxMB"},
	{name: "device without name", mutate: func(j *Job) { task(j, 0, 0).Resources.Devices = []*RequestedDevice{{Count: 1}} }, field: "TaskGroups[0].Tasks[0].Resources.Devices[0].Name"},

	// constraints
	{name: "unknown operand", mutate: func(j *Job) { j.Constraints[0].Operand = "~=" }, field: "Constraints[0].Operand"},
	{name: "bad regexp", mutate: func(j *Job) {
		j.Constraints[0] = &Constraint{LTarget: "${node.name}", Operand: "regexp", RTarget: "(["}
	}, field: "Constraints[0].RTarget"},
	{name: "empty version", mutate: func(j *Job) { j.Constraints[0] = &Constraint{LTarget: "${attr.os.version}", Operand: "version"} }, field: "Constraints[0].RTarget"},
	{name: "empty semver", mutate: func(j *Job) {
		group(j, 0).Constraints = []*Constraint{{LTarget: "${attr.os.version}", Operand: "semver", RTarget: " "}}
	}, field: "TaskGroups[0].Constraints[0].RTarget"},
	{name: "distinct_property without ltarget", mutate: func(j *Job) { j.Constraints[0] = &Constraint{Operand: "distinct_property"} }, field: "Constraints[0].LTarget"},
	{name: "distinct_property bad limit", mutate: func(j *Job) {
		j.Constraints[0] = &Constraint{LTarget: "${meta.rack}", Operand: "distinct_property", RTarget: "zero"}
	}, field: "Constraints[0].RTarget"},
	{name: "set_contains without rtarget", mutate: func(j *Job) {
		task(j, 0, 0).Constraints = []*Constraint{{LTarget: "${attr.x}", Operand: "set_contains_any"}}
	}, field: "TaskGroups[0].Tasks[0].Constraints[0].RTarget"},
	{name: "comparison without ltarget", mutate: func(j *Job) { j.Constraints[0].LTarget = "" }, field: "Constraints[0].LTarget"},

	// affinities and spreads
	{name: "affinity weight too high", mutate: func(j *Job) { j.Affinities[0].Weight = 101 }, field: "Affinities[0].Weight"},
	{name: "affinity weight too low", mutate: func(j *Job) { j.Affinities[0].Weight = -101 }, field: "Affinities[0].Weight"},
	{name: "affinity weight zero", mutate: func(j *Job) { j.Affinities[0].Weight = 0 }, field: "Affinities[0].Weight"},
	{name: "affinity distinct_hosts", mutate: func(j *Job) { j.Affinities[0].Operand = "distinct_hosts" }, field: "Affinities[0].Operand"},
	{name: "spread weight negative", mutate: func(j *Job) { j.Spreads[0].Weight = -1 }, field: "Spreads[0].Weight"},
	{name: "spread weight too high", mutate: func(j *Job) { j.Spreads[0].Weight = 101 }, field: "Spreads[0].Weight"},
	{name: "spread without attribute", mutate: func(j *Job) { j.Spreads[0].Attribute = "" }, field: "Spreads[0].Attribute"},
	{name: "spread targets over 100", mutate: func(j *Job) { j.Spreads[0].SpreadTarget[1].Percent = 41 }, field: "Spreads[0].SpreadTarget"},
	{name: "spread duplicate target", mutate: func(j *Job) { j.Spreads[0].SpreadTarget[1].Value = "dc1" }, field: "Spreads[0].SpreadTarget[1].Value"},

	// update
	{name: "update negative max parallel", mutate: func(j *Job) { group(j, 0).Update.MaxParallel = -1 }, field: "TaskGroups[0].Update.MaxParallel"},
	{name: "update negative canary", mutate: func(j *Job) { group(j, 0).Update.Canary = -1 }, field: "TaskGroups[0].Update.Canary"},
	{name: "update min healthy after deadline", mutate: func(j *Job) { group(j, 1).Update.MinHealthyTime = 6 * time.Minute }, field: "TaskGroups[1].Update.MinHealthyTime"},
	{name: "update healthy after progress", mutate: func(j *Job) { group(j, 0).Update.HealthyDeadline = 11 * time.Minute }, field: "TaskGroups[0].Update.HealthyDeadline"},
	{name: "update bad health check", mutate: func(j *Job) { group(j, 0).Update.HealthCheck = "pings" }, field: "TaskGroups[0].Update.HealthCheck"},
	{name: "job update bad health check", mutate: func(j *Job) { j.Update.HealthCheck = "pings" }, field: "Update.HealthCheck"},
	{name: "migrate bad health check", mutate: func(j *Job) { group(j, 0).Migrate = &MigrateStrategy{HealthCheck: UpdateHealthCheckManual} }, field: "TaskGroups[0].Migrate.HealthCheck"},

	// reschedule
	{name: "reschedule bad function", mutate: func(j *Job) { group(j, 0).ReschedulePolicy.DelayFunction = "linear" }, field: "TaskGroups[0].ReschedulePolicy.DelayFunction"},
	{name: "reschedule short delay", mutate: func(j *Job) { group(j, 0).ReschedulePolicy.Delay = time.Second }, field: "TaskGroups[0].ReschedulePolicy.Delay"},
	{name: "reschedule max below delay", mutate: func(j *Job) { group(j, 0).ReschedulePolicy.MaxDelay = 10 * time.Second }, field: "TaskGroups[0].ReschedulePolicy.MaxDelay"},
	{name: "reschedule limited without interval", mutate: func(j *Job) {
		group(j, 0).ReschedulePolicy = &ReschedulePolicy{Attempts: 3, Delay: 5 * time.Second, DelayFunction: RescheduleDelayConstant}
	}, field: "TaskGroups[0].ReschedulePolicy.Interval"},
	{name: "job reschedule short delay", mutate: func(j *Job) { j.Reschedule = &ReschedulePolicy{Unlimited: true, Delay: time.Second} }, field: "Reschedule.Delay"},

	// restart
	{name: "restart bad mode", mutate: func(j *Job) { group(j, 0).RestartPolicy.Mode = "retry" }, field: "TaskGroups[0].RestartPolicy.Mode"},
	{name: "restart negative attempts", mutate: func(j *Job) { task(j, 0, 0).RestartPolicy.Attempts = -1 }, field: "TaskGroups[0].Tasks[0].RestartPolicy.Attempts"},
	{name: "restart negative delay", mutate: func(j *Job) { group(j, 1).RestartPolicy.Delay = -time.Second }, field: "TaskGroups[1].RestartPolicy.Delay"},
	{name: "restart interval below delay", mutate: func(j *Job) { group(j, 0).RestartPolicy.Interval = time.Second }, field: "TaskGroups[0].RestartPolicy.Interval"},

	// periodic and parameterized
	{name: "periodic service", mutate: func(j *Job) { j.Periodic = &PeriodicConfig{Enabled: true, Specs: []string{"* * * * *"}} }, field: "Periodic"},
	{name: "periodic without specs", base: testBatchJob, mutate: func(j *Job) { j.Periodic = &PeriodicConfig{Enabled: true} }, field: "Periodic.Specs"},
	{name: "periodic bad spec type", base: testBatchJob, mutate: func(j *Job) {
		j.Periodic = &PeriodicConfig{Enabled: true, Specs: []string{"@daily"}, SpecType: "interval"}
	}, field: "Periodic.SpecType"},
	{name: "parameterized bad payload", base: testBatchJob, mutate: func(j *Job) { j.ParameterizedJob = &ParameterizedJobConfig{Payload: "maybe"} }, field: "ParameterizedJob.Payload"},
	{name: "parameterized service", mutate: func(j *Job) { j.ParameterizedJob = &ParameterizedJobConfig{} }, field: "ParameterizedJob"},
	{name: "parameterized and periodic", base: testBatchJob, mutate: func(j *Job) {
		j.ParameterizedJob = &ParameterizedJobConfig{}
		j.Periodic = &PeriodicConfig{Enabled: true, Specs: []string{"@daily"}, SpecType: PeriodicSpecCron}
	}, field: "ParameterizedJob"},
	{name: "parameterized overlapping meta", base: testBatchJob, mutate: func(j *Job) {
		j.ParameterizedJob = &ParameterizedJobConfig{MetaRequired: []string{"a"}, MetaOptional: []string{"b", "a"}}
	}, field: "ParameterizedJob.MetaOptional[1]"},

	// ports
	{name: "duplicate port label in group", mutate: func(j *Job) {
		group(j, 0).Networks[0].DynamicPorts[0].Label = "frontend-admin"
	}, field: "TaskGroups[0].Networks[0].DynamicPorts[0].Label"},
	{name: "duplicate port label across task", mutate: func(j *Job) {
		task(j, 1, 0).Resources.Networks = []*NetworkResource{{DynamicPorts: []Port{{Label: "backend-http"}}}}
	}, field: "TaskGroups[1].Tasks[0].Resources.Networks[0].DynamicPorts[0].Label"},
	{name: "unknown network mode", mutate: func(j *Job) { group(j, 0).Networks[0].Mode = "overlay" }, field: "TaskGroups[0].Networks[0].Mode"},
	{name: "cni mode without a network name", mutate: func(j *Job) { group(j, 0).Networks[0].Mode = "cni/" }, field: "TaskGroups[0].Networks[0].Mode"},
	{name: "docker task setting its hostname in a bridge group", mutate: func(j *Job) {
		group(j, 0).Networks[0].Mode = "bridge"
		group(j, 0).Tasks[0].Driver = "docker"
		group(j, 0).Tasks[0].Config = map[string]any{"image": "x", "hostname": "h"}
	}, field: "TaskGroups[0].Tasks[0].Config.hostname"},
	{name: "docker task with port_map in a cni group", mutate: func(j *Job) {
		group(j, 0).Networks[0].Mode = "cni/mynet"
		group(j, 0).Tasks[0].Driver = "docker"
		group(j, 0).Tasks[0].Config = map[string]any{"image": "x", "port_map": map[string]any{"http": 80}}
	}, field: "TaskGroups[0].Tasks[0].Config.port_map"},
	{name: "port label missing", mutate: func(j *Job) { group(j, 0).Networks[0].DynamicPorts[0].Label = "" }, field: "TaskGroups[0].Networks[0].DynamicPorts[0].Label"},
	{name: "static port zero", mutate: func(j *Job) { group(j, 0).Networks[0].ReservedPorts[0].Value = 0 }, field: "TaskGroups[0].Networks[0].ReservedPorts[0].Value"},
	{name: "static port too high", mutate: func(j *Job) { group(j, 0).Networks[0].ReservedPorts[0].Value = 65536 }, field: "TaskGroups[0].Networks[0].ReservedPorts[0].Value"},
	{name: "static port reused", mutate: func(j *Job) {
		group(j, 0).Networks[0].ReservedPorts = append(group(j, 0).Networks[0].ReservedPorts, Port{Label: "other", Value: portFor("frontend")})
	}, field: "TaskGroups[0].Networks[0].ReservedPorts[1].Value"},
	{name: "dynamic port with value", mutate: func(j *Job) { group(j, 1).Networks[0].DynamicPorts[0].Value = 8080 }, field: "TaskGroups[1].Networks[0].DynamicPorts[0].Value"},
	{name: "port to too low", mutate: func(j *Job) { group(j, 0).Networks[0].DynamicPorts[0].To = -2 }, field: "TaskGroups[0].Networks[0].DynamicPorts[0].To"},
	{name: "port to too high", mutate: func(j *Job) { group(j, 0).Networks[0].ReservedPorts[0].To = 70000 }, field: "TaskGroups[0].Networks[0].ReservedPorts[0].To"},
}

func TestJobValidate_EachRule(t *testing.T) {
	for _, tc := range jobCases {
		t.Run(tc.name, func(t *testing.T) {
			base := tc.base
			if base == nil {
				base = testJob
			}
			j := base()
			tc.mutate(j)
			verrs := validationErrors(t, j.Validate())
			// Exactly one problem: each case breaks one rule of a valid job.
			if len(verrs) != 1 || verrs[0].Field != tc.field {
				t.Fatalf("want one problem at %q, got: %v", tc.field, verrs)
			}
		})
	}
}

func validationErrors(t *testing.T, err error) ValidationErrors {
	t.Helper()
	if err == nil {
		t.Fatalf("want validation errors, got nil")
	}
	var verrs ValidationErrors
	if !errors.As(err, &verrs) {
		t.Fatalf("want ValidationErrors, got %T: %v", err, err)
	}
	return verrs
}

func TestJobValidate_ReportsEveryProblem(t *testing.T) {
	j := testJob()
	j.Priority = 500
	task(j, 1, 0).Driver = ""
	group(j, 0).Networks[0].DynamicPorts[0].Value = 1

	verrs := validationErrors(t, j.Validate())
	want := []string{"Priority", "TaskGroups[0].Networks[0].DynamicPorts[0].Value", "TaskGroups[1].Tasks[0].Driver"}
	if len(verrs) != len(want) {
		t.Fatalf("want %d problems, got %d: %v", len(want), len(verrs), verrs)
	}
	for _, f := range want {
		if !verrs.HasField(f) {
			t.Errorf("missing problem at %q in %v", f, verrs)
		}
	}
}

func TestJobValidate_AllowedEdgeCases(t *testing.T) {
	cases := map[string]func(j *Job){
		"count zero":                func(j *Job) { group(j, 0).Count = 0 },
		"cores without cpu":         func(j *Job) { task(j, 0, 0).Resources.CPU = 0; task(j, 0, 0).Resources.Cores = 2 },
		"memory max zero":           func(j *Job) { task(j, 0, 0).Resources.MemoryMaxMB = 0 },
		"distinct_hosts no targets": func(j *Job) { j.Constraints[0] = &Constraint{Operand: ConstraintDistinctHosts} },
		"unlimited with attempts": func(j *Job) {
			group(j, 0).ReschedulePolicy = &ReschedulePolicy{Attempts: 2, Unlimited: true, Delay: 5 * time.Second, DelayFunction: RescheduleDelayConstant}
		},
		"negative affinity":     func(j *Job) { j.Affinities[0].Weight = -100 },
		"port to -1":            func(j *Job) { group(j, 0).Networks[0].DynamicPorts[0].To = -1 },
		"spread weight zero":    func(j *Job) { j.Spreads[0].Weight = 0 },
		"disabled periodic":     func(j *Job) { j.Periodic = &PeriodicConfig{} },
		"no progress deadline":  func(j *Job) { group(j, 0).Update.ProgressDeadline = 0 },
		"batch ignores updates": func(j *Job) { j.Type = JobTypeBatch; group(j, 0).Update.HealthCheck = "pings" },
		"docker task in a bridge group": func(j *Job) {
			group(j, 0).Networks[0].Mode = "bridge"
			group(j, 0).Tasks[0].Driver = "docker"
			group(j, 0).Tasks[0].Config = map[string]any{"image": "x", "ports": []any{"http"}}
		},
		"docker hostname on the host network": func(j *Job) {
			group(j, 0).Tasks[0].Driver = "docker"
			group(j, 0).Tasks[0].Config = map[string]any{"image": "x", "hostname": "h", "port_map": map[string]any{"http": 80}}
		},
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			j := testJob()
			mutate(j)
			if err := j.Validate(); err != nil {
				t.Fatalf("want valid, got %v", err)
			}
		})
	}
}

func TestJobCanonicalize_AppliesAPIDefaults(t *testing.T) {
	j := &Job{
		ID:          "x",
		Constraints: []*Constraint{{LTarget: "a", RTarget: "b"}},
		Affinities:  []*Affinity{{LTarget: "a", RTarget: "b", Weight: 20}},
		Spreads:     []*Spread{{Attribute: "a"}},
		Type:        JobTypeBatch,
		Periodic:    &PeriodicConfig{Enabled: true, Specs: []string{"@daily"}},
		TaskGroups: []*TaskGroup{{
			Name: "g", RestartPolicy: &RestartPolicy{Attempts: 1, Interval: time.Minute},
			Tasks: []*Task{{Name: "t", Driver: "exec", Constraints: []*Constraint{{LTarget: "a", RTarget: "b"}}}},
		}},
	}
	j.Canonicalize()
	if err := j.Validate(); err != nil {
		t.Fatalf("canonicalized job invalid: %v", err)
	}
	switch {
	case j.Constraints[0].Operand != ConstraintEqual, j.Affinities[0].Operand != ConstraintEqual:
		t.Errorf("operator not defaulted")
	case j.Spreads[0].Weight != DefaultSpreadWeight:
		t.Errorf("spread weight not defaulted")
	case j.Periodic.SpecType != PeriodicSpecCron:
		t.Errorf("spec type not defaulted")
	case task(j, 0, 0).RestartPolicy.Mode != RestartPolicyModeFail:
		t.Errorf("restart mode not defaulted")
	case task(j, 0, 0).Constraints[0].Operand != ConstraintEqual:
		t.Errorf("task operator not defaulted")
	}
}

func TestValidationErrors_Error(t *testing.T) {
	err := ValidationErrors{{Field: "ID", Message: "is required"}, {Field: "Type", Message: "bad"}}
	if got, want := err.Error(), "ID: is required; Type: bad"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
}

func TestValidate_NilWhenValidIsUntypedNil(t *testing.T) {
	// A typed nil inside an error interface would make err != nil true.
	if err := testJob().Validate(); err != nil {
		t.Fatalf("want untyped nil, got %#v", err)
	}
}

func testNode() *Node {
	return &Node{ID: "5f0c1b7e-9a3d-4c2b-8e6f-0123456789ab", Datacenter: "dc1", Name: "n1", Status: NodeStatusReady}
}

func TestNodeValidate(t *testing.T) {
	if err := testNode().Validate(); err != nil {
		t.Fatalf("base node invalid: %v", err)
	}
	cases := []struct {
		name   string
		mutate func(n *Node)
		field  string
	}{
		{"missing id", func(n *Node) { n.ID = "" }, "ID"},
		{"id not uuid", func(n *Node) { n.ID = "node-1" }, "ID"},
		{"missing datacenter", func(n *Node) { n.Datacenter = "" }, "Datacenter"},
		{"missing name", func(n *Node) { n.Name = "" }, "Name"},
		{"bad status", func(n *Node) { n.Status = "up" }, "Status"},
		{"bad eligibility", func(n *Node) { n.SchedulingEligibility = "maybe" }, "SchedulingEligibility"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := testNode()
			tc.mutate(n)
			if verrs := validationErrors(t, n.Validate()); !verrs.HasField(tc.field) {
				t.Fatalf("want a problem at %q, got %v", tc.field, verrs)
			}
		})
	}
	n := testNode()
	n.Status = ""
	if err := n.Validate(); err != nil {
		t.Fatalf("unset status should be valid before Canonicalize: %v", err)
	}
}

func testEval() *Evaluation {
	return &Evaluation{ID: "e1", Namespace: "default", Type: JobTypeService, TriggeredBy: EvalTriggerJobRegister,
		JobID: "web", Status: EvalStatusPending}
}

func TestEvaluationValidate(t *testing.T) {
	if err := testEval().Validate(); err != nil {
		t.Fatalf("base eval invalid: %v", err)
	}
	core := testEval()
	core.Type, core.JobID, core.TriggeredBy = JobTypeCore, "", EvalTriggerScheduled
	if err := core.Validate(); err != nil {
		t.Fatalf("core eval without job ID should be valid: %v", err)
	}
	cases := []struct {
		name   string
		mutate func(e *Evaluation)
		field  string
	}{
		{"missing id", func(e *Evaluation) { e.ID = "" }, "ID"},
		{"missing namespace", func(e *Evaluation) { e.Namespace = "" }, "Namespace"},
		{"missing type", func(e *Evaluation) { e.Type = "" }, "Type"},
		{"bad type", func(e *Evaluation) { e.Type = "daemon" }, "Type"},
		{"missing trigger", func(e *Evaluation) { e.TriggeredBy = "" }, "TriggeredBy"},
		{"unknown trigger", func(e *Evaluation) { e.TriggeredBy = "job-update" }, "TriggeredBy"},
		{"quasi status", func(e *Evaluation) { e.Status = EvalQuasiStatusDelayed }, "Status"},
		{"missing status", func(e *Evaluation) { e.Status = "" }, "Status"},
		{"missing job id", func(e *Evaluation) { e.JobID = "" }, "JobID"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := testEval()
			tc.mutate(e)
			if verrs := validationErrors(t, e.Validate()); !verrs.HasField(tc.field) {
				t.Fatalf("want a problem at %q, got %v", tc.field, verrs)
			}
		})
	}
}

func TestSchedulerConfigurationValidate(t *testing.T) {
	for _, alg := range []string{"", SchedulerAlgorithmBinpack, SchedulerAlgorithmSpread} {
		if err := (&SchedulerConfiguration{SchedulerAlgorithm: alg}).Validate(); err != nil {
			t.Errorf("%q: %v", alg, err)
		}
	}
	verrs := validationErrors(t, (&SchedulerConfiguration{SchedulerAlgorithm: "random"}).Validate())
	if !verrs.HasField("SchedulerAlgorithm") {
		t.Fatalf("want SchedulerAlgorithm problem, got %v", verrs)
	}
}

func TestValidateServiceName_RFC1123AfterInterpolation(t *testing.T) {
	cases := []struct {
		name string
		ok   bool
	}{
		{"web", true},
		{"web-api-2", true},
		{"a", true},
		{"${NOMAD_JOB_NAME}-${NOMAD_GROUP_NAME}", true},
		{"${JOB}", true},
		{"${NOMAD_META_long_name_with_underscores}-web", true},
		{"", true}, // the api fills Nomad's default
		{strings.Repeat("a", 63), true},
		{strings.Repeat("a", 64), false},
		{"web_api", false},
		{"-web", false},
		{"web-", false},
		{"${JOB}-", false},
		{"web.api", false},
		{"web api", false},
		{"web\x00", false},
	}
	for _, tc := range cases {
		v := newValidator()
		validateServiceName(v, tc.name)
		if got := v.err() == nil; got != tc.ok {
			t.Errorf("%q: valid = %v, want %v (%v)", tc.name, got, tc.ok, v.err())
		}
	}
}
