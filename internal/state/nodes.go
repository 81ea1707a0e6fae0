package state

import (
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// maxNodeEvents caps a node's event history; older events are dropped.
const maxNodeEvents = 10

// Values of DrainMetadata.Status.
const (
	drainStatusDraining = "draining"
	drainStatusComplete = "complete"
)

// UpsertNode registers a node or re-registers it. Drain, eligibility and
// drain history are the server's: a re-registering client that leaves them
// empty does not reset them.
func (s *StateStore) UpsertNode(index uint64, node *structs.Node, evals ...*structs.Evaluation) error {
	return s.write(index, func(tx *writeTxn) error {
		existing, err := nodeByID(tx.Txn, nil, node.ID)
		if err != nil {
			return err
		}
		if err := tx.ensureNodePool(node.NodePool); err != nil {
			return err
		}
		c := node.Copy()
		c.CreateIndex, c.ModifyIndex = index, index
		stampNodeEvents(c.Events, index) // before merging: stored events are immutable
		if existing != nil {
			keepServerNodeFields(c, existing)
		}
		if c.SchedulingEligibility == "" || c.DrainStrategy != nil {
			c.SchedulingEligibility = eligibilityFor(c.DrainStrategy)
		}
		tx.compactNode(c)
		return tx.insert(TableNodes, c)
	}, evals...)
}

// keepServerNodeFields carries over what the server owns into a
// re-registration, and appends the new events to the history.
func keepServerNodeFields(c, existing *structs.Node) {
	c.CreateIndex = existing.CreateIndex
	if c.DrainStrategy == nil {
		c.DrainStrategy = existing.DrainStrategy
	}
	if c.SchedulingEligibility == "" {
		c.SchedulingEligibility = existing.SchedulingEligibility
	}
	if c.LastDrain == nil {
		c.LastDrain = existing.LastDrain
	}
	c.Events = capEvents(append(slices.Clone(existing.Events), c.Events...))
}

func eligibilityFor(drain *structs.DrainStrategy) string {
	if drain != nil {
		return structs.NodeSchedulingIneligible
	}
	return structs.NodeSchedulingEligible
}

// stampNodeEvents sets the raft index on events that do not have one yet.
func stampNodeEvents(events []*structs.NodeEvent, index uint64) {
	for _, e := range events {
		if e.CreateIndex == 0 {
			e.CreateIndex = index
		}
	}
}

func capEvents(events []*structs.NodeEvent) []*structs.NodeEvent {
	if len(events) > maxNodeEvents {
		return events[len(events)-maxNodeEvents:]
	}
	return events
}

// DeleteNodes removes nodes. If any is unknown nothing is removed.
func (s *StateStore) DeleteNodes(index uint64, nodeIDs []string, evals ...*structs.Evaluation) error {
	return s.write(index, func(tx *writeTxn) error {
		for _, id := range nodeIDs {
			n, err := nodeByID(tx.Txn, nil, id)
			if err != nil {
				return err
			}
			if n == nil {
				return errNotFoundf("node %s", id)
			}
			if err := tx.remove(TableNodes, n); err != nil {
				return err
			}
			if err := deleteNodeServiceRegistrations(tx, id); err != nil {
				return err
			}
		}
		return nil
	}, evals...)
}

// updateNode applies change to a copy of the node and stores it, with the
// common bookkeeping of every node update: the status timestamp (unix
// seconds, decided before raft) and an optional event.
func (s *StateStore) updateNode(index uint64, nodeID string, updatedAt int64, event *structs.NodeEvent, change func(*structs.Node) error, evals []*structs.Evaluation) error {
	return s.write(index, func(tx *writeTxn) error {
		existing, err := nodeByID(tx.Txn, nil, nodeID)
		if err != nil {
			return err
		}
		if existing == nil {
			return errNotFoundf("node %s", nodeID)
		}
		c := modifiedNode(existing)
		if err := change(c); err != nil {
			return err
		}
		c.StatusUpdatedAt = updatedAt
		c.ModifyIndex = index
		if event != nil {
			ev := event.Copy()
			ev.CreateIndex = index
			c.Events = capEvents(append(c.Events, ev))
		}
		if c.Status == structs.NodeStatusDown {
			// A down node's allocs answer no one: its services leave the
			// catalog in the entry that marks it down.
			if err := deleteNodeServiceRegistrations(tx, nodeID); err != nil {
				return err
			}
		}
		tx.compactNode(c)
		return tx.insert(TableNodes, c)
	}, evals...)
}

// UpdateNodeStatus sets a node's status (ready, down, disconnected...).
func (s *StateStore) UpdateNodeStatus(index uint64, nodeID, status string, updatedAt int64, event *structs.NodeEvent, evals ...*structs.Evaluation) error {
	if !structs.ValidNodeStatus(status) {
		return fmt.Errorf("invalid node status %q", status)
	}
	return s.updateNode(index, nodeID, updatedAt, event, func(n *structs.Node) error {
		n.Status = status
		return nil
	}, evals)
}

// UpdateNodeEligibility sets a node's scheduling eligibility. A draining
// node cannot be made eligible: the drain would immediately be violated.
func (s *StateStore) UpdateNodeEligibility(index uint64, nodeID, eligibility string, updatedAt int64, event *structs.NodeEvent, evals ...*structs.Evaluation) error {
	if eligibility != structs.NodeSchedulingEligible && eligibility != structs.NodeSchedulingIneligible {
		return fmt.Errorf("invalid scheduling eligibility %q", eligibility)
	}
	return s.updateNode(index, nodeID, updatedAt, event, func(n *structs.Node) error {
		if eligibility == structs.NodeSchedulingEligible && n.DrainStrategy != nil {
			return fmt.Errorf("node %s: %w", nodeID, ErrEligibleWhileDraining)
		}
		n.SchedulingEligibility = eligibility
		return nil
	}, evals)
}

// UpdateNodeDrain starts, changes (drain != nil) or ends (drain == nil) a
// drain. A draining node is always ineligible; ending a drain leaves it
// ineligible unless markEligible.
func (s *StateStore) UpdateNodeDrain(index uint64, nodeID string, drain *structs.DrainStrategy, markEligible bool, updatedAt int64, event *structs.NodeEvent, evals ...*structs.Evaluation) error {
	return s.updateNode(index, nodeID, updatedAt, event, func(n *structs.Node) error {
		n.LastDrain = nextDrainMetadata(n, drain != nil, time.Unix(updatedAt, 0).UTC())
		n.DrainStrategy = drain.Copy()
		switch {
		case drain != nil:
			n.SchedulingEligibility = structs.NodeSchedulingIneligible
		case markEligible:
			n.SchedulingEligibility = structs.NodeSchedulingEligible
		}
		return nil
	}, evals)
}

// nextDrainMetadata records the start, update or end of a drain.
func nextDrainMetadata(n *structs.Node, draining bool, now time.Time) *structs.DrainMetadata {
	switch {
	case draining && n.DrainStrategy == nil:
		return &structs.DrainMetadata{StartedAt: now, UpdatedAt: now, Status: drainStatusDraining}
	case n.LastDrain == nil:
		return nil
	}
	md := n.LastDrain.Copy()
	md.UpdatedAt = now
	if !draining {
		md.Status = drainStatusComplete
	}
	return md
}

// NodeByID returns the node, or nil.
func (r reader) NodeByID(ws memdb.WatchSet, id string) (*structs.Node, error) {
	return nodeByID(r.txn(), ws, id)
}

func nodeByID(txn *memdb.Txn, ws memdb.WatchSet, id string) (*structs.Node, error) {
	return first[structs.Node](txn, ws, TableNodes, "id", id)
}

// NodeBySecretID returns the node holding a secret ID, or nil.
func (r reader) NodeBySecretID(ws memdb.WatchSet, secretID string) (*structs.Node, error) {
	return first[structs.Node](r.txn(), ws, TableNodes, "secret_id", secretID)
}

// NodesByIDPrefix returns the nodes whose ID starts with prefix, by ID.
func (r reader) NodesByIDPrefix(ws memdb.WatchSet, prefix string) ([]*structs.Node, error) {
	return list[structs.Node](r.txn(), ws, TableNodes, "id_prefix", prefix)
}

// Nodes returns every node, sorted by ID.
func (r reader) Nodes(ws memdb.WatchSet) ([]*structs.Node, error) {
	return list[structs.Node](r.txn(), ws, TableNodes, "id")
}

// NodesDraining returns the nodes with a drain strategy, watching only
// them: changes to other nodes do not fire ws.
func (r reader) NodesDraining(ws memdb.WatchSet) ([]*structs.Node, error) {
	return list[structs.Node](r.txn(), ws, TableNodes, "draining", true)
}
