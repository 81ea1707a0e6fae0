package apiconv

//lint:file-ignore SA1019 job files and API clients still send Nomad's deprecated disconnect fields; we accept them

import (
	"time"

	"github.com/drover-project/drover/internal/structs"
	"github.com/hashicorp/nomad/api"
)

// Fixtures with every field set to a distinct non-zero value, so that a
// field that is dropped or crossed with another shows up in the tests.

var t0 = time.Date(2025, 3, 4, 5, 6, 7, 8, time.UTC)

func fullStructsNetwork(seed int) *structs.NetworkResource {
	return &structs.NetworkResource{
		Mode: "bridge", Device: "eth0", CIDR: "10.0.0.0/8", IP: "10.0.0.1", MBits: 10 + seed,
		ReservedPorts: []structs.Port{{Label: "ssh", Value: 22, To: 2222, HostNetwork: "public"}},
		DynamicPorts:  []structs.Port{{Label: "http", Value: 20000 + seed, To: 8080, HostNetwork: "private"}},
		Hostname:      "web", DNS: &structs.DNSConfig{Servers: []string{"1.1.1.1"}, Searches: []string{"svc"}, Options: []string{"ndots:2"}},
		CNI: &structs.CNIConfig{Args: map[string]string{"K": "v"}},
	}
}

func fullStructsServices() []*structs.Service {
	return []*structs.Service{{
		Name: "web", PortLabel: "http", Provider: "nomad", Address: "10.1.1.1", Tags: []string{"a", "b"},
		Checks: []*structs.ServiceCheck{{Name: "alive", Type: "http", Path: "/health", Protocol: "https", PortLabel: "admin", Method: "HEAD",
			Interval: 10 * time.Second, Timeout: 2 * time.Second, Command: "/bin/check", Args: []string{"-v"}, GRPCService: "g",
			GRPCUseTLS: true, TLSSkipVerify: true, TaskName: "web", CheckRestart: &structs.CheckRestart{Limit: 3, Grace: time.Second, IgnoreWarnings: true},
			Header: map[string][]string{"X-A": {"1", "2"}}, Body: "{}", TLSServerName: "web.local",
			SuccessBeforePassing: 2, FailuresBeforeWarning: 3, FailuresBeforeCritical: 4, OnUpdate: "ignore_warnings", InitialStatus: "warning"}},
		CanaryTags: []string{"canary"}, CanaryMeta: map[string]string{"c": "1"}, Meta: map[string]string{"m": "1"},
		TaggedAddresses: map[string]string{"lan": "10.0.0.1"}, AddressMode: "host", EnableTagOverride: true, OnUpdate: "ignore",
	}}
}

