package jobspec

//lint:file-ignore SA1019 job files and API clients still send Nomad's deprecated disconnect fields; we accept them

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

func TestJobBlock(t *testing.T) {
	j, _ := mustParse(t, "job.nomad.hcl", ParseOptions{})
	eq(t, "ID", deref(t, "ID", j.ID), "top")
	eq(t, "Name", deref(t, "Name", j.Name), "top-name")
	eq(t, "Region", deref(t, "Region", j.Region), "eu")
	eq(t, "Namespace", deref(t, "Namespace", j.Namespace), "prod")
	eq(t, "Type", deref(t, "Type", j.Type), "service")
	eq(t, "Priority", deref(t, "Priority", j.Priority), 70)
	eq(t, "AllAtOnce", deref(t, "AllAtOnce", j.AllAtOnce), true)
	eq(t, "Datacenters", j.Datacenters, []string{"dc1", "dc2"})
	eq(t, "NodePool", deref(t, "NodePool", j.NodePool), "gpu")
	eq(t, "Meta", j.Meta, map[string]string{"owner": "team-a", "tier": "1"})
}

func TestConstraintsAffinitiesSpreads(t *testing.T) {
	j, _ := mustParse(t, "job.nomad.hcl", ParseOptions{})
	eq(t, "Constraints", j.Constraints, []*api.Constraint{
		{LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "="},
		{LTarget: "${attr.nomad.version}", RTarget: ">= 1.6", Operand: "version"},
		{LTarget: "${node.class}", RTarget: "^large-", Operand: "regexp"},
		{Operand: "distinct_hosts"},
		// distinct_hosts = false is no constraint at all
		{LTarget: "${meta.rack}", RTarget: "2", Operand: "distinct_property"},
		{LTarget: "${meta.tags}", RTarget: "a,b", Operand: "set_contains_any"},
	})
	w := int8(-50)
	eq(t, "Affinities", j.Affinities, []*api.Affinity{
		{LTarget: "${node.datacenter}", RTarget: "dc1", Operand: "=", Weight: &w},
	})
	sw := int8(100)
	eq(t, "Spreads", j.Spreads, []*api.Spread{{
		Attribute: "${node.datacenter}", Weight: &sw,
		SpreadTarget: []*api.SpreadTarget{{Value: "dc1", Percent: 60}, {Value: "dc2", Percent: 40}},
	}})
}

func TestJobPolicies(t *testing.T) {
	j, _ := mustParse(t, "job.nomad.hcl", ParseOptions{})
	u := j.Update
	if u == nil {
		t.Fatal("no update")
	}
	eq(t, "Stagger", deref(t, "Stagger", u.Stagger), dur("30s"))
	eq(t, "MaxParallel", deref(t, "MaxParallel", u.MaxParallel), 2)
	eq(t, "HealthCheck", deref(t, "HealthCheck", u.HealthCheck), "checks")
	eq(t, "MinHealthyTime", deref(t, "MinHealthyTime", u.MinHealthyTime), dur("10s"))
	eq(t, "HealthyDeadline", deref(t, "HealthyDeadline", u.HealthyDeadline), dur("5m"))
	eq(t, "ProgressDeadline", deref(t, "ProgressDeadline", u.ProgressDeadline), dur("10m"))
	eq(t, "Canary", deref(t, "Canary", u.Canary), 1)
	eq(t, "AutoRevert", deref(t, "AutoRevert", u.AutoRevert), true)
	eq(t, "AutoPromote", deref(t, "AutoPromote", u.AutoPromote), false)

	m := j.Migrate
	eq(t, "Migrate.MaxParallel", deref(t, "m", m.MaxParallel), 1)
	eq(t, "Migrate.HealthCheck", deref(t, "m", m.HealthCheck), "task_states")
	eq(t, "Migrate.MinHealthyTime", deref(t, "m", m.MinHealthyTime), dur("15s"))
	eq(t, "Migrate.HealthyDeadline", deref(t, "m", m.HealthyDeadline), dur("2m"))

	r := j.Reschedule
	eq(t, "Attempts", deref(t, "r", r.Attempts), 3)
	eq(t, "Interval", deref(t, "r", r.Interval), dur("1h"))
	eq(t, "Delay", deref(t, "r", r.Delay), dur("30s"))
	eq(t, "DelayFunction", deref(t, "r", r.DelayFunction), "exponential")
	eq(t, "MaxDelay", deref(t, "r", r.MaxDelay), dur("10m"))
	eq(t, "Unlimited", deref(t, "r", r.Unlimited), false)
}

