package sim

import (
	"time"
)

// AdvanceTime moves the simulated clock forward by d, one due event at a
// time: at each instant the server's due timers fire first (heartbeat
// expiries, broker delays, GC and unblock periods, deployment, drain and
// periodic-launch deadlines) and the duties act on them, then the nodes
// whose heartbeat is due send it, then the cluster runs to idle. In real
// time it waits d.
func (s *Sim) AdvanceTime(d time.Duration) error {
	if s.clk == nil {
		time.Sleep(d)
		return s.RunUntilIdle()
	}
	target := s.clk.Now().Add(d)
	for {
		at, timer, ok := s.nextEvent()
		if !ok || at.After(target) {
			break
		}
		if err := s.stepTo(at, timer); err != nil {
			return err
		}
	}
	s.clk.Set(target)
	return s.RunUntilIdle()
}

// nextEvent is the earliest of the next server timer and the next node
// heartbeat; timer says whether a server timer is due then.
func (s *Sim) nextEvent() (at time.Time, timer, ok bool) {
	at, ok = s.clk.Next()
	timer = ok
	for _, n := range s.sortedNodes() {
		due, live := n.beatDue()
		if !live {
			continue
		}
		if !ok || due.Before(at) {
			at, ok, timer = due, true, false
		} else if due.Equal(at) {
			ok = true
		}
	}
	return at, timer, ok
}

// stepTo sets the clock to at, lets the server act on the timers due then
// (a heartbeat expiry is handled before a heartbeat of the same instant),
// and delivers the heartbeats due then. A step with only heartbeats of
// ready nodes writes nothing, so it skips running to idle.
func (s *Sim) stepTo(at time.Time, timer bool) error {
	before := s.srv.State().LatestIndex()
	s.clk.Set(at)
	if timer {
		if err := s.settle(); err != nil {
			return err
		}
	}
	for _, n := range s.sortedNodes() {
		if due, live := n.beatDue(); live && !due.After(at) {
			if err := n.heartbeat(); err != nil {
				return err
			}
		}
	}
	if !timer && s.srv.State().LatestIndex() == before {
		return nil
	}
	return s.RunUntilIdle()
}
