package scheduler

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

var rewritePlans = flag.Bool("rewrite-plans", false, "rewrite testdata/plans.golden from the current scheduler")

// goldenSeeds is how many random clusters TestPlanGolden runs.
const goldenSeeds = 40

// TestPlanGolden pins the scheduler's decisions: seeded random clusters
// (ports, host networks, reserved ports and cores, classes, down, draining
// and ineligible nodes) and jobs (service, batch and system; constraints
// answered per class and per node, distinct_*, affinities, spreads with
// and without targets, preemption) are registered, scaled, updated, moved
// off failed nodes, rescheduled and stopped through the schedulers, and
// every plan and eval they write is compared with testdata/plans.golden,
// recorded before the scheduler's placement path was optimised: readable
// lines for each placement (node, ports, cores, score) and stop, and a
// hash of the JSON of everything written (every alloc field, the metrics
// with their score metadata, the evals with their failed-group metrics
// and class eligibility). Rewrite with -rewrite-plans only for an
// intended change of behaviour.
func TestPlanGolden(t *testing.T) {
	var out bytes.Buffer
	for seed := uint64(1); seed <= goldenSeeds; seed++ {
		runPlanScenario(t, seed, &out)
	}
	for _, shape := range []struct {
		nodes, count int
		spread, busy bool
	}{{1000, 300, false, false}, {1000, 300, true, false}, {1000, 300, false, true}, {5000, 600, false, false}} {
		runBenchShape(t, shape.nodes, shape.count, shape.spread, shape.busy, &out)
	}
	path := filepath.Join("testdata", "plans.golden")
	if *rewritePlans {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := out.Bytes()
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			ctx := ""
			for j := i; j >= 0 && j < len(wl); j-- {
				if strings.HasPrefix(wl[j], "eval ") || strings.HasPrefix(wl[j], "seed ") {
					ctx = wl[j]
					break
				}
			}
			t.Fatalf("plans differ from testdata/plans.golden at line %d (in %q):\n got %q\nwant %q", i+1, ctx, g, w)
		}
	}
}

// planScenario is one seeded cluster and its jobs.
type planScenario struct {
	t    *testing.T
	h    *harness
	rng  *rand.Rand
	seed uint64
	ids  int
	evs  int
	out  *bytes.Buffer
	deps Deps
	jobs []*structs.Job
}

