package sim

import (
	"fmt"
	"time"
)

// idleBounds bound the work of running to idle: a cluster that needs more
// is looping (a bug worth an error rather than a hang).
type idleBounds struct {
	// sweeps bounds the node-report rounds of one RunUntilIdle: each
	// round can only trigger more scheduling.
	sweeps int
	// steps bounds the duty passes of one settle.
	steps int
}

// defaultIdleBounds are every simulation's bounds; a test lowers them to
// see the guard trip.
var defaultIdleBounds = idleBounds{sweeps: 1000, steps: 100_000}

// RunUntilIdle runs the cluster to quiescence: the leader's duties and the
// worker step until none makes progress, then every node reports what
// changed on it (allocs started, stopped, healthy), which may schedule
// more, until a sweep finds nothing to report.
//
// Determinism: nothing runs on its own. The server starts no worker or
// duty goroutines (server.Config.ManualDuties); the simulator calls each
// step in a fixed order (server.DutySteps) on this goroutine, calls
// endpoints and reports node updates in node-name order, and moves the
// manual clock only between passes. Raft commits synchronously (each
// write waits for its entry to be applied), so the same seed gives the
// same writes in the same order.
func (s *Sim) RunUntilIdle() error {
	if s.opts.Realtime {
		return s.waitQuiet()
	}
	for i := 0; i < s.bounds.sweeps; i++ {
		if err := s.settle(); err != nil {
			return err
		}
		reported, err := s.sweepNodes()
		if err != nil {
			return err
		}
		if !reported {
			return s.CheckInvariants()
		}
	}
	return fmt.Errorf("sim: still busy after %d node sweeps", s.bounds.sweeps)
}

// settle steps the server until a pass over every duty makes no progress
// (in real time: waits for the pipeline to go quiet).
func (s *Sim) settle() error {
	if s.opts.Realtime {
		return s.waitQuiet()
	}
	for i := 0; i < s.bounds.steps; i++ {
		if !s.srv.StepDuties() {
			return nil
		}
	}
	return fmt.Errorf("sim: duties still progressing after %d passes", s.bounds.steps)
}

// pulse is what changes while the pipeline works.
type pulse struct {
	index                                  uint64
	ready, unacked, pending, cancelable    int
	planQueue, duplicates, timers, blocked int
	leading                                bool
}

func (s *Sim) pulse() pulse {
	st := s.srv.Stats()
	p := pulse{
		index: st.AppliedIdx, ready: st.Broker.TotalReady, unacked: st.Broker.TotalUnacked,
		pending: st.Broker.TotalPending, cancelable: st.Broker.TotalCancelable,
		planQueue: st.PlanQueue, duplicates: st.Blocked.TotalDuplicates, blocked: st.Blocked.TotalBlocked,
		leading: s.srv.LeaderActive(),
	}
	if s.clk != nil {
		p.timers = s.clk.Pending()
	}
	return p
}

// busy reports whether some component still holds work it will act on
// without the clock moving.
func (p pulse) busy() bool {
	return !p.leading || p.ready+p.unacked+p.pending+p.cancelable+p.planQueue+p.duplicates > 0
}

// waitQuiet (real time only) waits, bounded, until nothing is busy and nothing
// has changed for the settle window: goroutines woken by the last event
// (a reaper, the deployment watcher, a periodic duty re-arming its timer)
// get the window to show themselves.
func (s *Sim) waitQuiet() error {
	poll := 200 * time.Microsecond
	if s.opts.Realtime {
		poll = time.Millisecond
	}
	deadline := time.Now().Add(s.opts.IdleTimeout)
	last, since := s.pulse(), time.Now()
	for {
		time.Sleep(poll)
		now := s.pulse()
		if now.busy() || now != last {
			last, since = now, time.Now()
		} else if time.Since(since) >= s.opts.Settle {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sim: not idle after %v: %+v", s.opts.IdleTimeout, now)
		}
	}
}