// TestUnsetStaysNil checks the parser applies no defaults: the server
// canonicalizes, so omitted fields must reach it as nil.
func TestUnsetStaysNil(t *testing.T) {
	j, _, err := parseSrc(`job "x" {
  group "g" {
    task "t" { driver = "exec" }
  }
}`, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "Name", deref(t, "Name", j.Name), "x")
	if j.Type != nil || j.Priority != nil || j.Region != nil || j.Update != nil {
		t.Errorf("job defaults applied: %+v", j)
	}
	g := j.TaskGroups[0]
	if g.Count != nil || g.RestartPolicy != nil || g.EphemeralDisk != nil {
		t.Errorf("group defaults applied: %+v", g)
	}
	task := g.Tasks[0]
	if task.Resources != nil || task.KillTimeout != nil || task.LogConfig != nil {
		t.Errorf("task defaults applied: %+v", task)
	}
}

func TestPeriodicParameterized(t *testing.T) {
	j, _ := mustParse(t, "batch.nomad.hcl", ParseOptions{})
	p := j.Periodic
	if p == nil {
		t.Fatal("no periodic")
	}
	eq(t, "Specs", p.Specs, []string{"0 * * * *", "30 2 * * 1"})
	eq(t, "SpecType", deref(t, "SpecType", p.SpecType), "cron")
	eq(t, "ProhibitOverlap", deref(t, "po", p.ProhibitOverlap), true)
	eq(t, "TimeZone", deref(t, "tz", p.TimeZone), "Europe/Paris")
	if p.Enabled != nil || p.Spec != nil {
		t.Errorf("unset periodic fields set: %+v", p)
	}
	eq(t, "Parameterized", j.ParameterizedJob, &api.ParameterizedJobConfig{
		Payload: "required", MetaRequired: []string{"customer"}, MetaOptional: []string{"format"},
	})
	task := j.TaskGroups[0].Tasks[0]
	eq(t, "DispatchPayload", task.DispatchPayload, &api.DispatchPayloadConfig{File: "input.json"})
	eq(t, "args", task.Config["args"], any([]any{"--customer", "${NOMAD_META_customer}"}))

	j2, _, err := parseSrc(`job "c" {
  periodic {
    cron    = "@daily"
    enabled = false
  }
}`, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "Spec", deref(t, "Spec", j2.Periodic.Spec), "@daily")
	eq(t, "Enabled", deref(t, "Enabled", j2.Periodic.Enabled), false)
	eq(t, "SpecType", deref(t, "SpecType", j2.Periodic.SpecType), "cron")
}

func TestGroupBlock(t *testing.T) {
	j, _ := mustParse(t, "group.nomad.hcl", ParseOptions{})
	g := j.TaskGroups[0]
	eq(t, "Name", deref(t, "Name", g.Name), "api")
	eq(t, "Count", deref(t, "Count", g.Count), 2)
	eq(t, "ShutdownDelay", deref(t, "sd", g.ShutdownDelay), dur("5s"))
	eq(t, "MaxClientDisconnect", deref(t, "mcd", g.MaxClientDisconnect), dur("1h"))
	eq(t, "StopAfterClientDisconnect", deref(t, "sacd", g.StopAfterClientDisconnect), dur("90s"))
	eq(t, "Meta", g.Meta, map[string]string{"role": "api"})
	rp := g.RestartPolicy
	eq(t, "Restart.Attempts", deref(t, "a", rp.Attempts), 2)
	eq(t, "Restart.Interval", deref(t, "i", rp.Interval), dur("30m"))
	eq(t, "Restart.Delay", deref(t, "d", rp.Delay), dur("15s"))
	eq(t, "Restart.Mode", deref(t, "m", rp.Mode), "fail")
	eq(t, "Restart.RenderTemplates", deref(t, "rt", rp.RenderTemplates), true)
	eq(t, "Reschedule.Unlimited", deref(t, "u", g.ReschedulePolicy.Unlimited), true)
	eq(t, "EphemeralDisk.Size", deref(t, "size", g.EphemeralDisk.SizeMB), 300)
	eq(t, "EphemeralDisk.Sticky", deref(t, "sticky", g.EphemeralDisk.Sticky), true)
	eq(t, "EphemeralDisk.Migrate", deref(t, "migrate", g.EphemeralDisk.Migrate), true)
	eq(t, "Update.MaxParallel", deref(t, "mp", g.Update.MaxParallel), 3)
	eq(t, "Migrate.MaxParallel", deref(t, "mp", g.Migrate.MaxParallel), 2)

	dc := g.Disconnect
	eq(t, "LostAfter", deref(t, "la", dc.LostAfter), dur("6h"))
	eq(t, "StopOnClientAfter", deref(t, "soca", dc.StopOnClientAfter), dur("1h"))
	eq(t, "Replace", deref(t, "r", dc.Replace), false)
	eq(t, "Reconcile", deref(t, "rc", dc.Reconcile), "keep_original")

	eq(t, "Volumes", g.Volumes, map[string]*api.VolumeRequest{
		"data": {Name: "data", Type: "host", Source: "api-data", ReadOnly: true},
	})
}