func runPlanScenario(t *testing.T, seed uint64, out *bytes.Buffer) {
	s := &planScenario{t: t, h: newHarness(t), rng: rand.New(rand.NewPCG(seed, 77)), seed: seed, out: out}
	s.deps = Deps{
		Now:       func() time.Time { return s.h.now },
		NewID:     func() string { s.ids++; return fmt.Sprintf("s%02d-id-%05d", seed, s.ids) },
		Stopwatch: func() func() time.Duration { return func() time.Duration { return 0 } },
	}
	r := s.rng
	cfg := structs.DefaultSchedulerConfiguration()
	if r.IntN(4) == 0 {
		cfg.SchedulerAlgorithm = structs.SchedulerAlgorithmSpread
	}
	cfg.PreemptionConfig.ServiceSchedulerEnabled = r.IntN(3) == 0
	cfg.PreemptionConfig.BatchSchedulerEnabled = r.IntN(4) == 0
	cfg.MemoryOversubscriptionEnabled = r.IntN(3) == 0
	s.h.must(s.h.store.SchedulerSetConfig(s.h.next(), cfg))
	nodes := []int{6, 25, 80, 250}[r.IntN(4)]
	fmt.Fprintf(out, "seed %d nodes=%d algorithm=%q preempt=%v\n", seed, nodes, cfg.SchedulerAlgorithm, cfg.PreemptionConfig.ServiceSchedulerEnabled)
	for i := range nodes {
		s.h.upsertNode(s.node(i))
	}
	for i := range 2 + r.IntN(5) {
		s.jobs = append(s.jobs, s.job(i))
	}
	for _, j := range s.jobs {
		s.eval(s.h.upsertJob(j), structs.EvalTriggerJobRegister)
		s.runSome()
	}
	for range 3 + r.IntN(4) {
		j := s.jobs[r.IntN(len(s.jobs))]
		stored, err := s.h.store.JobByID(nil, j.Namespace, j.ID)
		s.h.must(err)
		if stored == nil || stored.Stop {
			continue
		}
		switch r.IntN(6) {
		case 0: // scale
			v := stored.Copy()
			tg := v.TaskGroups[r.IntN(len(v.TaskGroups))]
			if v.Type != structs.JobTypeSystem {
				tg.Count = max(0, tg.Count+r.IntN(21)-10)
			}
			s.eval(s.h.upsertJob(v), structs.EvalTriggerJobRegister)
		case 1: // destructive update
			v := stored.Copy()
			v.TaskGroups[0].Tasks[0].Env = map[string]string{"V": fmt.Sprint(r.IntN(1000))}
			s.eval(s.h.upsertJob(v), structs.EvalTriggerJobRegister)
		case 2: // a node with allocs goes down
			live := s.h.liveAllocs(stored)
			if len(live) == 0 {
				continue
			}
			node := live[r.IntN(len(live))].NodeID
			s.h.must(s.h.store.UpdateNodeStatus(s.h.next(), node, structs.NodeStatusDown, s.h.now.UnixNano(), nil))
			s.eval(stored, structs.EvalTriggerNodeUpdate)
		case 3: // some allocs fail
			live := s.h.liveAllocs(stored)
			var failed []*structs.Allocation
			for _, a := range live {
				if r.IntN(3) == 0 {
					c := a.CopySkipJob()
					c.ClientStatus = structs.AllocClientStatusFailed
					failed = append(failed, c)
				}
			}
			if len(failed) == 0 {
				continue
			}
			s.h.must(s.h.store.UpdateAllocsFromClient(s.h.next(), failed))
			s.h.now = s.h.now.Add(time.Duration(r.IntN(120)) * time.Second)
			s.eval(stored, structs.EvalTriggerRetryFailedAlloc)
		case 4: // stop
			v := stored.Copy()
			v.Stop = true
			s.eval(s.h.upsertJob(v), structs.EvalTriggerJobDeregister)
		case 5: // a new node joins and every job is looked at again
			n := s.node(nodes + s.evs)
			s.h.upsertNode(n)
			s.eval(stored, structs.EvalTriggerNodeUpdate)
		}
		s.runSome()
	}
}

// runSome marks a random part of the live allocs running.
func (s *planScenario) runSome() {
	for _, j := range s.jobs {
		var up []*structs.Allocation
		for _, a := range s.h.liveAllocs(j) {
			if a.ClientStatus == structs.AllocClientStatusPending && s.rng.IntN(2) == 0 {
				c := a.CopySkipJob()
				c.ClientStatus = structs.AllocClientStatusRunning
				up = append(up, c)
			}
		}
		if len(up) > 0 {
			s.h.must(s.h.store.UpdateAllocsFromClient(s.h.next(), up))
		}
	}
}

