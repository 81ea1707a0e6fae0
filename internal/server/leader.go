package server

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// monitorLeadership turns the leader's duties on and off as raft gains and
// loses leadership. The duties run on a context derived from the server's
// root context, and the monitor waits for them before it returns.
func (s *Server) monitorLeadership() {
	var stop context.CancelFunc
	var duties *sync.WaitGroup
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
				duties = &sync.WaitGroup{}
				if err := s.establishLeadership(ctx, duties); err != nil {
					s.log.Error("establish leadership failed; stepping down", "error", err)
					stop()
					duties.Wait()
					s.revokeLeadership()
					stop = nil
					_ = s.raft.LeadershipTransfer()
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
// store, and starts the leader's background duties.
func (s *Server) establishLeadership(ctx context.Context, duties *sync.WaitGroup) error {
	// Everything committed before we became leader must be applied before
	// we rebuild the broker from state.
	barrier := s.raft.Barrier(raftApplyTimeout)
	if err := barrier.Error(); err != nil {
		return fmt.Errorf("barrier: %w", err)
	}
	// Reads on this leader are now as fresh as the cluster's (forward).
	s.readyIndex.Store(max(s.raft.AppliedIndex(), 1))
	if err := s.ensureSchedulerConfig(); err != nil {
		return err
	}
	if err := s.auth.EnsureRootKey(); err != nil {
		return err
	}
	s.planQueue.SetEnabled(true)
	s.broker.SetEnabled(true)
	s.blocked.SetEnabled(true)
	s.leaderActive.Store(true)
	if err := s.restoreEvals(); err != nil {
		return err
	}
	if err := s.heartbeat.rearmAll(); err != nil {
		return err
	}
	s.pauseWorkersForLeader(true)
	if s.config.ManualDuties {
		s.setDuties(s.newSteppedDuties()) // the caller steps them
	} else {
		s.startPipelineDuties(ctx, duties)
	}
	s.startDuty(ctx, duties, s.cluster.ReconcileMembers)
	s.startDuty(ctx, duties, s.cluster.RunAutopilot)
	s.log.Info("leadership established")
	return nil
}

// startPipelineDuties runs each evaluation-pipeline duty in its own
// goroutine: a loop that waits for its wakeup and calls its step
// (duty_steps.go).
func (s *Server) startPipelineDuties(ctx context.Context, duties *sync.WaitGroup) {
	s.startDuty(ctx, duties, s.applier.Run)
	s.startDuty(ctx, duties, s.reapFailedEvals)
	s.startDuty(ctx, duties, s.dequeueUndeliverable)
	s.startDuty(ctx, duties, s.reapCancelableEvals)
	s.startDuty(ctx, duties, s.reapDuplicateBlockedEvals)
	s.startDuty(ctx, duties, s.reapStoppedJobBlocked)
	s.startDuty(ctx, duties, s.periodicUnblockFailed)
	s.startDuty(ctx, duties, s.periodicGC)
	s.startDuty(ctx, duties, s.auth.PushKEK)
	s.startDuty(ctx, duties, s.auth.ResumeRekey)
	s.startDuty(ctx, duties, s.watchDeployments)
	s.startDuty(ctx, duties, s.runPeriodicDispatcher)
	s.startDuty(ctx, duties, s.runDrainer)
}

// revokeLeadership disables and flushes every leader-only component: a new
// leader rebuilds them from the state store.
func (s *Server) revokeLeadership() {
	s.leaderActive.Store(false)
	s.setDuties(nil)
	s.remoteHeld.clear()
	s.heartbeat.stopAll()
	s.broker.SetEnabled(false)
	s.blocked.SetEnabled(false)
	s.planQueue.SetEnabled(false)
	s.pauseWorkersForLeader(false)
	s.log.Info("leadership revoked")
}

func (s *Server) startDuty(ctx context.Context, wg *sync.WaitGroup, duty func(context.Context)) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		duty(ctx)
	}()
}

// ensureSchedulerConfig writes the default scheduler configuration once.
func (s *Server) ensureSchedulerConfig() error {
	cfg, err := s.State().SchedulerConfig(nil)
	if err != nil || cfg != nil {
		return err
	}
	_, err = s.raftApply(structs.SchedulerConfigRequestType, &structs.SchedulerSetConfigRequest{Config: *structs.DefaultSchedulerConfiguration()})
	return err
}

// restoreEvals hands every pending eval to the broker and every blocked
// eval to the tracker, so a leader change loses nothing. Failed evals that
// never got their follow-up are queued for the reaper.
func (s *Server) restoreEvals() error {
	evals, err := s.State().Evals(nil, "*")
	if err != nil {
		return err
	}
	for _, e := range evals {
		switch {
		case e.ShouldEnqueue():
			s.broker.Enqueue(e)
		case e.ShouldBlock() && s.jobStoppedOrGone(e):
			s.stoppedJobBlocked.push(e)
		case e.ShouldBlock():
			s.blocked.Block(e)
		case needsFailedFollowUp(e):
			s.queueFailedFollowUp(e)
		}
	}
	return nil
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

// every runs fn every interval (on the injected clock) until ctx is done.
func (s *Server) every(ctx context.Context, interval time.Duration, fn func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.config.Clock.After(interval):
			fn()
		}
	}
}