func fullStructsTask() *structs.Task {
	return &structs.Task{
		Name: "server", Driver: "docker", User: "nobody",
		Config: map[string]any{
			"image": "nginx", "ports": []any{"http"}, "args": []string{"-v"}, "count": int64(3),
			"nested": map[string]any{"list": []map[string]any{{"k": "v"}}},
		},
		Env:         map[string]string{"A": "1"},
		Constraints: []*structs.Constraint{{LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "="}},
		Affinities:  []*structs.Affinity{{LTarget: "${node.class}", RTarget: "big", Operand: "=", Weight: -20}},
		Resources: &structs.Resources{
			CPU: 500, Cores: 2, MemoryMB: 256, MemoryMaxMB: 512, DiskMB: 150,
			Networks: []*structs.NetworkResource{fullStructsNetwork(1)},
			Devices: []*structs.RequestedDevice{{Name: "nvidia/gpu", Count: 2,
				Constraints: []*structs.Constraint{{LTarget: "${device.attr.memory}", RTarget: "8 GiB", Operand: ">="}},
				Affinities:  []*structs.Affinity{{LTarget: "${device.model}", RTarget: "t4", Operand: "=", Weight: 50}}}},
		},
		RestartPolicy: &structs.RestartPolicy{Attempts: 4, Interval: time.Hour, Delay: time.Minute, Mode: "delay", RenderTemplates: true},
		Lifecycle:     &structs.TaskLifecycleConfig{Hook: "prestart", Sidecar: true},
		Meta:          map[string]string{"task": "meta"},
		KillTimeout:   7 * time.Second,
		KillSignal:    "SIGINT",
		LogConfig:     &structs.LogConfig{MaxFiles: 3, MaxFileSizeMB: 4, Disabled: true},
		Artifacts:     []*structs.TaskArtifact{{GetterSource: "https://x/y.tgz", GetterOptions: map[string]string{"checksum": "md5:1"}, GetterMode: "dir", RelativeDest: "local/y"}},
		Templates: []*structs.Template{{SourcePath: "in.tpl", DestPath: "out.txt", EmbeddedTmpl: "{{.}}", ChangeMode: "signal", ChangeSignal: "SIGHUP", Perms: "0600", Envvars: true,
			Splay: time.Second, Wait: &structs.TemplateWait{Min: time.Second, Max: time.Minute}, ErrMissingKey: true,
			ChangeScript: &structs.ChangeScript{Command: "/bin/reload", Args: []string{"-q"}, Timeout: time.Second, FailOnError: true},
			LeftDelim:    "[[", RightDelim: "]]", Once: true, Uid: new(1000), Gid: new(1001)}},
		Services:        fullStructsServices(),
		Leader:          true,
		ShutdownDelay:   3 * time.Second,
		DispatchPayload: &structs.DispatchPayloadConfig{File: "input.json"},
		Identity: &structs.WorkloadIdentity{Env: true, File: true, Name: "default", Audience: []string{"nomadproject.io"},
			ChangeMode: "signal", ChangeSignal: "SIGHUP", Filepath: "local/t.jwt", TTL: time.Hour},
		Identities: []*structs.WorkloadIdentity{{Name: "vault_default", Audience: []string{"vault.io"}, Env: true, File: true,
			ChangeMode: "signal", ChangeSignal: "SIGUSR1", Filepath: "secrets/v.jwt", TTL: time.Minute}},
		VolumeMounts: []*structs.VolumeMount{{Volume: "data", Destination: "/srv", ReadOnly: true, PropagationMode: "private"}},
		Actions:      []*structs.Action{{Name: "hello", Command: "/bin/echo", Args: []string{"hi"}}},
	}
}

func fullStructsGroup() *structs.TaskGroup {
	return &structs.TaskGroup{
		Name:  "web",
		Count: 3,
		Update: &structs.UpdateStrategy{
			Stagger: 31 * time.Second, MaxParallel: 2, HealthCheck: "task_states", MinHealthyTime: 11 * time.Second,
			HealthyDeadline: 6 * time.Minute, ProgressDeadline: 11 * time.Minute, Canary: 1, AutoRevert: true, AutoPromote: true,
		},
		Migrate:          &structs.MigrateStrategy{MaxParallel: 3, HealthCheck: "checks", MinHealthyTime: 12 * time.Second, HealthyDeadline: 7 * time.Minute},
		Constraints:      []*structs.Constraint{{LTarget: "${meta.rack}", RTarget: "r1", Operand: "!="}},
		Affinities:       []*structs.Affinity{{LTarget: "${meta.zone}", RTarget: "z1", Operand: "=", Weight: 40}},
		Spreads:          []*structs.Spread{{Attribute: "${node.datacenter}", Weight: 30, SpreadTarget: []*structs.SpreadTarget{{Value: "dc1", Percent: 70}}}},
		Scaling:          &structs.ScalingPolicy{Min: 1, Max: 10, Enabled: true, Policy: map[string]any{"cooldown": "1m"}},
		RestartPolicy:    &structs.RestartPolicy{Attempts: 5, Interval: 2 * time.Hour, Delay: 2 * time.Minute, Mode: "fail", RenderTemplates: true},
		ReschedulePolicy: &structs.ReschedulePolicy{Attempts: 6, Interval: 3 * time.Hour, Delay: 40 * time.Second, DelayFunction: "fibonacci", MaxDelay: 2 * time.Hour, Unlimited: true},
		Disconnect:       &structs.DisconnectStrategy{LostAfter: time.Hour, StopOnClientAfter: new(30 * time.Minute), Replace: new(true), Reconcile: "keep_original"},
		EphemeralDisk:    &structs.EphemeralDisk{Sticky: true, SizeMB: 1000, Migrate: true},
		Networks:         []*structs.NetworkResource{fullStructsNetwork(2)},
		Services:         fullStructsServices(),
		Volumes:          map[string]*structs.VolumeRequest{"data": {Name: "data", Type: "host", Source: "shared", ReadOnly: true, PerAlloc: true}},
		Tasks:            []*structs.Task{fullStructsTask()},
		Meta:             map[string]string{"group": "meta"},

		StopAfterClientDisconnect: new(90 * time.Second),
		MaxClientDisconnect:       new(2 * time.Hour),
		ShutdownDelay:             new(7 * time.Second),
		MaxRunDuration:            new(time.Hour),
		PreventRescheduleOnLost:   true,
	}
}

