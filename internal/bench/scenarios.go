package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// The scenarios of issue 7, item 4.
const (
	ManyJobs    = "a" // 1000 service jobs of count 10, 8 concurrent submitters
	BigJobs     = "b" // 10 jobs of count 1000
	OneHugeJob  = "c" // one job of count 50000
	StateMemory = "d" // heap bytes per node and per alloc in the state store
	EvalBacklog = "e" // 100000 pending evals for 1000 jobs, drained
	// Issue 16: a million allocs, and heartbeats of 10,000 nodes.
	MillionAllocs = "f" // 100 jobs of count 10000 on 10000 nodes: memory, snapshot
	Heartbeats    = "g" // every node heartbeats at the server's TTL: leader CPU
	// Issue 34: the HTTP read path.
	Reads = "r" // 200 jobs x 250 placed, then 20 HTTP clients of mixed reads for 20s
)

// Scenarios lists every scenario in table order.
var Scenarios = []string{ManyJobs, BigJobs, OneHugeJob, StateMemory, EvalBacklog, MillionAllocs, Heartbeats, Reads}

// waitTimeout bounds every wait of a run; a run that needs longer is
// broken. Placing a million allocs (f) gets placementBudget per alloc on
// top, since a loaded machine places only a few thousand a second.
const (
	waitTimeout     = 10 * time.Minute
	placementBudget = 3 * time.Millisecond
)

// Spec is one run: a scenario on a cluster of Nodes nodes.
type Spec struct {
	Scenario   string
	Nodes      int
	Jobs       int           // jobs registered
	Count      int           // allocs per job
	Submitters int           // goroutines registering jobs
	Evals      int           // backlog evals written (e)
	Window     time.Duration // heartbeats measured for this long (g)
	Servers    int           // servers: 1 is an in-memory dev server, more a real cluster
	// SerialPlans turns the plan applier's pipeline off, to measure it.
	SerialPlans bool
	// Schedulers is the scheduling workers per server; 0 means
	// numSchedulers (2, as on a 2-core server).
	Schedulers int
	// ReadGzip makes scenario r's clients ask for gzip, as the official
	// client does; they count the compressed bytes off the wire and do
	// not unzip them (nor decode the JSON, compressed or not): the load
	// measures the server.
	ReadGzip bool
	// ReadPage, if positive, makes scenario r's alloc and node listings
	// ask per_page=ReadPage, each client walking the pages with
	// next_token over its successive reads and starting over at the end.
	ReadPage int
	// HeapProfile, if set, is called once the run's state is in place and
	// its live heap measured, while the servers still hold it (drover
	// bench -memprofile writes the heap profile there).
	HeapProfile func() error
	// Measuring, if set, is called when a placing run's measured window
	// opens (a-c and f: the first job submitted, the nodes already registered)
	// and the function it returns when the window closes (drover bench
	// -cpuprofile-placing profiles only that window).
	Measuring func() (end func())
}

// DefaultSpec is the shape for a scenario; quick divides the work
// by ten so a whole table runs in seconds.
func DefaultSpec(scenario string, nodes int, quick bool) (Spec, error) {
	s := Spec{Scenario: scenario, Nodes: nodes, Submitters: 8}
	switch scenario {
	case ManyJobs:
		s.Jobs, s.Count = 1000, 10
	case BigJobs:
		s.Jobs, s.Count = 10, 1000
	case OneHugeJob:
		s.Jobs, s.Count = 1, 50_000
	case StateMemory:
		s.Jobs, s.Count = 10, 1000
	case EvalBacklog:
		s.Jobs, s.Count, s.Evals = 1000, 10, 100_000
	case MillionAllocs:
		s.Jobs, s.Count = 100, 10_000
	case Heartbeats:
		s.Window = 30 * time.Second
	case Reads:
		s.Jobs, s.Count, s.Window = 200, 250, 20*time.Second
	default:
		return s, fmt.Errorf("unknown scenario %q (want one of %v)", scenario, Scenarios)
	}
	if quick {
		s.shrink(10)
	}
	return s, nil
}

// shrink divides the work by f, keeping at least one job of one alloc.
func (s *Spec) shrink(f int) {
	if s.Jobs >= 10*f {
		s.Jobs /= f
	} else {
		s.Count = max(1, s.Count/f)
	}
	s.Evals /= f
	s.Window /= time.Duration(f)
}

// Result is what one run measured. Zero fields do not apply.
type Result struct {
	Spec
	Setup      time.Duration // starting the server and registering nodes
	Placements int           // allocs in the state store at the end
	Elapsed    time.Duration // first submit (or write) to the end
	PerSecond  float64       // placements (a-c) or evals drained (e) per second
	EvalP50    time.Duration // eval CreateTime -> ModifyTime of complete
	EvalP99    time.Duration
	Phases     EvalPhases // where the eval latency went (a-c, f)
	Processed  int        // backlog evals completed by a scheduler (e)
	Canceled   int        // backlog evals canceled by the broker as superseded (e)
	PerNode    float64
	PerAlloc   float64
	PerEval    float64
	// f: what holding the placed allocs costs.
	HeapBytes       int64 // live heap of the whole process after a GC
	RSSBytes        int64
	SnapshotBytes   int64
	SnapshotSave    time.Duration
	SnapshotRestore time.Duration
	// RestoreBaseHeapBytes is the live heap the restore started from,
	// with the placing server shut down (measureSnapshot).
	RestoreBaseHeapBytes int64
	// CPUCores is the process's CPU over the measured window, in cores (1 =
	// one core busy): in g the leader's, in a-c every server's and the
	// simulated nodes' together. Well under the machine's cores means the
	// run waits on latency (round trips, fsync), not on CPU.
	CPUCores float64
	// GCShare is the part of that CPU the garbage collector used (a-c),
	// by the runtime's estimate.
	GCShare    float64
	Heartbeats int // heartbeats answered in the window
	// Reads are r's figures per endpoint; PerSecond is reads/s over all,
	// EvalP50/EvalP99 the latency over all.
	Reads []ReadStat
	// ServerNames are a real cluster's pprof labels (server=NAME), leader
	// first.
	ServerNames []string
}