func (s *planScenario) node(i int) *structs.Node {
	r := s.rng
	id := fmt.Sprintf("n%02d-%04d", s.seed, i)
	cores := uint16(2 + r.IntN(15))
	mhz := int64(1000 + 500*r.IntN(6))
	n := &structs.Node{
		ID: id, SecretID: "secret-" + id, Name: id,
		Datacenter: fmt.Sprintf("dc%d", 1+min(r.IntN(4), 2)),
		NodePool:   structs.DefaultNodePool,
		NodeClass:  []string{"", "", "small", "big"}[r.IntN(4)],
		Status:     structs.NodeStatusReady, SchedulingEligibility: structs.NodeSchedulingEligible,
		Attributes: map[string]string{
			"kernel.name": "linux", "os.version": []string{"20.04", "22.04", "24.04"}[r.IntN(3)],
			"unique.hostname": id, "cpu.arch": []string{"amd64", "arm64"}[r.IntN(4)/3],
		},
		Meta: map[string]string{"rack": fmt.Sprintf("r%d", r.IntN(10)), "zone": fmt.Sprintf("z%d", r.IntN(3))},
		NodeResources: &structs.NodeResources{
			CPU:      structs.NodeCPUResources{CpuShares: mhz * int64(cores), TotalCpuCores: cores},
			MemoryMB: int64(2048 * (1 + r.IntN(16))), DiskMB: int64(10240 * (1 + r.IntN(10))),
			Networks: []*structs.NetworkResource{{Device: "eth0", IP: fmt.Sprintf("10.%d.%d.%d", s.seed, i/250, i%250+1)}},
		},
		Drivers: map[string]*structs.DriverInfo{"exec": {Detected: true, Healthy: true}},
	}
	if r.IntN(3) > 0 {
		n.Drivers["docker"] = &structs.DriverInfo{Detected: true, Healthy: r.IntN(5) > 0}
	}
	if r.IntN(3) == 0 {
		for c := uint16(0); c < cores; c += 2 {
			n.NodeResources.CPU.ReservableCpuCores = append(n.NodeResources.CPU.ReservableCpuCores, c)
		}
	}
	if r.IntN(4) == 0 {
		n.NodeResources.MinDynamicPort, n.NodeResources.MaxDynamicPort = 20000, 20000+r.IntN(6)
	}
	if r.IntN(4) == 0 {
		n.ReservedResources = &structs.NodeReservedResources{CpuShares: 500, MemoryMB: 512, ReservedPorts: "22,8080-8081"}
	}
	if r.IntN(4) == 0 {
		n.HostNetworks = map[string]*structs.ClientHostNetworkConfig{
			"public": {Name: "public", CIDR: "192.168.0.0/16", ReservedPorts: "9000", Addresses: []string{fmt.Sprintf("192.168.%d.%d", i/250, i%250+1)}},
		}
	}
	switch r.IntN(20) {
	case 0:
		n.Status = structs.NodeStatusDown
	case 1:
		n.DrainStrategy = &structs.DrainStrategy{Deadline: time.Hour}
		n.SchedulingEligibility = structs.NodeSchedulingIneligible
	case 2:
		n.SchedulingEligibility = structs.NodeSchedulingIneligible
	}
	n.Canonicalize()
	if r.IntN(3) > 0 {
		n.ComputedClass = ComputeClass(n)
	}
	return n
}