func fullStructsJob() *structs.Job {
	return &structs.Job{
		Region: "eu", Namespace: "prod", ID: "web-1", ParentID: "web", Name: "web-name", Type: "service",
		Priority: 70, AllAtOnce: true, Datacenters: []string{"dc1", "dc2"}, NodePool: "gpu",
		Constraints: []*structs.Constraint{{LTarget: "${attr.os}", RTarget: "linux", Operand: "="}},
		Affinities:  []*structs.Affinity{{LTarget: "${node.class}", RTarget: "c", Operand: "=", Weight: 60}},
		Spreads:     []*structs.Spread{{Attribute: "${meta.rack}", Weight: 50, SpreadTarget: []*structs.SpreadTarget{{Value: "r1", Percent: 40}, {Value: "r2", Percent: 60}}}},
		TaskGroups:  []*structs.TaskGroup{fullStructsGroup()},
		Update: structs.UpdateStrategy{
			Stagger: 30 * time.Second, MaxParallel: 1, HealthCheck: "checks", MinHealthyTime: 10 * time.Second,
			HealthyDeadline: 5 * time.Minute, ProgressDeadline: 10 * time.Minute, Canary: 2, AutoRevert: true, AutoPromote: true,
		},
		Periodic:          &structs.PeriodicConfig{Enabled: true, Specs: []string{"*/5 * * * *", "0 1 * * *"}, SpecType: "cron", ProhibitOverlap: true, TimeZone: "Europe/Paris"},
		ParameterizedJob:  &structs.ParameterizedJobConfig{Payload: "required", MetaRequired: []string{"a"}, MetaOptional: []string{"b"}},
		Dispatched:        true,
		Payload:           []byte("payload"),
		Reschedule:        &structs.ReschedulePolicy{Attempts: 2, Interval: time.Hour, Delay: 30 * time.Second, DelayFunction: "exponential", MaxDelay: time.Hour, Unlimited: true},
		Migrate:           &structs.MigrateStrategy{MaxParallel: 1, HealthCheck: "task_states", MinHealthyTime: 10 * time.Second, HealthyDeadline: 5 * time.Minute},
		Meta:              map[string]string{"job": "meta"},
		Stop:              true,
		Status:            "running",
		StatusDescription: "all good",
		Stable:            true,
		Version:           4,
		VersionTag:        &structs.JobVersionTag{Name: "golden", Description: "known good", TaggedTime: 7},
		SubmitTime:        t0.UnixNano(),
		CreateIndex:       10,
		ModifyIndex:       20,
		JobModifyIndex:    15,
	}
}

// apiOnlyJobFields are the api.Job fields structs has no counterpart for
// (see the package report); a fully populated api job leaves them unset.
var apiOnlyJobFields = []string{
	"Multiregion", "UI", "DispatchIdempotencyToken", "ConsulNamespace", "VaultNamespace", "NomadTokenID",
	"Periodic.Spec", // Specs is used; Spec and Specs are mutually exclusive
	"TaskGroups.Volumes", "TaskGroups.Consul",
	"TaskGroups.Scaling.Type", "TaskGroups.Scaling.ID", "TaskGroups.Scaling.Namespace", "TaskGroups.Scaling.Target",
	"TaskGroups.Scaling.CreateIndex", "TaskGroups.Scaling.ModifyIndex",
	"TaskGroups.Tasks.Vault", "TaskGroups.Tasks.Consul", "TaskGroups.Tasks.VolumeMounts", "TaskGroups.Tasks.CSIPluginConfig",
	"TaskGroups.Tasks.Kind", "TaskGroups.Tasks.ScalingPolicies", "TaskGroups.Tasks.Secrets",
	"TaskGroups.Tasks.Identity.ServiceName", "TaskGroups.Tasks.Identity.ExtraClaims",
	"TaskGroups.Tasks.Identities.ServiceName", "TaskGroups.Tasks.Identities.ExtraClaims", "TaskGroups.Tasks.Schedule",
	"TaskGroups.Tasks.Resources.NUMA", "TaskGroups.Tasks.Resources.SecretsMB", "TaskGroups.Tasks.Resources.IOPS",
	"TaskGroups.Tasks.LogConfig.Enabled",
	"TaskGroups.Tasks.Artifacts.GetterHeaders", "TaskGroups.Tasks.Artifacts.GetterInsecure", "TaskGroups.Tasks.Artifacts.Chown",
	"TaskGroups.Tasks.Templates.VaultGrace", "TaskGroups.Tasks.Templates.ChangeScript.RunOnFirstRender",
}

