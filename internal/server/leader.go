package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/drover-project/drover/internal/server/leader"
	"github.com/drover-project/drover/internal/server/planapply"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// monitorLeadership turns the leader's duties on and off as raft gains and
// loses leadership. The duties run on a context derived from the server's
// root context, and the monitor waits for them before it returns.
func (s *Server) monitorLeadership() {
	var stop context.CancelFunc
	var duties *goGroup
	raftLeader := s.raft.LeaderCh()
	for {
		var isLeader bool
		select {
		case isLeader = <-raftLeader:
			if !isLeader {
				s.readyIndex.Store(0)
			}
		case isLeader = <-s.leadershipOverride:
		case <-s.shutdownCh:
			if stop != nil {
				stop()
				duties.Wait()
				s.revokeLeadership()
			}
			return
		}
		{
			if isLeader && stop == nil {
				var ctx context.Context
				ctx, stop = context.WithCancel(s.ctx)
				duties = &goGroup{}
				s.duties.Store(duties)
				if err := s.establishLeadership(ctx, duties); err != nil {
					stop()
					duties.Wait()
					s.revokeLeadership()
					stop = nil
					if s.ctx.Err() == nil { // not shutting down
						s.log.Error("establish leadership failed; stepping down", "error", err)
						_ = s.raft.LeadershipTransfer()
					}
				}
			} else if !isLeader && stop != nil {
				stop()
				duties.Wait()
				s.revokeLeadership()
				stop = nil
			}
			// Only tests and the simulator read this; never block the
			// monitor when nobody does.
			select {
			case s.leadershipSettled <- isLeader:
			default:
			}
		}
	}
}

// establishLeadership makes this server's state current, enables the
// broker, blocked tracker and plan queue, rebuilds them from the state
// store, and starts the leader's duties (package leader's duty table).
func (s *Server) establishLeadership(ctx context.Context, duties *goGroup) error {
	// Everything committed before we became leader must be applied before
	// we rebuild the broker from state.
	barrier := s.raft.Barrier(raftApplyTimeout)
	if err := (raftWrites{s}).wait(ctx, barrier); err != nil { // ends at shutdown
		return fmt.Errorf("barrier: %w", err)
	}
	// Reads on this leader are now as fresh as the cluster's (forward).
	s.readyIndex.Store(max(s.raft.AppliedIndex(), 1))
	if err := s.ensureSchedulerConfig(ctx); err != nil {
		return err
	}
	if err := s.auth.EnsureRootKey(); err != nil {
		return err
	}
	if err := s.leader.Establish(); err != nil {
		return err
	}
	s.pauseWorkersForLeader(true)
	s.leader.StartDuties(ctx, duties) // with ManualDuties, the caller steps them
	s.log.Info("leadership established")
	return nil
}

// leaderDuties are the duties the server's wiring adds to the leader's
// duty table: the keyring's KEK hand-over and rekeyer (production only:
// the simulator does not step them) and the cluster's member
// reconciliation and autopilot (goroutines in both modes). They are
// built before the cluster (New: the pipeline first), so each entry
// reaches its role when it runs.
func (s *Server) leaderDuties() []leader.Duty {
	return []leader.Duty{
		{Name: "keyring-kek", Wake: leader.Loop(func(ctx context.Context) { s.auth.PushKEK(ctx) })},
		{Name: "keyring-rekey", Wake: leader.Loop(func(ctx context.Context) { s.auth.ResumeRekey(ctx) })},
		{Name: "reconcile-members", Wake: leader.Background(func(ctx context.Context) { s.cluster.ReconcileMembers(ctx) })},
		{Name: "autopilot", Wake: leader.Background(func(ctx context.Context) { s.cluster.RunAutopilot(ctx) })},
	}
}

// revokeLeadership disables and flushes every leader-only component: a new
// leader rebuilds them from the state store.
func (s *Server) revokeLeadership() {
	s.leader.Revoke()
	s.remoteHeld.clear()
	s.pauseWorkersForLeader(false)
	s.log.Info("leadership revoked")
}

// ensureSchedulerConfig writes the default scheduler configuration once.
func (s *Server) ensureSchedulerConfig(ctx context.Context) error {
	cfg, err := s.State().SchedulerConfig(nil)
	if err != nil || cfg != nil {
		return err
	}
	_, err = s.raftApply(ctx, structs.SchedulerConfigRequestType, &structs.SchedulerSetConfigRequest{Config: *defaultSchedulerConfig(s.config)})
	return err
}

// defaultSchedulerConfig is the configuration in force until one is
// stored: the agent's default_scheduler_config, else Nomad's default.
func defaultSchedulerConfig(cfg *Config) *structs.SchedulerConfiguration {
	if c := cfg.DefaultSchedulerConfig; c != nil {
		return c.Copy()
	}
	return structs.DefaultSchedulerConfiguration()
}