func (s *planScenario) job(i int) *structs.Job {
	r := s.rng
	j := &structs.Job{
		ID: fmt.Sprintf("job-%d", i), Namespace: structs.DefaultNamespace, Type: structs.JobTypeService,
		Priority: 30 + 10*r.IntN(7), Datacenters: []string{"dc1", "dc2", "dc3"},
	}
	switch k := r.IntN(20); {
	case k < 5:
		j.Type = structs.JobTypeBatch
	case k < 8:
		j.Type = structs.JobTypeSystem
	}
	if r.IntN(4) == 0 {
		j.Datacenters = []string{"dc1", "dc2*"}[:1+r.IntN(2)]
	}
	if r.IntN(3) == 0 {
		var racks []string
		for k := range 10 {
			if r.IntN(2) == 0 {
				racks = append(racks, fmt.Sprintf("r%d", k))
			}
		}
		j.Constraints = append(j.Constraints, &structs.Constraint{LTarget: "${meta.rack}", RTarget: strings.Join(append(racks, "r0"), ","), Operand: structs.ConstraintSetContainsAny})
	}
	if r.IntN(6) == 0 {
		j.Constraints = append(j.Constraints, &structs.Constraint{LTarget: "${attr.os.version}", RTarget: ">= 21.0", Operand: structs.ConstraintVersion})
	}
	if r.IntN(3) == 0 {
		w := int8(r.IntN(201) - 100)
		if w == 0 {
			w = 50
		}
		j.Affinities = append(j.Affinities, &structs.Affinity{LTarget: []string{"${meta.zone}", "${node.class}", "${attr.unique.hostname}"}[r.IntN(3)], RTarget: []string{"z1", "big", "n"}[r.IntN(3)], Operand: []string{"=", "!=", "regexp"}[r.IntN(3)], Weight: w})
	}
	if j.Type != structs.JobTypeSystem && r.IntN(3) == 0 {
		sp := &structs.Spread{Attribute: []string{"${meta.rack}", "${node.datacenter}", "${meta.zone}"}[r.IntN(3)], Weight: int8(10 + r.IntN(90))}
		if r.IntN(2) == 0 {
			sp.Attribute = "${meta.zone}"
			sp.SpreadTarget = []*structs.SpreadTarget{{Value: "z0", Percent: 50}, {Value: "z1", Percent: uint8(r.IntN(40))}}
		}
		j.Spreads = append(j.Spreads, sp)
	}
	for g := range 1 + r.IntN(2) {
		tg := &structs.TaskGroup{Name: fmt.Sprintf("g%d", g), Count: 1 + r.IntN(40)}
		if r.IntN(4) == 0 {
			tg.Count = 1 + r.IntN(3)
		}
		for k := range 1 + r.IntN(2) {
			res := &structs.Resources{CPU: 100 * (1 + r.IntN(30)), MemoryMB: 128 * (1 + r.IntN(24))}
			if r.IntN(7) == 0 {
				res.CPU, res.Cores = 0, 1+r.IntN(2)
			}
			if r.IntN(4) == 0 {
				res.MemoryMaxMB = res.MemoryMB * 2
			}
			task := &structs.Task{Name: fmt.Sprintf("t%d", k), Driver: []string{"exec", "exec", "docker"}[r.IntN(3)], Resources: res}
			tg.Tasks = append(tg.Tasks, task)
		}
		if r.IntN(3) == 0 {
			nr := &structs.NetworkResource{Mode: "host"}
			for p := range 1 + r.IntN(2) {
				nr.DynamicPorts = append(nr.DynamicPorts, structs.Port{Label: fmt.Sprintf("d%d", p)})
			}
			if r.IntN(3) == 0 {
				nr.ReservedPorts = append(nr.ReservedPorts, structs.Port{Label: "static", Value: []int{8080, 8500, 9000}[r.IntN(3)]})
			}
			if r.IntN(4) == 0 {
				nr.DynamicPorts[0].HostNetwork = "public"
			}
			tg.Networks = []*structs.NetworkResource{nr}
		}
		switch r.IntN(10) {
		case 0:
			tg.Constraints = append(tg.Constraints, &structs.Constraint{Operand: structs.ConstraintDistinctHosts})
		case 1:
			tg.Constraints = append(tg.Constraints, &structs.Constraint{LTarget: "${meta.rack}", Operand: structs.ConstraintDistinctProperty, RTarget: fmt.Sprint(1 + r.IntN(3))})
		case 2:
			tg.Constraints = append(tg.Constraints, &structs.Constraint{LTarget: "${attr.unique.hostname}", Operand: structs.ConstraintRegex, RTarget: "[02468]$"})
		case 3:
			tg.Constraints = append(tg.Constraints, &structs.Constraint{LTarget: "${attr.cpu.arch}", Operand: "=", RTarget: "amd64"})
		}
		if r.IntN(5) == 0 {
			tg.EphemeralDisk = &structs.EphemeralDisk{SizeMB: 300 * (1 + r.IntN(20))}
		}
		if r.IntN(5) == 0 {
			tg.Affinities = append(tg.Affinities, &structs.Affinity{LTarget: "${attr.os.version}", RTarget: "22.04", Operand: "=", Weight: 70})
		}
		j.TaskGroups = append(j.TaskGroups, tg)
	}
	j.Canonicalize()
	return j
}

