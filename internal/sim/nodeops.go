package sim

import (
	"context"
	"fmt"
	"maps"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// MissHeartbeats silences a node: it stops heartbeating and reporting, so
// the server marks it down once its TTL and grace pass (AdvanceTime).
func (s *Sim) MissHeartbeats(name string) error {
	n, err := s.node(name)
	if err != nil {
		return err
	}
	n.setSilent(true)
	return nil
}

// Down silences a node and marks it down at once, as its heartbeat timer
// firing would: for flapping many nodes without waiting out TTLs.
func (s *Sim) Down(name string) error {
	n, err := s.node(name)
	if err != nil {
		return err
	}
	n.setSilent(true)
	if _, err := server.NodeUpdateStatus.Call(context.Background(), s.srv, &structs.NodeHeartbeatArgs{NodeID: n.ID, SecretID: n.SecretID, Status: structs.NodeStatusDown}); err != nil {
		return fmt.Errorf("sim: down %s: %w", name, err)
	}
	return s.RunUntilIdle()
}

// Resume brings a silent node back: it heartbeats at once (a down node
// becomes ready, with its node-update evals) and reports again.
func (s *Sim) Resume(name string) error {
	if err := s.resume(name); err != nil {
		return err
	}
	return s.RunUntilIdle()
}

func (s *Sim) resume(name string) error {
	n, err := s.node(name)
	if err != nil {
		return err
	}
	n.setSilent(false)
	return n.heartbeat()
}

// ChangeFingerprint re-registers the node with changed attributes (a new
// computed class): node-update evals for its jobs.
func (s *Sim) ChangeFingerprint(name string, attrs map[string]string) error {
	n, err := s.node(name)
	if err != nil {
		return err
	}
	n.mu.Lock()
	n.spec.Attributes = maps.Clone(n.spec.Attributes)
	if n.spec.Attributes == nil {
		n.spec.Attributes = map[string]string{}
	}
	maps.Copy(n.spec.Attributes, attrs)
	n.mu.Unlock()
	if err := n.register(); err != nil {
		return err
	}
	return s.RunUntilIdle()
}

// FillNode uses up what is left of a node's CPU and memory with a filler
// service job pinned to it, as other tenants would.
func (s *Sim) FillNode(name string) error {
	n, err := s.node(name)
	if err != nil {
		return err
	}
	cpu, mem, err := s.freeOn(n)
	if err != nil {
		return err
	}
	if cpu <= 0 || mem <= 0 {
		return nil
	}
	return s.RegisterJob(JobSpec{
		Name: "fill-" + name, CPU: int(cpu), MemoryMB: int(mem), Priority: 100,
		Constraints: []ConstraintSpec{{Attribute: "node.unique.name", Value: name}},
	})
}

// freeOn is the node's capacity minus its live allocs' reservations.
func (s *Sim) freeOn(n *Node) (cpu, mem int64, err error) {
	allocs, err := s.srv.State().AllocsByNode(nil, n.ID)
	if err != nil {
		return 0, 0, err
	}
	n.mu.Lock()
	cpu, mem = n.spec.CPU, n.spec.MemoryMB
	n.mu.Unlock()
	for _, a := range allocs {
		if a.TerminalStatus() || a.AllocatedResources == nil {
			continue
		}
		for _, t := range a.AllocatedResources.Tasks {
			cpu -= t.CpuShares
			mem -= t.MemoryMB
		}
	}
	return cpu, mem, nil
}

// Drain starts draining a node (no deadline): the drainer migrates its
// allocs with node-drain evals.
func (s *Sim) Drain(name string) error {
	n, err := s.node(name)
	if err != nil {
		return err
	}
	if _, err := server.NodeUpdateDrain.Call(context.Background(), s.srv, &structs.NodeUpdateDrainArgs{NodeID: n.ID, DrainStrategy: &structs.DrainSpec{}}); err != nil {
		return fmt.Errorf("sim: drain %s: %w", name, err)
	}
	return s.RunUntilIdle()
}