// pauseWorkersForLeader pauses all but a quarter (at least one) of the
// workers while leading, leaving CPU to the plan applier.
func (s *Server) pauseWorkersForLeader(leading bool) {
	active := len(s.workers)
	if leading {
		active = max(1, len(s.workers)-len(s.workers)*s.config.LeaderPausedWorkersPercent/100)
	}
	for i, w := range s.workers {
		w.SetPaused(i >= active)
	}
}

// DutyStep names one leader duty's single step.
type DutyStep = leader.DutyStep

// doneCtx is already canceled: blocking takes (broker, plan queue) of a
// stepped worker handed it look once and return at once.
var doneCtx = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// DutySteps lists the leader's duties and the workers in the fixed order
// StepDuties runs them. Outside manual mode, or when not leading, the
// leader duties do nothing.
func (s *Server) DutySteps() []DutyStep {
	steps := s.leader.DutySteps()
	for _, w := range s.workers {
		steps = append(steps, DutyStep{Name: w.ID(), Step: w.Step})
	}
	return steps
}

// StepDuties runs every step of DutySteps once, in order, and reports
// whether any made progress.
func (s *Server) StepDuties() bool {
	if !s.leader.Stepping() {
		return false
	}
	progress := false
	for _, d := range s.DutySteps() {
		if d.Step() {
			progress = true
		}
	}
	return progress
}

// leaderServer is the server as the leader's duties see it: its state
// and the narrow writers package leader declares.
type leaderServer struct{ s *Server }

var (
	_ leader.Server   = leaderServer{}
	_ leader.Timeline = (*Timeline)(nil)
	_ leader.Applier  = (*planapply.Applier)(nil)
)

func (b leaderServer) State() *state.StateStore { return b.s.State() }

func (b leaderServer) Apply(t structs.MessageType, msg any) (uint64, error) {
	return b.s.raftApply(b.s.ctx, t, msg)
}

func (b leaderServer) UpsertEvals(evals []*structs.Evaluation) error { return b.s.UpsertEvals(evals) }

func (b leaderServer) NewEvalDeleter(why string) leader.EvalDeleter {
	return &evalDeleter{srv: b.s, why: why}
}

func (b leaderServer) AllocsByEval(evals []*structs.Evaluation) (map[string][]*structs.Allocation, error) {
	return allocsByEval(b.s.State(), evals)
}

func (b leaderServer) SetNodeStatus(nodeID, status string) error {
	_, err := b.s.setNodeStatus(nodeID, status)
	return err
}

func (b leaderServer) NewJobEval(job *structs.Job, trigger string) *structs.Evaluation {
	return b.s.newJobEval(job, trigger)
}

func (b leaderServer) ClearServerOwnedFields(job *structs.Job) { clearServerOwnedFields(job) }

// StepLeadership feeds a leadership change to the leadership monitor, as
// raft would, and waits until the monitor has handled it: stepping down
// disables and flushes the broker, blocked tracker and plan queue; stepping
// up rebuilds them from the state store. The simulator uses it to inject a
// leader change (raft itself stays leader, so writes keep working).
func (s *Server) StepLeadership(leader bool) {
	s.drainSettled() // earlier changes nobody waited for
	select {
	case s.leadershipOverride <- leader:
	case <-s.shutdownCh:
		return
	}
	for {
		select {
		case got := <-s.leadershipSettled:
			if got == leader {
				return
			}
		case <-s.shutdownCh:
			return
		}
	}
}

// LeaderActive reports whether this server's leader duties are running
// (the broker, blocked tracker and plan queue are enabled).
func (s *Server) LeaderActive() bool { return s.leader.Active() }

func (s *Server) drainSettled() {
	for {
		select {
		case <-s.leadershipSettled:
		default:
			return
		}
	}
}

// RegisterNode registers a node that no client agent runs: unlike
// Node.Register it arms no heartbeat timer, so the node stays ready until
// told otherwise. Benchmarks and tests that drive nodes in-process use it.
func (s *Server) RegisterNode(node *structs.Node) (*structs.NodeWriteResponse, error) {
	return (&NodeEndpoint{srv: s}).upsertNode(s.ctx, node)
}

// AwaitLeadership waits until the leadership monitor has established this
// server as leader (its broker, tracker, plan queue and, with manual
// duties, the stepped duties are ready), or the timeout passes.
func (s *Server) AwaitLeadership(timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		select {
		case leading := <-s.leadershipSettled:
			if leading && s.LeaderActive() {
				return nil
			}
		case <-deadline.C:
			return errors.New("server: leadership not established")
		case <-s.shutdownCh:
			return ErrShutdown
		}
	}
}
