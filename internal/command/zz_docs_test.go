package command

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
	"github.com/drover-project/drover/internal/testutil/agenttest"
	"github.com/drover-project/drover/internal/testutil/mock"
)

func TestZZDocs(t *testing.T) {
	if os.Getenv("DOCS") == "" {
		t.Skip()
	}
	a := agenttest.Start(t, nil, func(cfg *config.Config) { cfg.Client.Enabled = false; cfg.Server.EnabledSchedulers = nil })
	c := agenttest.Client(t, a)
	addr := "http://" + a.HTTPAddr()
	for i, spec := range []struct {
		name, class string
		mem         int64
	}{{"web-1", "general", 16384}, {"web-2", "general", 16384}, {"web-3", "general", 16384}, {"gpu-1", "gpu", 32768}} {
		n := mock.Node(fmt.Sprintf("22222222-0000-4000-8000-%012d", i+1))
		n.Name, n.SecretID, n.NodeClass = spec.name, "", spec.class
		n.NodeResources.MemoryMB = spec.mem
		n.NodeResources.CPU.CpuShares = 8000
		if spec.class == "gpu" {
			n.Attributes["driver.docker"] = "0"
			delete(n.Drivers, "docker")
		}
		if _, err := a.Server().RegisterNode(n); err != nil {
			t.Fatal(err)
		}
	}
	reg := func(j *api.Job) string {
		r, _, err := c.Jobs().Register(j, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r.EvalID
	}
	mk := func(id string, count, cpu, mem int, prio int) (*api.Job, *api.TaskGroup) {
		job := api.NewServiceJob(id, id, "global", prio)
		job.Datacenters = []string{"dc1"}
		task := api.NewTask("t", "docker")
		task.Config = map[string]any{"image": "x"}
		task.Require(&api.Resources{CPU: new(cpu), MemoryMB: new(mem)})
		tg := api.NewTaskGroup("g", count).AddTask(task)
		job.AddTaskGroup(tg)
		return job, tg
	}
	j, _ := mk("reports", 3, 500, 6742, 30)
	reg(j)
	j, _ = mk("cache", 2, 1000, 8000, 50)
	reg(j)
	j, _ = mk("win", 1, 500, 256, 50)
	j.Constrain(api.NewConstraint("${attr.kernel.name}", "=", "windows"))
	reg(j)
	j, tg := mk("ingress", 4, 200, 128, 50)
	tg.Networks = []*api.NetworkResource{{ReservedPorts: []api.Port{{Label: "http", Value: 80}}}}
	tg.Constraints = []*api.Constraint{api.NewConstraint("", "distinct_hosts", "true")}
	reg(j)
	time.Sleep(time.Second)
	j, _ = mk("search", 1, 2000, 14463, 70)
	bigEval := reg(j)
	testutil.WaitFor(t, 10*time.Second, "evals done", func() bool {
		e, _, _ := c.Evaluations().Info(bigEval, nil)
		return e != nil && e.Status == "complete"
	})
	time.Sleep(time.Second)
	for _, args := range [][]string{
		{"job", "why", "search"},
		{"job", "why", "win"},
		{"job", "why", "ingress"},
		{"job", "why", "-node", "web-2", "search"},
		{"eval", "status", bigEval},
		{"job", "headroom", "reports"},
		{"operator", "headroom", "-cpu", "500", "-memory", "256"},
		{"operator", "what-if", "drain", "web-1"},
		{"operator", "what-if", "down-dc", "dc1"},
		{"node", "drain", "-enable", "-plan", "web-2"},
		{"operator", "what-if", "down", "web-3"},
	} {
		r := run(t, append([]string{args[0], args[1], "-address", addr}, args[2:]...)...)
		fmt.Printf("$ drover %v\n%s%s\n", args, r.stdout, r.stderr)
	}
	r := run(t, "operator", "snapshot", "save", "-address", addr, "/tmp/docs.snap")
	fmt.Println("EVAL", bigEval, r.stderr)
	_ = structs.DefaultNamespace
}