// apiOnlyNetworkFields and apiOnlyServiceFields are relative to a network or
// service block; they are expanded for every place such blocks appear.
var (
	apiOnlyNetworkFields = []string{"ReservedPorts.IgnoreCollision", "DynamicPorts.IgnoreCollision"}
	apiOnlyServiceFields = []string{
		"CheckRestart", "Connect", "TaskName", "Identity", "Weights", "Cluster", "Kind",
		"Checks.Expose", "Checks.AddressMode", "Checks.Advertise", "Checks.Notes",
	}
)

func withPrefixes(fields []string, prefixes ...string) []string {
	var out []string
	for _, p := range prefixes {
		for _, f := range fields {
			out = append(out, p+f)
		}
	}
	return out
}

func apiJobSkips() []string {
	skips := append([]string{}, apiOnlyJobFields...)
	skips = append(skips, withPrefixes(apiOnlyNetworkFields, "TaskGroups.Networks.", "TaskGroups.Tasks.Resources.Networks.")...)
	return append(skips, withPrefixes(apiOnlyServiceFields, "TaskGroups.Services.", "TaskGroups.Tasks.Services.")...)
}

func fullAPINetwork(seed int) *api.NetworkResource {
	return &api.NetworkResource{
		Mode: "host", Device: "eth1", CIDR: "192.168.0.0/16", IP: "192.168.0.1", MBits: new(20 + seed),
		ReservedPorts: []api.Port{{Label: "db", Value: 5432, To: 5433, HostNetwork: "internal"}},
		DynamicPorts:  []api.Port{{Label: "metrics", Value: 30000 + seed, To: 9090, HostNetwork: "default"}},
		Hostname:      "db", DNS: &api.DNSConfig{Servers: []string{"8.8.8.8"}, Searches: []string{"local"}, Options: []string{"edns0"}},
		CNI: &api.CNIConfig{Args: map[string]string{"A": "b"}},
	}
}

func fullAPIServices() []*api.Service {
	return []*api.Service{{
		Name: "api", PortLabel: "metrics", Provider: "consul", Tags: []string{"x"},
		Checks: []api.ServiceCheck{{Name: "tcp", Type: "tcp", Path: "/p", Protocol: "http", PortLabel: "metrics2", Method: "POST",
			Interval: 5 * time.Second, Timeout: time.Second, Command: "/bin/check", Args: []string{"-v"}, GRPCService: "g",
			GRPCUseTLS: true, TLSSkipVerify: true, TaskName: "web", CheckRestart: &api.CheckRestart{Limit: 3, Grace: new(time.Second), IgnoreWarnings: true},
			Header: map[string][]string{"Authorization": {"Bearer x"}}, Body: "ping", TLSServerName: "api.local",
			SuccessBeforePassing: 5, FailuresBeforeWarning: 6, FailuresBeforeCritical: 7, OnUpdate: "ignore", InitialStatus: "passing"}},
		Address: "192.168.9.9", CanaryTags: []string{"canary-x"}, CanaryMeta: map[string]string{"cm": "2"}, Meta: map[string]string{"mm": "2"},
		TaggedAddresses: map[string]string{"wan": "1.2.3.4"}, AddressMode: "alloc", EnableTagOverride: true, OnUpdate: "ignore_warnings",
	}}
}