func TestNetworkPorts(t *testing.T) {
	j, _ := mustParse(t, "group.nomad.hcl", ParseOptions{})
	eq(t, "Networks", j.TaskGroups[0].Networks, []*api.NetworkResource{{
		Mode:          "bridge",
		Hostname:      "api",
		DNS:           &api.DNSConfig{Servers: []string{"1.1.1.1"}},
		CNI:           &api.CNIConfig{Args: map[string]string{"FOO": "bar"}},
		DynamicPorts:  []api.Port{{Label: "http", To: 8080}},
		ReservedPorts: []api.Port{{Label: "admin", Value: 9000, To: 9001, HostNetwork: "private"}},
	}})
}

func TestScaling(t *testing.T) {
	j, _ := mustParse(t, "group.nomad.hcl", ParseOptions{})
	s := j.TaskGroups[0].Scaling
	eq(t, "Min", deref(t, "min", s.Min), int64(1))
	eq(t, "Max", deref(t, "max", s.Max), int64(10))
	eq(t, "Enabled", deref(t, "enabled", s.Enabled), true)
	eq(t, "Policy", s.Policy, map[string]any{
		"cooldown": "1m",
		"check": []map[string]any{{"cpu": map[string]any{
			"source": "nomad-apm",
			"query":  "avg_cpu",
			"strategy": []map[string]any{{"target-value": map[string]any{
				"target": 70,
			}}},
		}}},
	})
}

func TestServiceAndChecks(t *testing.T) {
	j, warns := mustParse(t, "group.nomad.hcl", ParseOptions{})
	svcs := j.TaskGroups[0].Services
	if len(svcs) != 1 {
		t.Fatalf("services = %d", len(svcs))
	}
	s := svcs[0]
	eq(t, "Name", s.Name, "api")
	eq(t, "PortLabel", s.PortLabel, "http")
	eq(t, "Tags", s.Tags, []string{"v1", "http"})
	eq(t, "CanaryTags", s.CanaryTags, []string{"canary"})
	eq(t, "AddressMode", s.AddressMode, "auto")
	eq(t, "Provider", s.Provider, "nomad")
	eq(t, "OnUpdate", s.OnUpdate, "require_healthy")
	eq(t, "Meta", s.Meta, map[string]string{"version": "1"})
	grace := dur("90s")
	eq(t, "Checks", s.Checks, []api.ServiceCheck{
		{Name: "alive", Type: "http", Path: "/health", Method: "GET", Interval: dur("10s"), Timeout: dur("2s"),
			Header:       map[string][]string{"Authorization": {"Bearer x"}},
			CheckRestart: &api.CheckRestart{Limit: 3, Grace: &grace}},
		{Type: "tcp", PortLabel: "admin", Interval: dur("5s"), Timeout: dur("1s")},
	})
	if !hasWarning(warns, "connect") {
		t.Errorf("no warning for connect: %v", warns)
	}
}

