// Package mock holds the shared test fixtures: a node, a job, an alloc and
// an eval that are valid as they are, so a test states only what it
// changes. Every call returns a fresh object the caller may modify.
package mock

import (
	"github.com/drover-project/drover/internal/structs"
)

// Node is a ready, eligible client node in dc1 and the default pool:
// 4000 MHz over 4 cores, 8 GiB of memory, 100 GB of disk, linux, with
// healthy exec and docker drivers. It is canonicalized; the computed
// class is left for the server (or the test) to set.
func Node(id string) *structs.Node {
	n := &structs.Node{
		ID: id, SecretID: "secret-" + id, Name: "node-" + id, Datacenter: "dc1",
		NodePool: structs.DefaultNodePool, Status: structs.NodeStatusReady,
		SchedulingEligibility: structs.NodeSchedulingEligible,
		Attributes:            map[string]string{"kernel.name": "linux", "driver.exec": "1", "driver.docker": "1"},
		NodeResources: &structs.NodeResources{
			CPU:      structs.NodeCPUResources{CpuShares: 4000, TotalCpuCores: 4, ReservableCpuCores: []uint16{0, 1, 2, 3}},
			MemoryMB: 8192, DiskMB: 100_000,
		},
		Drivers: map[string]*structs.DriverInfo{
			"exec":   {Detected: true, Healthy: true},
			"docker": {Detected: true, Healthy: true},
		},
	}
	n.Canonicalize()
	return n
}

// Job is a service job in dc1 with one group "web" of count 1, whose one
// task "web" runs /bin/web with the exec driver and asks 500 MHz and
// 256 MB. It is canonicalized (Nomad's defaults filled in).
func Job(id string) *structs.Job {
	j := JobSpec(id)
	j.Canonicalize()
	return j
}

// JobSpec is Job as a client submits it, before the server canonicalizes
// it: a test may change its type or groups first and still get the
// defaults that follow from them when the job is registered. Its namespace
// is unset, so it is the request's.
func JobSpec(id string) *structs.Job {
	return &structs.Job{
		ID: id, Type: structs.JobTypeService,
		Datacenters: []string{"dc1"},
		TaskGroups: []*structs.TaskGroup{{
			Name: "web", Count: 1,
			Tasks: []*structs.Task{{
				Name: "web", Driver: "exec", Config: map[string]any{"command": "/bin/web"},
				Resources: &structs.Resources{CPU: 500, MemoryMB: 256},
			}},
		}},
	}
}

// Alloc is alloc id of job's first group (index 0) on nodeID, desired to
// run and not yet started, holding each task's cpu and memory.
func Alloc(id string, job *structs.Job, nodeID string) *structs.Allocation {
	tg := job.TaskGroups[0]
	tasks := map[string]*structs.AllocatedTaskResources{}
	for _, task := range tg.Tasks {
		res := &structs.AllocatedTaskResources{}
		if task.Resources != nil {
			res.CpuShares, res.MemoryMB = int64(task.Resources.CPU), int64(task.Resources.MemoryMB)
		}
		tasks[task.Name] = res
	}
	return &structs.Allocation{
		ID: id, Namespace: job.Namespace, EvalID: "eval-" + id, Name: structs.AllocName(job.ID, tg.Name, 0),
		NodeID: nodeID, JobID: job.ID, Job: job, TaskGroup: tg.Name,
		AllocatedResources: &structs.AllocatedResources{Tasks: tasks},
		DesiredStatus:      structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusPending,
	}
}

// Eval is a pending eval of job with the given trigger.
func Eval(id string, job *structs.Job, trigger string) *structs.Evaluation {
	return &structs.Evaluation{
		ID: id, Namespace: job.Namespace, Priority: job.Priority, Type: job.Type,
		TriggeredBy: trigger, JobID: job.ID, Status: structs.EvalStatusPending,
	}
}