func fullAPITask() *api.Task {
	return &api.Task{
		Name: "worker", Driver: "exec", User: "root",
		Lifecycle:   &api.TaskLifecycle{Hook: "poststop", Sidecar: true},
		Config:      map[string]any{"command": "/bin/true", "args": []any{"a", float64(1)}, "m": map[string]any{"x": true}},
		Constraints: []*api.Constraint{{LTarget: "${attr.cpu.arch}", RTarget: "amd64", Operand: "="}},
		Affinities:  []*api.Affinity{{LTarget: "${meta.ssd}", RTarget: "true", Operand: "=", Weight: new(int8(-70))}},
		Env:         map[string]string{"B": "2"},
		Services:    fullAPIServices(),
		Resources: &api.Resources{
			CPU: new(250), Cores: new(1), MemoryMB: new(128), MemoryMaxMB: new(1024), DiskMB: new(50),
			Networks: []*api.NetworkResource{fullAPINetwork(1)},
			Devices: []*api.RequestedDevice{{Name: "fpga", Count: new(uint64(3)),
				Constraints: []*api.Constraint{{LTarget: "${device.vendor}", RTarget: "xilinx", Operand: "="}},
				Affinities:  []*api.Affinity{{LTarget: "${device.model}", RTarget: "u50", Operand: "=", Weight: new(int8(40))}}}},
		},
		RestartPolicy: &api.RestartPolicy{Interval: new(time.Hour + time.Minute), Attempts: new(9), Delay: new(9 * time.Second), Mode: new("delay"), RenderTemplates: new(true)},
		Meta:          map[string]string{"t": "m"},
		KillTimeout:   new(11 * time.Second),
		LogConfig:     &api.LogConfig{MaxFiles: new(6), MaxFileSizeMB: new(7), Disabled: new(true)},
		Artifacts:     []*api.TaskArtifact{{GetterSource: new("git::x"), GetterOptions: map[string]string{"ref": "main"}, GetterMode: new("file"), RelativeDest: new("local/x")}},
		Templates: []*api.Template{{SourcePath: new("a.tpl"), DestPath: new("a"), EmbeddedTmpl: new("x"), ChangeMode: new("restart"), ChangeSignal: new("SIGUSR1"), Perms: new("0640"), Envvars: new(true),
			Splay: new(2 * time.Second), Wait: &api.WaitConfig{Min: new(time.Second), Max: new(time.Minute)}, ErrMissingKey: new(true),
			ChangeScript: &api.ChangeScript{Command: new("/bin/reload"), Args: []string{"-q"}, Timeout: new(time.Second), FailOnError: new(true)},
			LeftDelim:    new("<<"), RightDelim: new(">>"), Once: new(true), Uid: new(2000), Gid: new(2001)}},
		DispatchPayload: &api.DispatchPayloadConfig{File: "p.bin"},
		Leader:          true,
		ShutdownDelay:   4 * time.Second,
		KillSignal:      "SIGTERM",
		Actions:         []*api.Action{{Name: "dump", Command: "/bin/cat", Args: []string{"local/state"}}},
		Identity: &api.WorkloadIdentity{Env: true, File: true, Name: "default", Audience: []string{"nomadproject.io"},
			ChangeMode: "signal", ChangeSignal: "SIGHUP", Filepath: "local/t.jwt", TTL: time.Hour},
		Identities: []*api.WorkloadIdentity{{Name: "vault_default", Audience: []string{"vault.io"}, Env: true, File: true,
			ChangeMode: "signal", ChangeSignal: "SIGUSR1", Filepath: "secrets/v.jwt", TTL: time.Minute}},
	}
}

func fullAPIGroup() *api.TaskGroup {
	return &api.TaskGroup{
		Name:        new("workers"),
		Count:       new(5),
		Constraints: []*api.Constraint{{LTarget: "${node.pool}", RTarget: "x", Operand: "regexp"}},
		Affinities:  []*api.Affinity{{LTarget: "${meta.a}", RTarget: "b", Operand: "!=", Weight: new(int8(15))}},
		Tasks:       []*api.Task{fullAPITask()},
		Spreads:     []*api.Spread{{Attribute: "${meta.az}", Weight: new(int8(25)), SpreadTarget: []*api.SpreadTarget{{Value: "az1", Percent: 100}}}},
		RestartPolicy: &api.RestartPolicy{
			Interval: new(4 * time.Hour), Attempts: new(8), Delay: new(8 * time.Second), Mode: new("fail"), RenderTemplates: new(true),
		},
		Disconnect: &api.DisconnectStrategy{
			LostAfter: new(3 * time.Hour), StopOnClientAfter: new(2 * time.Minute), Replace: new(true), Reconcile: new("keep_replacement"),
		},
		ReschedulePolicy: &api.ReschedulePolicy{
			Attempts: new(12), Interval: new(5 * time.Hour), Delay: new(50 * time.Second),
			DelayFunction: new("constant"), MaxDelay: new(3 * time.Hour), Unlimited: new(true),
		},
		EphemeralDisk: &api.EphemeralDisk{Sticky: new(true), Migrate: new(true), SizeMB: new(2000)},
		Update: &api.UpdateStrategy{
			Stagger: new(time.Minute), MaxParallel: new(4), HealthCheck: new("manual"), MinHealthyTime: new(time.Second),
			HealthyDeadline: new(2 * time.Minute), ProgressDeadline: new(20 * time.Minute), Canary: new(3),
			AutoRevert: new(true), AutoPromote: new(true),
		},
		Migrate:  &api.MigrateStrategy{MaxParallel: new(6), HealthCheck: new("task_states"), MinHealthyTime: new(3 * time.Second), HealthyDeadline: new(4 * time.Minute)},
		Networks: []*api.NetworkResource{fullAPINetwork(2)},
		Meta:     map[string]string{"g": "m"},
		Services: fullAPIServices(),
		Scaling:  &api.ScalingPolicy{Min: new(int64(2)), Max: new(int64(20)), Policy: map[string]any{"evaluation_interval": "5s"}, Enabled: new(true)},

		StopAfterClientDisconnect: new(5 * time.Minute),
		MaxClientDisconnect:       new(6 * time.Hour),
		ShutdownDelay:             new(3 * time.Second),
		MaxRunDuration:            new(2 * time.Hour),
		PreventRescheduleOnLost:   new(true),
	}
}

