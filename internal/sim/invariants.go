package sim

import (
	"errors"
	"fmt"

	"github.com/drover-project/drover/internal/structs"
)

// CheckInvariants verifies what must hold after every step (docs/design.md, "Invariants"):
// no node over-committed on any resource, no two live allocs on a node
// claiming the same static port, every live alloc of a live job on a
// known node, and every pending or blocked eval held by the broker or the
// blocked tracker (none lost).
func (s *Sim) CheckInvariants() error {
	st := s.srv.State()
	nodes, err := st.Nodes(nil)
	if err != nil {
		return err
	}
	var errs []error
	known := map[string]bool{}
	for _, n := range nodes {
		known[n.ID] = true
		allocs, err := st.AllocsByNode(nil, n.ID)
		if err != nil {
			return err
		}
		errs = append(errs, checkNodeFit(n, allocs), checkStaticPorts(n, allocs))
	}
	errs = append(errs, s.checkAllocNodes(known), s.checkEvalsHeld())
	return errors.Join(errs...)
}

func checkNodeFit(n *structs.Node, allocs []*structs.Allocation) error {
	if ok, dim, used := structs.AllocsFit(n, allocs); !ok {
		return fmt.Errorf("invariant: node %s over-committed on %s (uses %+v)", n.Name, dim, *used)
	}
	return nil
}

func checkStaticPorts(n *structs.Node, allocs []*structs.Allocation) error {
	owner := map[int]string{}
	for _, a := range allocs {
		if a.TerminalStatus() || a.AllocatedResources == nil {
			continue
		}
		for _, p := range staticPorts(a.AllocatedResources) {
			if other, taken := owner[p]; taken && other != a.ID {
				return fmt.Errorf("invariant: node %s: allocs %s and %s both hold static port %d", n.Name, other, a.ID, p)
			}
			owner[p] = a.ID
		}
	}
	return nil
}

// staticPorts lists the reserved (static) port values an alloc holds.
func staticPorts(r *structs.AllocatedResources) []int {
	var out []int
	nets := append([]*structs.NetworkResource(nil), r.Shared.Networks...)
	for _, t := range r.Tasks {
		nets = append(nets, t.Networks...)
	}
	for _, n := range nets {
		for _, p := range n.ReservedPorts {
			out = append(out, p.Value)
		}
	}
	return out
}

func (s *Sim) checkAllocNodes(known map[string]bool) error {
	allocs, err := s.srv.State().Allocs(nil, "*")
	if err != nil {
		return err
	}
	for _, a := range allocs {
		if a.TerminalStatus() || a.Job == nil || a.Job.Stop {
			continue
		}
		if !known[a.NodeID] {
			return fmt.Errorf("invariant: live alloc %s of job %s is on unknown node %q", a.ID, a.JobID, a.NodeID)
		}
	}
	return nil
}

// checkEvalsHeld compares the stored pending and blocked evals with what
// the broker and the blocked tracker hold: a difference is a lost eval.
func (s *Sim) checkEvalsHeld() error {
	if !s.srv.LeaderActive() {
		return nil // a follower holds nothing; the next leader rebuilds
	}
	var pending, blocked int
	evals, err := s.srv.State().Evals(nil, "*")
	if err != nil {
		return err
	}
	for _, e := range evals {
		switch e.Status {
		case structs.EvalStatusPending:
			pending++
		case structs.EvalStatusBlocked:
			blocked++
		}
	}
	stats := s.srv.Stats()
	b := stats.Broker
	held := b.TotalReady + b.TotalUnacked + b.TotalWaiting + b.TotalPending + b.TotalCancelable
	if pending != held {
		return fmt.Errorf("invariant: %d pending evals stored, broker holds %d (ready %d, unacked %d, waiting %d, pending %d, cancelable %d)",
			pending, held, b.TotalReady, b.TotalUnacked, b.TotalWaiting, b.TotalPending, b.TotalCancelable)
	}
	if tracked := stats.Blocked.TotalBlocked + stats.Blocked.TotalDuplicates; blocked != tracked {
		return fmt.Errorf("invariant: %d blocked evals stored, tracker holds %d", blocked, tracked)
	}
	return nil
}
