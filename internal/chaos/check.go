package chaos

import (
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

// check runs the invariants after a round: acknowledged writes present on
// every server, no double placements, no over-committed node, no eval
// left pending.
func (h *harness) check() (c roundCheck, err error) {
	h.load.paused.Lock()
	defer h.load.paused.Unlock()
	writes := h.load.snapshot()
	var maxIndex uint64
	for _, w := range writes {
		maxIndex = max(maxIndex, w.applied)
	}
	for _, s := range h.reachable() {
		c.lost += h.lostOn(s, writes, maxIndex)
	}
	leader, err := h.waitLeader(60 * time.Second)
	if err != nil {
		return c, err
	}
	// Longer than the broker's nack timeout (60 s): an eval held by a
	// worker on a killed server is redelivered only after it.
	c.stuck = h.stuckEvals(leader, 90*time.Second)
	if c.doubles, c.over, err = h.placements(leader); err != nil {
		return c, err
	}
	if c.orphanAllocs, err = h.orphanAllocs(leader, orphanSettle); err != nil {
		return c, err
	}
	c.orphanProcs = h.orphanProcs(leader, orphanSettle)
	return c, nil
}

// roundCheck is what one round's checks counted.
type roundCheck struct {
	lost, doubles, over, stuck int
	orphanAllocs, orphanProcs  int
}

// orphanSettle is how long the checks wait for allocs of a purged
// incarnation to be stopped, and for task processes of terminal allocs to
// exit, before counting them.
const orphanSettle = 30 * time.Second

// orphanAllocs counts allocs that still should run although their job
// incarnation is gone: the job was purged, or purged and registered again
// (the alloc was created before the job's current CreateIndex). It polls
// until there are none or timeout passed.
func (h *harness) orphanAllocs(leader *serverProc, timeout time.Duration) (int, error) {
	deadline := time.Now().Add(timeout)
	for {
		allocs, _, err := leader.api.Allocations().List(nil)
		if err != nil {
			return 0, err
		}
		jobs := map[string]*api.Job{} // nil: absent
		var orphans []string
		for _, a := range allocs {
			if a.DesiredStatus != api.AllocDesiredStatusRun || isTerminal(a.ClientStatus) {
				continue
			}
			job, seen := jobs[a.JobID]
			if !seen {
				job, _, err = leader.api.Jobs().Info(a.JobID, nil)
				if err != nil && !isNotFound(err) {
					return 0, err
				}
				jobs[a.JobID] = job
			}
			switch {
			case job == nil:
				orphans = append(orphans, fmt.Sprintf("alloc %s of purged job %s", a.ID, a.JobID))
			case job.CreateIndex != nil && a.CreateIndex < *job.CreateIndex:
				orphans = append(orphans, fmt.Sprintf("alloc %s (created at %d) of job %s's older incarnation (job created at %d)", a.ID, a.CreateIndex, a.JobID, *job.CreateIndex))
			}
		}
		if len(orphans) == 0 || time.Now().After(deadline) {
			for _, o := range orphans {
				fmt.Fprintf(h.cfg.Log, "  ORPHANED ALLOC: %s\n", o)
			}
			return len(orphans), nil
		}
		time.Sleep(200 * time.Millisecond) // waiting for the purge's evals
	}
}

func isNotFound(err error) bool {
	return strings.Contains(err.Error(), "404") || strings.Contains(err.Error(), "not found")
}

// lostOn counts acknowledged writes server s does not have, once it has
// applied up to the highest acknowledged index (or 30 s passed).
func (h *harness) lostOn(s *serverProc, writes map[string]ackedWrite, maxIndex uint64) int {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, _, applied, err := s.raftState(); err == nil && applied >= maxIndex {
			break
		}
		time.Sleep(20 * time.Millisecond) // waiting for replication
	}
	lost := 0
	stale := &api.QueryOptions{AllowStale: true}
	for id, w := range writes {
		job, _, err := s.api.Jobs().Info(id, stale)
		switch {
		case (w.purged || w.mayBePurged) && err != nil && isNotFound(err),
			w.purged && w.unsure:
			// purged (and not registered again since), as acknowledged; or
			// a purge failed that may have applied; or after an
			// acknowledged purge a write that may have registered it again
			// failed
		case w.purged && err == nil && job != nil:
			lost++
			fmt.Fprintf(h.cfg.Log, "  LOST on %s: job %s purged at %d is present (modify index %d)\n", s.name, id, w.applied, *job.JobModifyIndex)
		case err != nil || job == nil:
			lost++
			fmt.Fprintf(h.cfg.Log, "  LOST on %s: job %s (acked at %d): %v\n", s.name, id, w.index, err)
		case *job.JobModifyIndex < w.index:
			lost++
			fmt.Fprintf(h.cfg.Log, "  LOST on %s: job %s at %d < acked %d\n", s.name, id, *job.JobModifyIndex, w.index)
		case !w.unsure && job.Stop != nil && *job.Stop != w.stopped:
			lost++
			fmt.Fprintf(h.cfg.Log, "  LOST on %s: job %s stop=%v, acked stop=%v\n", s.name, id, *job.Stop, w.stopped)
		}
	}
	return lost
}