func fullAPIJob() *api.Job {
	return &api.Job{
		Region: new("us"), Namespace: new("batch"), ID: new("report"), Name: new("report-name"), Type: new("batch"),
		Priority: new(80), AllAtOnce: new(true), Datacenters: []string{"dc3"}, NodePool: new("big"),
		Constraints: []*api.Constraint{{LTarget: "${attr.unique.hostname}", RTarget: "h1", Operand: "!="}},
		Affinities:  []*api.Affinity{{LTarget: "${node.datacenter}", RTarget: "dc3", Operand: "=", Weight: new(int8(90))}},
		TaskGroups:  []*api.TaskGroup{fullAPIGroup()},
		Update: &api.UpdateStrategy{
			Stagger: new(2 * time.Minute), MaxParallel: new(5), HealthCheck: new("checks"), MinHealthyTime: new(2 * time.Second),
			HealthyDeadline: new(3 * time.Minute), ProgressDeadline: new(30 * time.Minute), Canary: new(4),
			AutoRevert: new(true), AutoPromote: new(true),
		},
		Spreads:          []*api.Spread{{Attribute: "${node.class}", Weight: new(int8(10)), SpreadTarget: []*api.SpreadTarget{{Value: "a", Percent: 10}}}},
		Periodic:         &api.PeriodicConfig{Enabled: new(true), Spec: new(""), Specs: []string{"@daily", "@hourly"}, SpecType: new("cron"), ProhibitOverlap: new(true), TimeZone: new("UTC")},
		ParameterizedJob: &api.ParameterizedJobConfig{Payload: "optional", MetaRequired: []string{"r"}, MetaOptional: []string{"o"}},
		Reschedule: &api.ReschedulePolicy{
			Attempts: new(3), Interval: new(6 * time.Hour), Delay: new(time.Minute),
			DelayFunction: new("exponential"), MaxDelay: new(4 * time.Hour), Unlimited: new(true),
		},
		Migrate:           &api.MigrateStrategy{MaxParallel: new(2), HealthCheck: new("checks"), MinHealthyTime: new(5 * time.Second), HealthyDeadline: new(6 * time.Minute)},
		Meta:              map[string]string{"j": "m"},
		Stop:              new(true),
		ParentID:          new("report-parent"),
		Dispatched:        true,
		Payload:           []byte{1, 2, 3},
		Status:            new("dead"),
		StatusDescription: new("done"),
		Stable:            new(true),
		Version:           new(uint64(9)),
		VersionTag:        &api.JobVersionTag{Name: "golden", Description: "known good", TaggedTime: 7},
		SubmitTime:        new(t0.UnixNano()),
		CreateIndex:       new(uint64(100)),
		ModifyIndex:       new(uint64(200)),
		JobModifyIndex:    new(uint64(150)),
	}
}

func fullStructsMetric() *structs.AllocMetric {
	return &structs.AllocMetric{
		NodesEvaluated: 10, NodesFiltered: 3, NodesInPool: 12,
		NodesAvailable:     map[string]int{"dc1": 5},
		ClassFiltered:      map[string]int{"small": 1},
		ConstraintFiltered: map[string]int{"${attr.os} = linux": 2},
		NodesExhausted:     4,
		ClassExhausted:     map[string]int{"big": 2},
		DimensionExhausted: map[string]int{"memory": 4},
		QuotaExhausted:     []string{"q"},
		ScoreMetaData:      []*structs.NodeScoreMeta{{NodeID: "n1", Scores: map[string]float64{"binpack": 0.5}, NormScore: 0.7}},
		AllocationTime:     time.Millisecond,
		CoalescedFailures:  6,
	}
}