// Run runs one spec on a fresh cluster.
func Run(spec Spec) (*Result, error) {
	start := time.Now()
	c, err := startCluster(spec)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	res := &Result{Spec: spec, Setup: time.Since(start), ServerNames: c.ServerNames}
	switch spec.Scenario {
	case ManyJobs, BigJobs, OneHugeJob:
		err = runPlacement(c, res)
	case StateMemory:
		err = runMemory(c, res)
	case EvalBacklog:
		err = runBacklog(c, res)
	case MillionAllocs:
		err = runScale(c, res)
	case Heartbeats:
		err = runHeartbeats(c, res)
	case Reads:
		err = runReads(c, res)
	default:
		err = fmt.Errorf("unknown scenario %q", spec.Scenario)
	}
	if err != nil {
		return nil, fmt.Errorf("scenario %s, %d nodes: %w", spec.Scenario, spec.Nodes, err)
	}
	return res, nil
}

// Places reports whether a scenario has a placing window (runPlacement),
// the one Spec.Measuring brackets: a-c and f.
func Places(scenario string) bool {
	switch scenario {
	case ManyJobs, BigJobs, OneHugeJob, MillionAllocs:
		return true
	}
	return false
}

// runPlacement registers the spec's jobs from concurrent submitters and
// waits until every job's register eval is complete; the scheduler marks
// an eval complete only after its plan's allocs are committed.
func runPlacement(c *Cluster, res *Result) error {
	end := func() {}
	if res.Measuring != nil {
		end = res.Measuring()
	}
	startCPU, startGC, start := cpuTime(), gcCPUTime(), time.Now()
	evalIDs, err := submitJobs(c, res.Spec)
	if err != nil {
		end()
		return err
	}
	timeout := waitTimeout + time.Duration(res.Jobs*res.Count)*placementBudget
	evals, err := waitEvals(c.Srv.State(), evalIDs, timeout)
	end()
	if err != nil {
		return err
	}
	res.Elapsed = time.Since(start)
	cpu := cpuTime() - startCPU
	res.CPUCores = cpu.Seconds() / res.Elapsed.Seconds()
	if cpu > 0 {
		res.GCShare = min(1, float64(gcCPUTime()-startGC)/float64(cpu))
	}
	if res.Placements, err = countAllocs(c.Srv.State(), res.Jobs); err != nil {
		return err
	}
	if want := res.Jobs * res.Count; res.Placements != want {
		return fmt.Errorf("placed %d allocs, want %d", res.Placements, want)
	}
	res.PerSecond = float64(res.Placements) / res.Elapsed.Seconds()
	res.EvalP50, res.EvalP99 = evalLatency(evals)
	res.Phases = evalPhases(evals)
	return nil
}

func jobID(i int) string { return fmt.Sprintf("bench-job-%05d", i) }

// submitJobs registers spec.Jobs jobs from spec.Submitters goroutines and
// returns their register evals in job order.
func submitJobs(c *Cluster, spec Spec) ([]string, error) {
	evalIDs := make([]string, spec.Jobs)
	err := parallel(spec.Jobs, spec.Submitters, func(i int) error {
		reply, err := server.JobRegister.Call(context.Background(), c.Srv, &structs.JobRegisterArgs{Job: NewJob(jobID(i), spec.Count)})
		if err != nil {
			return fmt.Errorf("register %s: %w", jobID(i), err)
		}
		evalIDs[i] = reply.EvalID
		return nil
	})
	return evalIDs, err
}

// waitEvals waits until every eval is terminal and returns them. Evals
// finish roughly in submit order, so a cursor over the list makes each
// poll cost about one lookup instead of one per eval.
func waitEvals(st *state.StateStore, ids []string, timeout time.Duration) ([]*structs.Evaluation, error) {
	evals := make([]*structs.Evaluation, len(ids))
	next := 0
	err := waitUntil(timeout, time.Millisecond, func() bool {
		for ; next < len(ids); next++ {
			e, err := st.EvalByID(nil, ids[next])
			if err != nil || e == nil || !e.TerminalStatus() {
				return false
			}
			evals[next] = e
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("%d of %d evals done: %w", next, len(ids), err)
	}
	return evals, nil
}

// countAllocs counts the non-terminal allocs of the first n bench jobs.
func countAllocs(st *state.StateStore, n int) (int, error) {
	total := 0
	for i := range n {
		allocs, err := st.AllocsByJob(nil, structs.DefaultNamespace, jobID(i), false)
		if err != nil {
			return 0, err
		}
		for _, a := range allocs {
			if !a.TerminalStatus() {
				total++
			}
		}
	}
	return total, nil
}

// evalLatency is the p50 and p99 of create-to-modify time of completed
// evals: the worker stamps ModifyTime when it writes the final status.
func evalLatency(evals []*structs.Evaluation) (p50, p99 time.Duration) {
	var lat []time.Duration
	for _, e := range evals {
		if e.Status == structs.EvalStatusComplete {
			lat = append(lat, time.Duration(e.ModifyTime-e.CreateTime))
		}
	}
	return percentiles(lat)
}
