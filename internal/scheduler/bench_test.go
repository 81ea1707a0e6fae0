package scheduler

import (
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// benchPlanner accepts every plan without applying it: the benchmark
// measures the scheduler, not the state store.
type benchPlanner struct{ plan *structs.Plan }

func (p *benchPlanner) SubmitPlan(plan *structs.Plan) (*structs.PlanResult, State, error) {
	p.plan = plan
	return &structs.PlanResult{NodeAllocation: plan.NodeAllocation, NodeUpdate: plan.NodeUpdate}, nil, nil
}
func (p *benchPlanner) UpdateEval(*structs.Evaluation) error  { return nil }
func (p *benchPlanner) CreateEval(*structs.Evaluation) error  { return nil }
func (p *benchPlanner) ReblockEval(*structs.Evaluation) error { return nil }

const benchRacks = 50

// benchCluster builds Nomad's BenchmarkServiceScheduler shape: nodes over
// dc-1/dc-2, meta rack = r(i mod racks), 4 x 3500 MHz, 32000 MB, 100 GiB.
func benchCluster(b testing.TB, nodes int) *harness {
	h := newHarness(b)
	for i := 0; i < nodes; i++ {
		n := &structs.Node{
			ID: fmt.Sprintf("bench-%05d", i), Name: fmt.Sprintf("bench-%05d", i),
			Datacenter: fmt.Sprintf("dc-%d", i%2+1),
			Attributes: map[string]string{"kernel.name": "linux"},
			Meta:       map[string]string{"rack": fmt.Sprintf("r%d", i%benchRacks)},
			NodeResources: &structs.NodeResources{
				CPU:      structs.NodeCPUResources{CpuShares: 14000, TotalCpuCores: 4},
				MemoryMB: 32000, DiskMB: 100 * 1024,
			},
			Drivers: map[string]*structs.DriverInfo{"exec": {Detected: true, Healthy: true}},
			Status:  structs.NodeStatusReady,
		}
		n.Canonicalize()
		n.ComputedClass = ComputeClass(n)
		h.upsertNode(n)
	}
	return h
}

func benchJob(count int, spread bool) *structs.Job {
	var racks string
	for i := 0; i < benchRacks/2; i++ {
		if i > 0 {
			racks += ","
		}
		racks += fmt.Sprintf("r%d", i)
	}
	j := &structs.Job{
		ID: "bench", Namespace: structs.DefaultNamespace, Type: structs.JobTypeService,
		Datacenters: []string{"dc-1", "dc-2"},
		Constraints: []*structs.Constraint{{LTarget: "${meta.rack}", RTarget: racks, Operand: structs.ConstraintSetContainsAny}},
		TaskGroups: []*structs.TaskGroup{{
			Name: "web", Count: count,
			Tasks: []*structs.Task{{Name: "web", Driver: "exec", Resources: &structs.Resources{CPU: 6000, MemoryMB: 6000}}},
		}},
	}
	if spread {
		j.Spreads = []*structs.Spread{{Attribute: "${meta.rack}"}}
	}
	j.Canonicalize()
	return j
}

func BenchmarkServiceScheduler(b *testing.B) {
	for _, nodes := range []int{1000, 5000, 10000} {
		for _, count := range []int{300, 600, 1200} {
			for _, spread := range []bool{false, true} {
				name := fmt.Sprintf("nodes=%d/allocs=%d/spread=%v", nodes, count, spread)
				b.Run(name, func(b *testing.B) { benchService(b, nodes, count, spread) })
			}
		}
	}
}

func benchService(b *testing.B, nodes, count int, spread bool) {
	h := benchCluster(b, nodes)
	job := h.upsertJob(benchJob(count, spread))
	snap := h.store.Snapshot()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	p := &benchPlanner{}
	service := Builtins(Deps{})[structs.JobTypeService]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e := mockEval(job, structs.EvalTriggerJobRegister)
		if err := service(log, snap, p).Process(e); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	placed := reportQuality(b, p.plan, spread)
	b.ReportMetric(float64(placed)*float64(b.N)/b.Elapsed().Seconds(), "placements/s")
}

// reportQuality reports nodes used (packing) and the rack imbalance
// (max - min allocs per used rack) of the last plan.
func reportQuality(b *testing.B, p *structs.Plan, spread bool) int {
	placed := 0
	perRack := map[string]int{}
	for _, allocs := range p.NodeAllocation {
		placed += len(allocs)
		for _, a := range allocs {
			var idx int
			fmt.Sscanf(a.NodeID, "bench-%05d", &idx)
			perRack[fmt.Sprintf("r%d", idx%benchRacks)]++
		}
	}
	b.ReportMetric(float64(placed), "placed")
	b.ReportMetric(float64(len(p.NodeAllocation)), "nodes-used")
	if spread {
		lo, hi := placed, 0
		for _, c := range perRack {
			lo, hi = min(lo, c), max(hi, c)
		}
		b.ReportMetric(float64(hi-lo), "rack-imbalance")
		b.ReportMetric(float64(len(perRack)), "racks-used")
	}
	return placed
}

// BenchmarkServiceSchedulerBusy is BenchmarkServiceScheduler's shape
// (5,000 nodes, 600 allocs, no spread) on a cluster that already runs
// 10 allocs of another job on every node (a fifth of each node's CPU and
// memory), so ranking a node reads what is placed on it.
func BenchmarkServiceSchedulerBusy(b *testing.B) {
	const nodes, count, perNode = 5000, 600, 10
	h := benchCluster(b, nodes)
	other := benchJob(nodes*perNode, false)
	other.ID, other.Constraints = "busy", nil
	other = h.upsertJob(other)
	allocs := make([]*structs.Allocation, 0, nodes*perNode)
	for i := 0; i < nodes; i++ {
		for k := 0; k < perNode; k++ {
			allocs = append(allocs, &structs.Allocation{
				ID: fmt.Sprintf("busy-%05d-%02d", i, k), Namespace: other.Namespace, JobID: other.ID, Job: other,
				TaskGroup: "web", NodeID: fmt.Sprintf("bench-%05d", i), Name: structs.AllocName(other.ID, "web", uint(i*perNode+k)),
				DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
				AllocatedResources: &structs.AllocatedResources{Tasks: map[string]*structs.AllocatedTaskResources{
					"web": {CpuShares: 280, MemoryMB: 640}}},
			})
		}
	}
	h.must(h.store.UpsertAllocs(h.next(), allocs))
	job := h.upsertJob(benchJob(count, false))
	snap := h.store.Snapshot()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	p := &benchPlanner{}
	service := Builtins(Deps{})[structs.JobTypeService]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := service(log, snap, p).Process(mockEval(job, structs.EvalTriggerJobRegister)); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	placed := reportQuality(b, p.plan, false)
	b.ReportMetric(float64(placed)*float64(b.N)/b.Elapsed().Seconds(), "placements/s")
}