// stuckEvals waits until no eval is pending and returns how many still are.
// A pending eval whose WaitUntil is still ahead is not stuck: it is a
// delayed eval (a reschedule's backoff, 30 s and doubling for service
// jobs), held by the broker until then; since the harness runs a real
// client, whose allocs a fault can fail or lose, such evals appear.
func (h *harness) stuckEvals(leader *serverProc, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	pending := 0
	for {
		evals, _, err := leader.api.Evaluations().List(&api.QueryOptions{Filter: `Status == "pending"`})
		if err == nil {
			pending = countDue(evals, time.Now())
			if pending == 0 {
				return 0
			}
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(h.cfg.Log, "  %d evals still pending after %s\n", pending, timeout)
			return pending
		}
		time.Sleep(100 * time.Millisecond) // waiting for the workers
	}
}

// countDue counts the evals that are due: no WaitUntil, or one passed.
func countDue(evals []*api.Evaluation, now time.Time) int {
	n := 0
	for _, e := range evals {
		if e.WaitUntil.IsZero() || !e.WaitUntil.After(now) {
			n++
		}
	}
	return n
}

// placements counts live allocs sharing a name within a job version, and
// nodes whose live allocs ask for more than they have.
func (h *harness) placements(leader *serverProc) (doubles, over int, err error) {
	allocs, _, err := leader.api.Allocations().List(&api.QueryOptions{Params: map[string]string{"resources": "true"}})
	if err != nil {
		return 0, 0, err
	}
	names := map[string]int{}
	cpu, mem := map[string]int64{}, map[string]int64{}
	for _, a := range allocs {
		if a.DesiredStatus != api.AllocDesiredStatusRun || isTerminal(a.ClientStatus) {
			continue
		}
		key := fmt.Sprintf("%s@%d/%s", a.JobID, a.JobVersion, a.Name)
		names[key]++
		if names[key] == 2 {
			doubles++
			fmt.Fprintf(h.cfg.Log, "  DOUBLE placement: %s\n", key)
		}
		if r := a.AllocatedResources; r != nil {
			for _, t := range r.Tasks {
				cpu[a.NodeID] += t.Cpu.CpuShares
				mem[a.NodeID] += t.Memory.MemoryMB
			}
		}
	}
	for node := range cpu {
		if cpu[node] > simNodeCPU || mem[node] > simNodeMem {
			over++
			fmt.Fprintf(h.cfg.Log, "  OVER-COMMIT: node %s cpu %d/%d mem %d/%d\n", node, cpu[node], simNodeCPU, mem[node], simNodeMem)
		}
	}
	return doubles, over, nil
}

func isTerminal(status string) bool {
	switch status {
	case api.AllocClientStatusComplete, api.AllocClientStatusFailed, api.AllocClientStatusLost:
		return true
	}
	return false
}
