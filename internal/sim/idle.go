package sim

import (
	"fmt"
	"time"
)

// maxSweeps bounds the node-report rounds of one RunUntilIdle: each round
// can only trigger more scheduling, so a scenario that needs more is
// looping (a bug worth an error rather than a hang).
const maxSweeps = 1000

// RunUntilIdle runs the cluster to quiescence: the pipeline drains, then
// every node reports what changed on it (allocs started, stopped, healthy),
// which may schedule more, until a sweep finds nothing to report.
//
// Determinism: the simulator calls endpoints and reports node updates only
// when the pipeline is idle, in node-name order, and there is one worker,
// so evals are processed one at a time in the broker's order (priority,
// then raft index). What runs concurrently is only the leader's own
// background work (reapers, deployment watcher), which never shares an
// ID stream with the scheduler (see idSource).
func (s *Sim) RunUntilIdle() error {
	if s.opts.Realtime {
		return s.waitQuiet()
	}
	for i := 0; i < maxSweeps; i++ {
		if err := s.waitQuiet(); err != nil {
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
	return fmt.Errorf("sim: still busy after %d node sweeps", maxSweeps)
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

// waitQuiet waits (real time, bounded) until nothing is busy and nothing
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