// eval processes an eval of job and writes what it produced.
func (s *planScenario) eval(job *structs.Job, trigger string) {
	s.evs++
	e := &structs.Evaluation{
		ID: fmt.Sprintf("s%02d-e%03d", s.seed, s.evs), Namespace: job.Namespace, Priority: job.Priority, Type: job.Type,
		TriggeredBy: trigger, JobID: job.ID, JobModifyIndex: job.JobModifyIndex, Status: structs.EvalStatusPending,
		CreateTime: s.h.now.UnixNano(), ModifyTime: s.h.now.UnixNano(),
	}
	s.h.must(s.h.store.UpsertEvals(s.h.next(), []*structs.Evaluation{e}))
	plans, updated, created, reblock := len(s.h.plans), len(s.h.updated), len(s.h.created), len(s.h.reblock)
	s.h.pendingFinal = nil
	f := Builtins(s.deps)[e.Type]
	before := s.h.store.Snapshot()
	s.h.must(f(nil, before, s.h).Process(e))
	written := struct {
		Plans                     []goldenPlan
		Updated, Created, Reblock []*structs.Evaluation
	}{Updated: s.h.updated[updated:], Created: s.h.created[created:], Reblock: s.h.reblock[reblock:]}
	for _, p := range s.h.plans[plans:] {
		written.Plans = append(written.Plans, newGoldenPlan(s.t, p, before))
	}
	b, err := json.Marshal(written)
	s.h.must(err)
	if d := os.Getenv("PLAN_DUMP"); d != "" {
		os.WriteFile(filepath.Join(d, e.ID+".json"), b, 0o644)
	}
	fmt.Fprintf(s.out, "eval %s %s %s %s plans=%d sha256=%x\n", e.ID, job.Type, job.ID, trigger, len(s.h.plans)-plans, sha256.Sum256(b))
	for _, p := range s.h.plans[plans:] {
		var lines []string
		for _, allocs := range p.NodeAllocation {
			for _, a := range allocs {
				stored, err := before.AllocByID(nil, a.ID)
				s.h.must(err)
				lines = append(lines, "  place "+placementLine(a, stored == nil))
			}
		}
		for node, allocs := range p.NodeUpdate {
			for _, a := range allocs {
				lines = append(lines, fmt.Sprintf("  stop %s %s on %s: %s", a.ID, a.Name, node, a.DesiredDescription))
			}
		}
		for node, allocs := range p.NodePreemptions {
			for _, a := range allocs {
				lines = append(lines, fmt.Sprintf("  preempt %s %s on %s", a.ID, a.Name, node))
			}
		}
		slices.Sort(lines)
		for _, l := range lines {
			fmt.Fprintln(s.out, l)
		}
	}
	for _, u := range written.Updated {
		var failed []string
		for tg, m := range u.FailedTGAllocs {
			failed = append(failed, fmt.Sprintf("%s(eval=%d filt=%d exh=%d coal=%d)", tg, m.NodesEvaluated, m.NodesFiltered, m.NodesExhausted, m.CoalescedFailures))
		}
		slices.Sort(failed)
		fmt.Fprintf(s.out, "  status %s queued=%v failed=%v\n", u.Status, u.QueuedAllocations, failed)
	}
}

// placementLine is an alloc's name, node, ports, cores and, for a new
// one, best score.
func placementLine(a *structs.Allocation, placed bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s -> %s", a.ID, a.Name, a.NodeID)
	if ar := a.AllocatedResources; ar != nil {
		for _, p := range ar.Shared.Ports {
			fmt.Fprintf(&b, " %s=%s:%d", p.Label, p.HostIP, p.Value)
		}
		for _, name := range sortedKeys(ar.Tasks) {
			if c := ar.Tasks[name].ReservedCores; len(c) > 0 {
				fmt.Fprintf(&b, " cores[%s]=%v", name, c)
			}
			for _, nw := range ar.Tasks[name].Networks {
				for _, p := range append(append([]structs.Port{}, nw.ReservedPorts...), nw.DynamicPorts...) {
					fmt.Fprintf(&b, " %s.%s=%s:%d", name, p.Label, nw.IP, p.Value)
				}
			}
		}
	}
	if m := a.Metrics; placed && m != nil && len(m.ScoreMetaData) > 0 {
		fmt.Fprintf(&b, " score=%v eval=%d", m.ScoreMetaData[0].NormScore, m.NodesEvaluated)
	}
	return b.String()
}