func fullStructsEval() *structs.Evaluation {
	e := &structs.Evaluation{
		ID: "e1", Namespace: "prod", Priority: 60, Type: "service", TriggeredBy: "job-register",
		JobID: "web", JobModifyIndex: 5, NodeID: "n1", NodeModifyIndex: 6, DeploymentID: "d1",
		Status: "blocked", StatusDescription: "waiting", FailureKind: structs.EvalFailureDeliveryLimit, Wait: time.Second, WaitUntil: t0,
		NextEval: "e2", PreviousEval: "e0", BlockedEval: "e3",
		FailedTGAllocs:       map[string]*structs.AllocMetric{"web": fullStructsMetric()},
		ClassEligibility:     map[string]bool{"v1:123": true},
		QuotaLimitReached:    "quota",
		EscapedComputedClass: true,
		AnnotatePlan:         true,
		QueuedAllocations:    map[string]int{"web": 2},
		LeaderACL:            "secret-token",
		SnapshotIndex:        40,
		// Timeline is served beside the api eval by the HTTP layer.
		Timeline:    []*structs.EvalTimelineEntry{{Status: "pending", Time: 1, Worker: "w", Note: "n", PlanID: "p"}},
		CreateIndex: 41, ModifyIndex: 42,
		CreateTime: t0.UnixNano(), ModifyTime: t0.Add(time.Second).UnixNano(),
	}
	related := *e
	related.ID = "e9"
	e.RelatedEvals = []*structs.EvaluationStub{related.Stub()}
	return e
}

func fullStructsAlloc() *structs.Allocation {
	return &structs.Allocation{
		ID: "a1", Namespace: "prod", EvalID: "e1", Name: "web.web[0]", NodeID: "n1", NodeName: "node-1",
		JobID: "web-1", Job: fullStructsJob(), TaskGroup: "web",
		NetworkStatus: &structs.AllocNetworkStatus{InterfaceName: "eth0", Address: "172.26.64.2", AddressIPv6: "fd00::2",
			DNS: &structs.DNSConfig{Servers: []string{"1.1.1.1"}, Searches: []string{"svc"}, Options: []string{"ndots:2"}}},
		AllocatedResources: &structs.AllocatedResources{
			Tasks: map[string]*structs.AllocatedTaskResources{"server": {
				CpuShares: 500, ReservedCores: []uint16{1, 2}, MemoryMB: 256, MemoryMaxMB: 512,
				Networks: []*structs.NetworkResource{fullStructsNetwork(3)},
				Devices:  []*structs.AllocatedDeviceResource{{Vendor: "nvidia", Type: "gpu", Name: "t4", DeviceIDs: []string{"GPU-1"}}},
			}},
			Shared: structs.AllocatedSharedResources{
				DiskMB:   300,
				Networks: []*structs.NetworkResource{fullStructsNetwork(4)},
				Ports:    []structs.AllocatedPortMapping{{Label: "http", Value: 25000, To: 8080, HostIP: "10.0.0.1"}},
			},
		},
		Metrics:            fullStructsMetric(),
		DesiredStatus:      "run",
		DesiredDescription: "placed",
		DesiredTransition:  structs.DesiredTransition{Migrate: new(true), Reschedule: new(true), ForceReschedule: new(true), NoShutdownDelay: new(true)},
		ClientStatus:       "running",
		ClientDescription:  "tasks are running",
		TaskStates: map[string]*structs.TaskState{"server": {
			State: "running", Failed: true, Restarts: 2, LastRestart: t0, StartedAt: t0.Add(time.Second), FinishedAt: t0.Add(time.Minute),
			Events: []*structs.TaskEvent{{
				Type: "Started", Time: t0.UnixNano(), DisplayMessage: "started", Details: map[string]string{"k": "v"},
				Message: "msg", ExitCode: 1, Signal: 9, KillTimeout: time.Second, RestartReason: "oom", FailsTask: true,
			}},
		}},
		DeploymentID:          "d1",
		DeploymentStatus:      &structs.AllocDeploymentStatus{Healthy: new(true), Timestamp: t0, Canary: true, ModifyIndex: 7},
		RescheduleTracker:     &structs.RescheduleTracker{Events: []*structs.RescheduleEvent{{RescheduleTime: t0.UnixNano(), PrevAllocID: "a0", PrevNodeID: "n0", Delay: time.Minute}}},
		FollowupEvalID:        "e5",
		PreviousAllocation:    "a0",
		NextAllocation:        "a2",
		PreemptedAllocations:  []string{"p1"},
		PreemptedByAllocation: "p0",
		CreateIndex:           50, ModifyIndex: 51, AllocModifyIndex: 52,
		CreateTime: t0.UnixNano(), ModifyTime: t0.Add(time.Hour).UnixNano(),
	}
}