func TestTaskBlock(t *testing.T) {
	j, _ := mustParse(t, "task.nomad.hcl", ParseOptions{})
	task := j.TaskGroups[0].Tasks[0]
	eq(t, "Name", task.Name, "main")
	eq(t, "Driver", task.Driver, "docker")
	eq(t, "User", task.User, "nobody")
	eq(t, "KillTimeout", deref(t, "kt", task.KillTimeout), dur("45s"))
	eq(t, "KillSignal", task.KillSignal, "SIGINT")
	eq(t, "Leader", task.Leader, true)
	eq(t, "ShutdownDelay", task.ShutdownDelay, dur("3s"))
	eq(t, "Env", task.Env, map[string]string{"LOG_LEVEL": "debug", "PORT": "${NOMAD_PORT_http}"})
	eq(t, "Meta", task.Meta, map[string]string{"build": "42"})
	eq(t, "LogConfig.MaxFiles", deref(t, "mf", task.LogConfig.MaxFiles), 5)
	eq(t, "LogConfig.MaxFileSizeMB", deref(t, "mfs", task.LogConfig.MaxFileSizeMB), 20)
	eq(t, "Restart.Attempts", deref(t, "a", task.RestartPolicy.Attempts), 1)
	eq(t, "VolumeMounts", len(task.VolumeMounts), 1)
	eq(t, "VolumeMount.Destination", deref(t, "dest", task.VolumeMounts[0].Destination), "/data")

	init := j.TaskGroups[0].Tasks[1]
	eq(t, "init Env", init.Env, map[string]string{"MODE": "init"})
	eq(t, "Lifecycle", init.Lifecycle, &api.TaskLifecycle{Hook: "prestart"})
}

func TestDriverConfig(t *testing.T) {
	j, _ := mustParse(t, "task.nomad.hcl", ParseOptions{})
	eq(t, "Config", j.TaskGroups[0].Tasks[0].Config, map[string]any{
		"image":      "app:2",
		"privileged": false,
		"ports":      []any{"http", "grpc"},
		"ratio":      0.5,
		"labels":     []map[string]any{{"team": "core"}},
		"mount": []map[string]any{
			{"type": "bind", "source": "/etc/app", "target": "/app/etc"},
			{"type": "tmpfs", "target": "/tmp", "tmpfs_options": []map[string]any{{"size": 100000}}},
		},
	})
}

func TestResources(t *testing.T) {
	j, _ := mustParse(t, "task.nomad.hcl", ParseOptions{})
	r := j.TaskGroups[0].Tasks[0].Resources
	eq(t, "CPU", deref(t, "cpu", r.CPU), 500)
	eq(t, "Cores", deref(t, "cores", r.Cores), 2)
	eq(t, "MemoryMB", deref(t, "mem", r.MemoryMB), 256)
	eq(t, "MemoryMaxMB", deref(t, "memmax", r.MemoryMaxMB), 1024)
	count := uint64(2)
	w := int8(50)
	eq(t, "Devices", r.Devices, []*api.RequestedDevice{{
		Name:        "nvidia/gpu",
		Count:       &count,
		Constraints: []*api.Constraint{{LTarget: "${device.attr.memory}", Operand: ">=", RTarget: "2 GiB"}},
		Affinities:  []*api.Affinity{{LTarget: "${device.model}", RTarget: "Tesla", Operand: "=", Weight: &w}},
	}})
}

func TestTemplateAndArtifact(t *testing.T) {
	j, _ := mustParse(t, "task.nomad.hcl", ParseOptions{})
	task := j.TaskGroups[0].Tasks[0]
	if len(task.Templates) != 1 {
		t.Fatalf("templates = %d", len(task.Templates))
	}
	tp := task.Templates[0]
	eq(t, "data", deref(t, "data", tp.EmbeddedTmpl), "addr={{ env \"NOMAD_ADDR_http\" }}\nalloc=${NOMAD_ALLOC_ID}\n")
	eq(t, "dest", deref(t, "dest", tp.DestPath), "local/app.conf")
	eq(t, "change_mode", deref(t, "cm", tp.ChangeMode), "signal")
	eq(t, "change_signal", deref(t, "cs", tp.ChangeSignal), "SIGHUP")
	eq(t, "splay", deref(t, "splay", tp.Splay), dur("10s"))
	eq(t, "wait.min", deref(t, "min", tp.Wait.Min), dur("2s"))
	eq(t, "wait.max", deref(t, "max", tp.Wait.Max), dur("10s"))

	if len(task.Artifacts) != 1 {
		t.Fatalf("artifacts = %d", len(task.Artifacts))
	}
	a := task.Artifacts[0]
	eq(t, "source", deref(t, "src", a.GetterSource), "https://example.com/app.tar.gz")
	eq(t, "destination", deref(t, "dst", a.RelativeDest), "local/app")
	eq(t, "mode", deref(t, "mode", a.GetterMode), "any")
	eq(t, "options", a.GetterOptions, map[string]string{"checksum": "sha256:abc"})
}

