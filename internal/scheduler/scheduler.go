package scheduler

import (
	"log/slog"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// State is the read-only view of the cluster a scheduler plans against.
// A state snapshot satisfies it. Returned objects are immutable.
type State interface {
	JobByID(ws memdb.WatchSet, namespace, id string) (*structs.Job, error)
	Nodes(ws memdb.WatchSet) ([]*structs.Node, error)
	// NodeSet is every node sorted by ID and by ID, shared with other
	// readers (not to be modified) so each eval does not rebuild them.
	NodeSet(ws memdb.WatchSet) ([]*structs.Node, map[string]*structs.Node, error)
	NodeByID(ws memdb.WatchSet, id string) (*structs.Node, error)
	AllocsByJob(ws memdb.WatchSet, namespace, jobID string, anyCreateIndex bool) ([]*structs.Allocation, error)
	AllocsByNode(ws memdb.WatchSet, nodeID string) ([]*structs.Allocation, error)
	AllocsByNodeTerminal(ws memdb.WatchSet, nodeID string, terminal bool) ([]*structs.Allocation, error)
	// NodeUsage sums the node's live allocs (nil: none); the list in it is
	// AllocsByNodeTerminal(ws, nodeID, false). A State laid over another
	// that changes allocs must override it too (structs.NewNodeUsage), and
	// must not pass on the store's EachNodeUsage (usageScanner): embedding
	// this interface does not.
	NodeUsage(ws memdb.WatchSet, nodeID string) (*structs.NodeUsage, error)
	AllocByID(ws memdb.WatchSet, id string) (*structs.Allocation, error)
	EvalByID(ws memdb.WatchSet, id string) (*structs.Evaluation, error)
	DeploymentByID(ws memdb.WatchSet, id string) (*structs.Deployment, error)
	LatestDeploymentByJobID(ws memdb.WatchSet, namespace, jobID string) (*structs.Deployment, error)
	SchedulerConfig(ws memdb.WatchSet) (*structs.SchedulerConfiguration, error)
	LatestIndex() uint64
}

// Planner is how a scheduler acts: it submits plans and writes evals. The
// worker implements it over the leader's plan queue and raft.
type Planner interface {
	// SubmitPlan submits a plan for the leader to apply. When part of it was
	// rejected, the returned State is a newer snapshot (at least the result's
	// RefreshIndex) to replan against; otherwise it is nil.
	SubmitPlan(plan *structs.Plan) (*structs.PlanResult, State, error)
	// UpdateEval writes the evaluation being processed (its final status).
	UpdateEval(eval *structs.Evaluation) error
	// CreateEval writes a follow-up evaluation (blocked, delayed, rolling).
	CreateEval(eval *structs.Evaluation) error
	// ReblockEval re-blocks the already-blocked evaluation being processed,
	// instead of creating a new blocked eval.
	ReblockEval(eval *structs.Evaluation) error
}

// Scheduler processes one evaluation.
type Scheduler interface {
	Process(eval *structs.Evaluation) error
}

// Factory builds a scheduler for one evaluation.
type Factory func(log *slog.Logger, state State, planner Planner) Scheduler

// Attempt limits: how many times a scheduler submits a plan for one eval
// before giving up with a max-plan-attempts blocked eval.
const (
	MaxServiceScheduleAttempts = 5
	MaxBatchScheduleAttempts   = 2
	MaxSystemScheduleAttempts  = 5
)
