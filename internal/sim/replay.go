package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// ReplayOptions tune a replay.
type ReplayOptions struct {
	// Seed names the IDs the scheduler makes, as the simulator's seed
	// does: the simulator's scheduler IDs derive from the seed and the
	// eval, so a simulated eval replayed with its run's seed gets its
	// original IDs back.
	Seed int64
	// SchedulerConfig replaces the snapshot's scheduler configuration, to
	// see what another configuration would decide.
	SchedulerConfig *structs.SchedulerConfiguration
}

// ReplayResult is what the scheduler decided for the eval.
type ReplayResult struct {
	Eval    *structs.Evaluation   // as handed to the scheduler
	Plans   []*structs.Plan       // every plan it submitted
	Final   *structs.Evaluation   // the eval as it would be written
	Created []*structs.Evaluation // follow-up evals it would write
}

// Replay restores an operator snapshot (drover operator snapshot save)
// into a scratch state store, rolls it back to the eval's snapshot index
// and runs the eval through the built-in scheduler of its type, nothing
// written. The rollback hides every alloc created after that index (the
// eval's own placements among them), shows allocs stopped since as they
// were (desired run; complete or lost client status as running), and the
// job at the version the eval saw. Nodes are as the snapshot has them:
// the replay is exact when no node changed since the eval ran.
func Replay(snapshot io.Reader, evalID string, opts ReplayOptions) (*ReplayResult, error) {
	_, payload, err := server.SpoolSnapshot(snapshot, server.MaxSnapshotBytes)
	if err != nil {
		return nil, err
	}
	defer os.Remove(payload.Name())
	defer payload.Close()
	store, err := state.NewStateStore()
	if err != nil {
		return nil, err
	}
	if err := store.Restore(payload); err != nil {
		return nil, fmt.Errorf("replay: restore: %w", err)
	}
	snap := store.Snapshot()
	eval, err := snap.EvalByID(nil, evalID)
	if err != nil {
		return nil, err
	}
	if eval == nil {
		return nil, fmt.Errorf("replay: no evaluation %q in the snapshot", evalID)
	}
	at := eval.SnapshotIndex
	if own, err := snap.AllocsByEval(nil, eval.ID); err == nil {
		for _, a := range own {
			if at == 0 || a.CreateIndex <= at {
				at = a.CreateIndex - 1
			}
		}
	}
	if at == 0 {
		return nil, fmt.Errorf("replay: evaluation %s records no snapshot index (it never ran)", eval.ID)
	}
	view := &rollback{State: snap, at: at, cfg: opts.SchedulerConfig}
	if job, err := snap.JobByID(nil, eval.Namespace, eval.JobID); err == nil && job != nil && job.JobModifyIndex != eval.JobModifyIndex {
		versions, err := snap.JobVersionsByID(nil, eval.Namespace, eval.JobID)
		if err != nil {
			return nil, err
		}
		for _, v := range versions {
			if v.JobModifyIndex == eval.JobModifyIndex {
				view.job = v
			}
		}
	}
	in := eval.Copy()
	in.Status = structs.EvalStatusPending
	if in.TriggeredBy == structs.EvalTriggerQueuedAllocs {
		in.Status = structs.EvalStatusBlocked
	}
	in.StatusDescription, in.FailedTGAllocs, in.QueuedAllocations, in.BlockedEval, in.NextEval = "", nil, nil, "", ""
	in.Timeline, in.SnapshotIndex = nil, 0
	ids := newIDSource(opts.Seed)
	factory, ok := scheduler.Builtins(scheduler.Deps{
		Now:       func() time.Time { return time.Unix(0, eval.ModifyTime).UTC() },
		NewID:     ids.forEval(eval.ID),
		Stopwatch: func() func() time.Duration { return func() time.Duration { return 0 } },
	})[eval.Type]
	if !ok {
		return nil, fmt.Errorf("replay: no scheduler for eval type %q", eval.Type)
	}
	rec := &replayPlanner{}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := factory(quiet, view, rec).Process(in); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return &ReplayResult{Eval: in, Plans: rec.plans, Final: rec.final, Created: rec.created}, nil
}

// JSON is the result as indented JSON, the same bytes for the same
// snapshot, eval and seed.
func (r *ReplayResult) JSON() ([]byte, error) { return json.MarshalIndent(r, "", "  ") }

// rollback is a snapshot as an eval saw it at index at.
type rollback struct {
	scheduler.State
	at  uint64
	job *structs.Job // the version the eval saw, when the job changed since
	cfg *structs.SchedulerConfiguration
}

