package state

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// TableNamespaces holds the namespaces written through raft. "default" is
// built in: reads return structs.BuiltinDefaultNamespace() until someone
// writes it, so every server has it without a raft entry.
const TableNamespaces = "namespaces"

// ErrNamespaceNotEmpty refuses to delete a namespace that still has jobs.
var ErrNamespaceNotEmpty = errors.New("namespace has jobs")

// ErrNamespaceMissing refuses a job whose namespace does not exist.
var ErrNamespaceMissing = errors.New("namespace does not exist")

func namespacesTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableNamespaces, Indexes: map[string]*memdb.IndexSchema{
		"id": unique("id", str("Name")),
	}}
}

// UpsertNamespaces creates or replaces namespaces, keeping each one's
// CreateIndex.
func (s *StateStore) UpsertNamespaces(index uint64, namespaces []*structs.Namespace) error {
	return s.write(index, func(tx *writeTxn) error {
		return upsertKeepingCreate(tx, TableNamespaces, namespaces, func(ns *structs.Namespace) string { return ns.Name }, namespaceIndexes)
	})
}

// DeleteNamespaces deletes namespaces; all or none. A namespace with jobs
// is refused (ErrNamespaceNotEmpty), and so is "default".
func (s *StateStore) DeleteNamespaces(index uint64, names []string) error {
	return s.write(index, func(tx *writeTxn) error {
		for _, name := range names {
			if name == structs.DefaultNamespace {
				return fmt.Errorf("namespace %q is built in and cannot be deleted", name)
			}
			jobs, err := list[structs.Job](tx.Txn, nil, TableJobs, "id_prefix", name, "")
			if err != nil {
				return err
			}
			if len(jobs) > 0 {
				return fmt.Errorf("namespace %q: %w (%d)", name, ErrNamespaceNotEmpty, len(jobs))
			}
			existing, err := first[structs.Namespace](tx.Txn, nil, TableNamespaces, "id", name)
			if err != nil {
				return err
			}
			if existing == nil {
				return errNotFoundf("namespace %q", name)
			}
			if err := tx.remove(TableNamespaces, existing); err != nil {
				return err
			}
		}
		return nil
	})
}

// NamespaceByName returns a namespace, or nil when it does not exist.
func (r reader) NamespaceByName(ws memdb.WatchSet, name string) (*structs.Namespace, error) {
	ns, err := first[structs.Namespace](r.txn(), ws, TableNamespaces, "id", name)
	if ns == nil && err == nil && name == structs.DefaultNamespace {
		return structs.BuiltinDefaultNamespace(), nil
	}
	return ns, err
}

// Namespaces returns every namespace whose name starts with prefix, by
// name, "default" included.
func (r reader) Namespaces(ws memdb.WatchSet, prefix string) ([]*structs.Namespace, error) {
	out, err := list[structs.Namespace](r.txn(), ws, TableNamespaces, "id")
	if err != nil {
		return nil, err
	}
	hasDefault := slices.ContainsFunc(out, func(n *structs.Namespace) bool { return n.Name == structs.DefaultNamespace })
	if !hasDefault {
		out = append(out, structs.BuiltinDefaultNamespace())
		slices.SortFunc(out, func(a, b *structs.Namespace) int { return strings.Compare(a.Name, b.Name) })
	}
	return slices.DeleteFunc(out, func(n *structs.Namespace) bool { return !strings.HasPrefix(n.Name, prefix) }), nil
}

func namespaceIndexes(r *structs.Namespace) (create, modify *uint64) {
	return &r.CreateIndex, &r.ModifyIndex
}
