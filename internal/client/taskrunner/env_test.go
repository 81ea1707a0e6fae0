package taskrunner

import (
	"reflect"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

func TestBuildEnvAndInterpolation(t *testing.T) {
	task := &structs.Task{Name: "web", Driver: "docker", Env: map[string]string{"ADDR": "${NOMAD_ADDR_http}", "DC": "${node.datacenter}"},
		Meta: map[string]string{"tier": "front"}, Resources: &structs.Resources{CPU: 100, MemoryMB: 10}}
	job := &structs.Job{ID: "j", Name: "jn", Region: "eu", Meta: map[string]string{"tier": "job", "team": "a"},
		TaskGroups: []*structs.TaskGroup{{Name: "g", Tasks: []*structs.Task{task}}}}
	alloc := &structs.Allocation{ID: "abcdef0123", Name: "j.g[3]", Namespace: "default", TaskGroup: "g", Job: job,
		AllocatedResources: &structs.AllocatedResources{
			Tasks:  map[string]*structs.AllocatedTaskResources{"web": {CpuShares: 500, MemoryMB: 256, MemoryMaxMB: 512}},
			Shared: structs.AllocatedSharedResources{Ports: []structs.AllocatedPortMapping{{Label: "http", Value: 23000, To: 80, HostIP: "10.0.0.1"}}}}}
	node := &structs.Node{ID: "n1", Name: "host-a", Datacenter: "dc2", NodeClass: "big", Attributes: map[string]string{"kernel.name": "linux"}, Meta: map[string]string{"rack": "r9"}}
	env := BuildEnv(EnvInputs{Alloc: alloc, Task: task, Group: job.TaskGroups[0], Node: node, Region: "eu", TaskDir: drivers.TaskDir{}})
	want := map[string]string{
		"NOMAD_ALLOC_ID": "abcdef0123", "NOMAD_SHORT_ALLOC_ID": "abcdef01", "NOMAD_ALLOC_INDEX": "3", "NOMAD_ALLOC_NAME": "j.g[3]",
		"NOMAD_JOB_ID": "j", "NOMAD_JOB_NAME": "jn", "NOMAD_GROUP_NAME": "g", "NOMAD_TASK_NAME": "web", "NOMAD_DC": "dc2",
		"NOMAD_REGION": "eu", "NOMAD_NAMESPACE": "default", "NOMAD_ALLOC_DIR": "/alloc", "NOMAD_TASK_DIR": "/local",
		"NOMAD_SECRETS_DIR": "/secrets", "NOMAD_CPU_LIMIT": "500", "NOMAD_MEMORY_LIMIT": "256", "NOMAD_MEMORY_MAX_LIMIT": "512",
		"NOMAD_PORT_http": "80", "NOMAD_HOST_PORT_http": "23000", "NOMAD_IP_http": "10.0.0.1", "NOMAD_ADDR_http": "10.0.0.1:23000",
		"NOMAD_META_tier": "front", "NOMAD_META_TIER": "front", "NOMAD_META_team": "a", "ADDR": "10.0.0.1:23000", "DC": "dc2",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	ip := NewInterpolator(env, node, "eu")
	cfg := ip.Config(map[string]any{
		"command": "${NOMAD_TASK_NAME}-${attr.kernel.name}",
		"args":    []any{"${meta.rack}", "${node.unique.id}", "${node.unique.name}", "${node.class}", "${node.region}", "${unknown.x}", 3},
		"nested":  []map[string]any{{"k": "${NOMAD_ALLOC_INDEX}"}},
	})
	wantCfg := map[string]any{
		"command": "web-linux",
		"args":    []any{"r9", "n1", "host-a", "big", "eu", "${unknown.x}", 3},
		"nested":  []map[string]any{{"k": "3"}},
	}
	if !reflect.DeepEqual(cfg, wantCfg) {
		t.Fatalf("config = %#v", cfg)
	}
}

func TestRestartTracker(t *testing.T) {
	now := time.Unix(0, 0)
	fail := &drivers.ExitResult{ExitCode: 1}
	p := &structs.RestartPolicy{Attempts: 2, Interval: time.Minute, Delay: 5 * time.Second, Mode: structs.RestartPolicyModeFail}
	rt := newRestartTracker(p, structs.JobTypeService, &structs.Task{})
	for i := 0; i < 2; i++ {
		if d := rt.onExit(now, fail); !d.restart || d.delay != 5*time.Second {
			t.Fatalf("attempt %d: %+v", i, d)
		}
	}
	if d := rt.onExit(now, fail); d.restart || !d.failed {
		t.Fatalf("third failure: %+v", d)
	}
	// A new interval starts the count again.
	rt = newRestartTracker(p, structs.JobTypeService, &structs.Task{})
	rt.onExit(now, fail)
	rt.onExit(now, fail)
	if d := rt.onExit(now.Add(2*time.Minute), fail); !d.restart {
		t.Fatalf("after the interval: %+v", d)
	}
	// Mode delay waits out the interval instead of failing.
	p.Mode = structs.RestartPolicyModeDelay
	rt = newRestartTracker(p, structs.JobTypeService, &structs.Task{})
	rt.onExit(now, fail)
	rt.onExit(now.Add(10*time.Second), fail)
	if d := rt.onExit(now.Add(20*time.Second), fail); !d.restart || d.delay != 40*time.Second {
		t.Fatalf("delay mode: %+v", d)
	}
	// Batch tasks that succeed are done.
	rt = newRestartTracker(p, structs.JobTypeBatch, &structs.Task{})
	if d := rt.onExit(now, &drivers.ExitResult{}); d.restart || d.failed {
		t.Fatalf("batch success: %+v", d)
	}
}