// goldenPlan is a plan with its job and the allocs' jobs left out (the
// job is the stored one; its JSON would dwarf the rest), and so are the
// stored metrics of the allocs it stops, preempts or updates in place.
type goldenPlan struct {
	EvalID                                      string
	Priority                                    int
	AllAtOnce                                   bool
	JobID                                       string
	NodeUpdate, NodeAllocation, NodePreemptions map[string][]*structs.Allocation
	Annotations                                 *structs.PlanAnnotations
	Deployment                                  *structs.Deployment
	DeploymentUpdates                           []*structs.DeploymentStatusUpdate
	SnapshotIndex                               uint64
	FinalEval                                   *structs.Evaluation
}

func newGoldenPlan(t *testing.T, p *structs.Plan, before State) goldenPlan {
	strip1 := func(a *structs.Allocation) *structs.Allocation {
		c := *a
		c.Job = nil
		// The store keeps one metric per group and write, the last the
		// harness wrote, in its map order: stored metrics (of stops,
		// preemptions and in-place updates) are left out.
		stored, err := before.AllocByID(nil, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if stored != nil {
			c.Metrics = nil
		}
		return &c
	}
	strip := func(m map[string][]*structs.Allocation) map[string][]*structs.Allocation {
		if m == nil {
			return nil
		}
		out := map[string][]*structs.Allocation{}
		for node, allocs := range m {
			for _, a := range allocs {
				out[node] = append(out[node], strip1(a))
			}
		}
		return out
	}
	g := goldenPlan{
		EvalID: p.EvalID, Priority: p.Priority, AllAtOnce: p.AllAtOnce,
		NodeUpdate: strip(p.NodeUpdate), NodeAllocation: strip(p.NodeAllocation), NodePreemptions: strip(p.NodePreemptions), Deployment: p.Deployment, DeploymentUpdates: p.DeploymentUpdates,
		SnapshotIndex: p.SnapshotIndex, FinalEval: p.FinalEval,
	}
	if p.Job != nil {
		g.JobID = p.Job.ID
	}
	if an := p.Annotations; an != nil {
		g.Annotations = &structs.PlanAnnotations{DesiredTGUpdates: an.DesiredTGUpdates}
		for _, a := range an.PreemptedAllocs {
			g.Annotations.PreemptedAllocs = append(g.Annotations.PreemptedAllocs, strip1(a))
		}
	}
	return g
}

// runBenchShape runs BenchmarkServiceScheduler's (and, busy, ...Busy's)
// cluster and job once and writes the plan like runPlanScenario.
func runBenchShape(t *testing.T, nodes, count int, spread, busy bool, out *bytes.Buffer) {
	h := benchCluster(t, nodes)
	if busy {
		other := benchJob(nodes*2, false)
		other.ID, other.Constraints = "busy", nil
		other = h.upsertJob(other)
		var allocs []*structs.Allocation
		for i := range nodes {
			for k := range 2 {
				allocs = append(allocs, &structs.Allocation{
					ID: fmt.Sprintf("busy-%05d-%02d", i, k), Namespace: other.Namespace, JobID: other.ID, Job: other,
					TaskGroup: "web", NodeID: fmt.Sprintf("bench-%05d", i), Name: structs.AllocName(other.ID, "web", uint(i*2+k)),
					DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
					AllocatedResources: &structs.AllocatedResources{Tasks: map[string]*structs.AllocatedTaskResources{
						"web": {CpuShares: int64(280 * (1 + i%5)), MemoryMB: int64(640 * (1 + i%3))}}},
				})
			}
		}
		h.must(h.store.UpsertAllocs(h.next(), allocs))
	}
	job := h.upsertJob(benchJob(count, spread))
	ids := 0
	s := &planScenario{t: t, h: h, seed: uint64(nodes), out: out, deps: Deps{
		Now:       func() time.Time { return h.now },
		NewID:     func() string { ids++; return fmt.Sprintf("bench-id-%05d", ids) },
		Stopwatch: func() func() time.Duration { return func() time.Duration { return 0 } },
	}}
	fmt.Fprintf(out, "bench nodes=%d count=%d spread=%v busy=%v\n", nodes, count, spread, busy)
	s.eval(job, structs.EvalTriggerJobRegister)
}
