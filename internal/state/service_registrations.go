package state

import (
	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// TableServiceRegistrations is the native service catalog: one row per
// alloc and `provider = "nomad"` service block.
const TableServiceRegistrations = "service_registrations"

func serviceRegistrationsTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableServiceRegistrations, Indexes: map[string]*memdb.IndexSchema{
		"id":           unique("id", str("ID")),
		"service_name": {Name: "service_name", Indexer: nsAnd("ServiceName")},
		"job":          {Name: "job", Indexer: nsAnd("JobID")},
		"alloc":        {Name: "alloc", Indexer: str("AllocID")},
		"node":         {Name: "node", Indexer: str("NodeID")},
		"namespace":    {Name: "namespace", Indexer: str("Namespace")},
	}}
}

// UpsertServiceRegistrations writes registrations. An unchanged one keeps
// its indexes and is not rewritten, so a client re-registering the same
// services wakes no blocking query.
func (s *StateStore) UpsertServiceRegistrations(index uint64, regs []*structs.ServiceRegistration) error {
	return s.write(index, func(tx *writeTxn) error {
		for _, reg := range regs {
			existing, err := first[structs.ServiceRegistration](tx.Txn, nil, TableServiceRegistrations, "id", reg.ID)
			if err != nil {
				return err
			}
			if existing.Equal(reg) {
				continue
			}
			c := reg.Copy()
			c.CreateIndex, c.ModifyIndex = index, index
			if existing != nil {
				c.CreateIndex = existing.CreateIndex
			}
			if err := tx.insert(TableServiceRegistrations, c); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteServiceRegistrations deletes registrations by ID; unknown IDs are
// skipped (the alloc's client and core GC may both remove one).
func (s *StateStore) DeleteServiceRegistrations(index uint64, ids []string) error {
	return s.write(index, func(tx *writeTxn) error {
		for _, id := range ids {
			existing, err := first[structs.ServiceRegistration](tx.Txn, nil, TableServiceRegistrations, "id", id)
			if err != nil {
				return err
			}
			if existing == nil {
				continue
			}
			if err := tx.remove(TableServiceRegistrations, existing); err != nil {
				return err
			}
		}
		return nil
	})
}

// deleteNodeServiceRegistrations drops every registration of a node, in the
// transaction that marks the node down: its allocs no longer answer.
func deleteNodeServiceRegistrations(tx *writeTxn, nodeID string) error {
	regs, err := list[structs.ServiceRegistration](tx.Txn, nil, TableServiceRegistrations, "node", nodeID)
	if err != nil {
		return err
	}
	for _, reg := range regs {
		if err := tx.remove(TableServiceRegistrations, reg); err != nil {
			return err
		}
	}
	return nil
}

// ServiceRegistrations lists the registrations of a namespace ("*": all),
// ordered by namespace then service name.
func (r reader) ServiceRegistrations(ws memdb.WatchSet, namespace string) ([]*structs.ServiceRegistration, error) {
	if namespace == AllNamespaces {
		return list[structs.ServiceRegistration](r.txn(), ws, TableServiceRegistrations, "service_name")
	}
	return list[structs.ServiceRegistration](r.txn(), ws, TableServiceRegistrations, "service_name_prefix", namespace, "")
}

// ServiceRegistrationsByName lists one service's registrations.
func (r reader) ServiceRegistrationsByName(ws memdb.WatchSet, namespace, name string) ([]*structs.ServiceRegistration, error) {
	return list[structs.ServiceRegistration](r.txn(), ws, TableServiceRegistrations, "service_name", namespace, name)
}

// ServiceRegistrationsByJob lists a job's registrations.
func (r reader) ServiceRegistrationsByJob(ws memdb.WatchSet, namespace, jobID string) ([]*structs.ServiceRegistration, error) {
	return list[structs.ServiceRegistration](r.txn(), ws, TableServiceRegistrations, "job", namespace, jobID)
}

// ServiceRegistrationsByAlloc lists an allocation's registrations.
func (r reader) ServiceRegistrationsByAlloc(ws memdb.WatchSet, allocID string) ([]*structs.ServiceRegistration, error) {
	return list[structs.ServiceRegistration](r.txn(), ws, TableServiceRegistrations, "alloc", allocID)
}

// ServiceRegistrationsByNode lists a node's registrations.
func (r reader) ServiceRegistrationsByNode(ws memdb.WatchSet, nodeID string) ([]*structs.ServiceRegistration, error) {
	return list[structs.ServiceRegistration](r.txn(), ws, TableServiceRegistrations, "node", nodeID)
}

// ServiceRegistrationByID returns one registration, or nil.
func (r reader) ServiceRegistrationByID(ws memdb.WatchSet, id string) (*structs.ServiceRegistration, error) {
	return first[structs.ServiceRegistration](r.txn(), ws, TableServiceRegistrations, "id", id)
}