// TestIgnoredBlocksWarn: with AllowUnsupported (tests of the decoding
// only), the blocks Drover refuses are warnings, at their position.
func TestIgnoredBlocksWarn(t *testing.T) {
	_, warns := mustParse(t, "task.nomad.hcl", ParseOptions{})
	for _, b := range []string{"vault", "consul"} {
		if !hasWarning(warns, "Unsupported "+b+" block") {
			t.Errorf("no warning for %s: %v", b, warns)
		}
	}
	for _, w := range warns {
		if !strings.HasPrefix(w.Pos, "testdata/task.nomad.hcl:") {
			t.Errorf("warning without position: %+v", w)
		}
	}
}

func TestRealisticJob(t *testing.T) {
	j, warns := mustParse(t, "realistic.nomad.hcl", ParseOptions{})
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	eq(t, "groups", len(j.TaskGroups), 2)
	fe := j.TaskGroups[0]
	eq(t, "count", deref(t, "count", fe.Count), 3)
	eq(t, "tags", fe.Services[0].Tags, []string{"env-production", "version-1.4.2"})
	task := fe.Tasks[0]
	eq(t, "image", task.Config["image"], any("registry.example.com/shop/frontend:1.4.2"))
	eq(t, "logging", task.Config["logging"], any([]map[string]any{{
		"type":   "json-file",
		"config": []map[string]any{{"max-size": "10m"}},
	}}))
	eq(t, "env", task.Env, map[string]string{
		"NODE_ENV":  "production",
		"PORT":      "${NOMAD_PORT_http}",
		"BACKEND":   "http://${NOMAD_UPSTREAM_ADDR_backend}",
		"HOST_NAME": "${node.unique.name}",
	})
	eq(t, "sidecar", fe.Tasks[1].Lifecycle, &api.TaskLifecycle{Hook: "poststart", Sidecar: true})
	w := j.TaskGroups[1].Tasks[0]
	eq(t, "worker args", w.Config["args"], any([]any{"--concurrency", "${attr.cpu.numcores}"}))
	eq(t, "disk", deref(t, "disk", j.TaskGroups[1].EphemeralDisk.SizeMB), 500)
}

func hasWarning(warns []Warning, substr string) bool {
	for _, w := range warns {
		if strings.Contains(w.Message, substr) {
			return true
		}
	}
	return false
}

// TestJSONSyntax checks HCL's JSON form (chosen by the .json extension).
func TestJSONSyntax(t *testing.T) {
	j, _ := mustParse(t, "json.nomad.json", ParseOptions{})
	eq(t, "ID", deref(t, "ID", j.ID), "j")
	eq(t, "Meta", j.Meta, map[string]string{"a": "${attr.x}"})
	g := j.TaskGroups[0]
	eq(t, "Count", deref(t, "count", g.Count), 2)
	eq(t, "Config", g.Tasks[0].Config, map[string]any{"image": "x", "mount": []any{map[string]any{"type": "bind"}}})
	eq(t, "CPU", deref(t, "cpu", g.Tasks[0].Resources.CPU), 100)
}

// Docker's labels written as an attribute (a list of objects) keep Nomad's
// list-of-maps shape, like the block form.
func TestDriverConfig_LabelsAttributeIsListOfMaps(t *testing.T) {
	j, _, err := parseSrc(`job "x" {
  group "g" {
    task "t" {
      driver = "docker"
      config {
        image  = "a"
        labels = [{ team = "core", tier = "web" }]
      }
    }
  }
}`, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(j.TaskGroups[0].Tasks[0].Config["labels"])
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "labels", string(got), `[{"team":"core","tier":"web"}]`)
}