func fullStructsNode() *structs.Node {
	return &structs.Node{
		ID: "n1", SecretID: "s3cr3t", Datacenter: "dc1", Name: "node-1", HTTPAddr: "10.0.0.1:4646", TLSEnabled: true,
		HostVolumes:  map[string]*structs.ClientHostVolumeConfig{"shared": {Name: "shared", Path: "/srv/shared", ReadOnly: true}},
		HostNetworks: map[string]*structs.ClientHostNetworkConfig{"public": {Name: "public", CIDR: "203.0.113.0/24", Interface: "eth1", ReservedPorts: "22", Addresses: []string{"203.0.113.9"}}},
		NodePool:     "gpu", NodeClass: "big", ComputedClass: "v1:123",
		Attributes: map[string]string{
			"unique.network.ip-address": "10.0.0.1", "nomad.version": "1.9.0", "os.name": "ubuntu", "os.version": "24.04", "kernel.name": "linux",
		},
		Meta: map[string]string{"rack": "r1"},
		NodeResources: &structs.NodeResources{
			CPU:      structs.NodeCPUResources{CpuShares: 8000, TotalCpuCores: 4, ReservableCpuCores: []uint16{1, 2, 3}},
			MemoryMB: 16384, DiskMB: 100000,
			Networks:       []*structs.NetworkResource{fullStructsNetwork(5)},
			MinDynamicPort: 20000, MaxDynamicPort: 32000,
			Devices: []*structs.NodeDeviceResource{{Vendor: "nvidia", Type: "gpu", Name: "t4",
				Instances: []*structs.NodeDevice{{ID: "GPU-1", Healthy: true, HealthDescription: "ok"}}, Attributes: map[string]string{"memory": "16 GiB"}}},
		},
		ReservedResources: &structs.NodeReservedResources{CpuShares: 100, MemoryMB: 256, DiskMB: 1024, ReservedPorts: "22,80"},
		Drivers: map[string]*structs.DriverInfo{"docker": {
			Attributes: map[string]string{"driver.docker": "1"}, Detected: true, Healthy: true, HealthDescription: "healthy", UpdateTime: t0,
		}},
		Links:                 map[string]string{"consul": "dc1.n1"},
		Status:                "ready",
		StatusDescription:     "up",
		StatusUpdatedAt:       t0.Unix(),
		SchedulingEligibility: "ineligible",
		DrainStrategy:         &structs.DrainStrategy{Deadline: time.Hour, IgnoreSystemJobs: true, ForceDeadline: t0.Add(time.Hour), StartedAt: t0},
		LastDrain:             &structs.DrainMetadata{StartedAt: t0, UpdatedAt: t0.Add(time.Minute), Status: "draining", AccessorID: "acc", Meta: map[string]string{"message": "maint"}},
		Events:                []*structs.NodeEvent{{Message: "registered", Subsystem: "Cluster", Details: map[string]string{"a": "b"}, Timestamp: t0, CreateIndex: 3}},
		CreateIndex:           60, ModifyIndex: 61,
	}
}

func fullStructsDeployment() *structs.Deployment {
	return &structs.Deployment{
		ID: "d1", Namespace: "prod", JobID: "web", JobVersion: 3, JobModifyIndex: 70, JobSpecModifyIndex: 71, JobCreateIndex: 72,
		IsMultiregion: true,
		TaskGroups: map[string]*structs.DeploymentState{"web": {
			AutoRevert: true, AutoPromote: true, ProgressDeadline: time.Minute, RequireProgressBy: t0, Promoted: true,
			PlacedCanaries: []string{"a1"}, DesiredCanaries: 1, DesiredTotal: 3, PlacedAllocs: 2, HealthyAllocs: 5, UnhealthyAllocs: 4,
		}},
		Status: "running", StatusDescription: "in progress", EvalPriority: 50,
		CreateIndex: 73, ModifyIndex: 74, CreateTime: t0.UnixNano(), ModifyTime: t0.Add(time.Second).UnixNano(),
	}
}