func (r *rollback) LatestIndex() uint64 { return r.at }

func (r *rollback) SchedulerConfig(ws memdb.WatchSet) (*structs.SchedulerConfiguration, error) {
	if r.cfg != nil {
		return r.cfg, nil
	}
	return r.State.SchedulerConfig(ws)
}

func (r *rollback) JobByID(ws memdb.WatchSet, namespace, id string) (*structs.Job, error) {
	if r.job != nil && r.job.Namespace == namespace && r.job.ID == id {
		return r.job, nil
	}
	return r.State.JobByID(ws, namespace, id)
}

// view is the alloc as it was at the index: nil if created after it.
func (r *rollback) view(a *structs.Allocation) *structs.Allocation {
	if a.CreateIndex > r.at {
		return nil
	}
	if a.ModifyIndex > r.at && a.ServerTerminalStatus() {
		c := a.Copy()
		c.DesiredStatus, c.DesiredDescription = structs.AllocDesiredStatusRun, ""
		if c.ClientStatus == structs.AllocClientStatusComplete || c.ClientStatus == structs.AllocClientStatusLost {
			c.ClientStatus = structs.AllocClientStatusRunning
		}
		return c
	}
	return a
}

func (r *rollback) filter(in []*structs.Allocation, keep func(*structs.Allocation) bool) []*structs.Allocation {
	out := make([]*structs.Allocation, 0, len(in))
	for _, a := range in {
		if v := r.view(a); v != nil && (keep == nil || keep(v)) {
			out = append(out, v)
		}
	}
	return out
}

func (r *rollback) AllocByID(ws memdb.WatchSet, id string) (*structs.Allocation, error) {
	a, err := r.State.AllocByID(ws, id)
	if err != nil || a == nil {
		return nil, err
	}
	return r.view(a), nil
}

func (r *rollback) AllocsByJob(ws memdb.WatchSet, namespace, jobID string, anyCreateIndex bool) ([]*structs.Allocation, error) {
	all, err := r.State.AllocsByJob(ws, namespace, jobID, anyCreateIndex)
	return r.filter(all, nil), err
}

func (r *rollback) AllocsByNode(ws memdb.WatchSet, nodeID string) ([]*structs.Allocation, error) {
	all, err := r.State.AllocsByNode(ws, nodeID)
	return r.filter(all, nil), err
}

func (r *rollback) AllocsByNodeTerminal(ws memdb.WatchSet, nodeID string, terminal bool) ([]*structs.Allocation, error) {
	all, err := r.State.AllocsByNode(ws, nodeID)
	return r.filter(all, func(a *structs.Allocation) bool { return a.TerminalStatus() == terminal }), err
}

// NodeUsage sums the node's live allocs as they were at the index.
func (r *rollback) NodeUsage(ws memdb.WatchSet, nodeID string) (*structs.NodeUsage, error) {
	live, err := r.AllocsByNodeTerminal(ws, nodeID, false)
	if err != nil {
		return nil, err
	}
	return structs.NewNodeUsage(nodeID, live), nil
}

// replayPlanner records; every plan commits in full.
type replayPlanner struct {
	plans   []*structs.Plan
	final   *structs.Evaluation
	created []*structs.Evaluation
}

func (p *replayPlanner) SubmitPlan(plan *structs.Plan) (*structs.PlanResult, scheduler.State, error) {
	p.plans = append(p.plans, plan)
	return &structs.PlanResult{NodeUpdate: plan.NodeUpdate, NodeAllocation: plan.NodeAllocation, NodePreemptions: plan.NodePreemptions,
		Deployment: plan.Deployment, DeploymentUpdates: plan.DeploymentUpdates, AllocIndex: plan.SnapshotIndex + 1}, nil, nil
}
func (p *replayPlanner) UpdateEval(e *structs.Evaluation) error { p.final = e; return nil }
func (p *replayPlanner) CreateEval(e *structs.Evaluation) error {
	p.created = append(p.created, e)
	return nil
}
func (p *replayPlanner) ReblockEval(e *structs.Evaluation) error { p.final = e; return nil }

// sortedAllocs returns a plan's allocs by node in node then ID order.
func sortedAllocs(m map[string][]*structs.Allocation) []*structs.Allocation {
	var out []*structs.Allocation
	for _, allocs := range m {
		out = append(out, allocs...)
	}
	slices.SortFunc(out, func(a, b *structs.Allocation) int {
		if a.NodeID != b.NodeID {
			if a.NodeID < b.NodeID {
				return -1
			}
			return 1
		}
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	})
	return out
}
