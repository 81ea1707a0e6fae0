package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/fsm"
	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/server/blockedevals"
	"github.com/drover-project/drover/internal/server/broker"
	"github.com/drover-project/drover/internal/server/planapply"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/telemetry"
)

// schedulerFactory returns the scheduler for an eval type.
func (s *Server) schedulerFactory(evalType string) (scheduler.Factory, bool) {
	f, ok := s.schedulers[evalType]
	return f, ok
}

// enabledSchedulers lists the eval types workers dequeue.
func (s *Server) enabledSchedulers() []string {
	if len(s.config.EnabledSchedulers) > 0 {
		return s.config.EnabledSchedulers
	}
	return []string{structs.JobTypeService, structs.JobTypeBatch, structs.JobTypeSystem,
		structs.JobTypeSysBatch, structs.JobTypeCore}
}

// snapshotMinIndex waits until local state has applied index (or the
// timeout passes, or the server shuts down), then snapshots it.
func (s *Server) snapshotMinIndex(index uint64, timeout time.Duration) (*state.StateSnapshot, error) {
	ctx, cancel := context.WithTimeout(s.ctx, timeout)
	defer cancel()
	if err := s.fsm.WaitForIndex(ctx, index); err != nil {
		return nil, err
	}
	return s.State().Snapshot(), nil
}

// submitPlan queues a plan with the leader's plan applier and waits.
func (s *Server) submitPlan(plan *structs.Plan) (*structs.PlanResult, error) {
	future, err := s.planQueue.Enqueue(plan)
	if err != nil {
		return nil, err
	}
	if s.config.ManualDuties {
		return s.applyNow(future)
	}
	// The applier answers every plan, also at shutdown; a submitter
	// stops waiting then all the same.
	select {
	case <-future.Done():
		return future.Wait()
	case <-s.ctx.Done():
		return nil, planapply.ErrShuttingDown
	}
}

// submitHeldPlan submits a worker's plan with its eval's nack timer
// paused: while the plan waits on the applier the worker is not idle, so a
// long plan queue must not redeliver the eval under it. The timer restarts
// in full once the result is back. The leader does this itself, so a
// follower's worker pays one round trip per plan, not three.
func (s *Server) submitHeldPlan(plan *structs.Plan) (*structs.PlanResult, error) {
	if err := s.broker.PauseNackTimeout(plan.EvalID, plan.EvalToken); err != nil {
		return nil, fmt.Errorf("eval no longer held by this worker: %w", err)
	}
	result, err := s.submitPlan(plan)
	if err == nil && result.EvalFinished {
		return result, nil // acked with the plan's entry: no timer left to resume
	}
	if rerr := s.broker.ResumeNackTimeout(plan.EvalID, plan.EvalToken); rerr != nil && err == nil {
		return nil, fmt.Errorf("eval no longer held by this worker: %w", rerr)
	}
	return result, err
}

// applyNow steps the plan applier until the plan is answered: with manual
// duties nothing else would run it while its worker waits.
func (s *Server) applyNow(future planapply.PlanFuture) (*structs.PlanResult, error) {
	for {
		select {
		case <-future.Done():
			return future.Wait()
		default:
		}
		if !s.applier.Step() {
			return nil, errors.New("plan queued but not applied: the plan queue is empty")
		}
	}
}

// planRaft commits plan results for the applier, one raft entry each. It
// is a planapply.AsyncRaft: the pipelined applier proposes each plan's
// entry without waiting for the ones before it, and raft writes and
// replicates the entries proposed while it was busy together.
type planRaft struct{ s *Server }

// The applier pipelines the server's plans: it takes planRaft's
// asynchronous side at construction (planapply.NewApplier).
// The interfaces the pipeline's packages declare, as this server
// satisfies them when it wires them together (setupPipeline, New).
var (
	_ planapply.AsyncRaft    = planRaft{}
	_ planapply.TokenChecker = (*broker.Broker)(nil)
	_ blockedevals.Enqueuer  = (*broker.Broker)(nil)
	_ fsm.EventPublisher     = eventTap{}
	_ scheduler.State        = (*state.StateSnapshot)(nil)
	_ planapply.StateReader  = (*state.StateSnapshot)(nil)
)

func (p planRaft) ApplyPlanResults(req *structs.ApplyPlanResultsRequest) (uint64, error) {
	return p.StartPlanResults(req).Wait()
}

func (p planRaft) StartPlanResults(req *structs.ApplyPlanResultsRequest) planapply.CommitFuture {
	start := time.Now()
	f, err := raftWrites(p).propose(structs.ApplyPlanResultsRequestType, req)
	return planCommit{s: p.s, f: f, err: err, start: start}
}

// planCommit is one proposed plan entry; Wait also times it (the
// nomad.nomad.plan.apply metric: propose to committed and applied).
type planCommit struct {
	s     *Server
	f     raft.ApplyFuture
	err   error // the proposal itself failed
	start time.Time
}

func (c planCommit) Wait() (uint64, error) {
	if c.err != nil {
		return 0, c.err
	}
	defer func() { c.s.config.Metrics.PlanApply.Observe(telemetry.Ms(time.Since(c.start))) }()
	return raftWrites{c.s}.outcome(context.Background(), c.f)
}

func (s *Server) randInt63n(n int64) int64 {
	s.randMu.Lock()
	defer s.randMu.Unlock()
	return s.config.Rand.Int64N(n)
}

// stateSource gives the plan applier snapshots that include a raft index.
type stateSource struct{ s *Server }

var _ planapply.StateSource = stateSource{}

func (ss stateSource) SnapshotMinIndex(ctx context.Context, index uint64) (*state.StateSnapshot, error) {
	if err := ss.s.fsm.WaitForIndex(ctx, index); err != nil {
		return nil, err
	}
	return ss.s.State().Snapshot(), nil
}
