package state

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// TableACLRoles holds ACL roles by ID (unique by name).
const TableACLRoles = "acl_role"

// ErrACLRoleInvalid refuses a role write that the endpoint's checks
// should have caught, raced by another write: a name taken by another
// role, or a policy deleted meanwhile.
var ErrACLRoleInvalid = errors.New("invalid ACL role")

func aclRoleTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableACLRoles, Indexes: map[string]*memdb.IndexSchema{
		"id":   unique("id", &memdb.UUIDFieldIndex{Field: "ID"}),
		"name": unique("name", str("Name")),
	}}
}

// UpsertACLRoles writes roles, keeping each existing one's CreateIndex.
// Every policy a role names must exist and its name must be free.
func (s *StateStore) UpsertACLRoles(index uint64, roles []*structs.ACLRole) error {
	return s.write(index, func(tx *writeTxn) error {
		for _, r := range roles {
			if err := tx.upsertACLRole(r); err != nil {
				return err
			}
		}
		return nil
	})
}

func (tx *writeTxn) upsertACLRole(r *structs.ACLRole) error {
	if !isUUID(r.ID) {
		return fmt.Errorf("%w: ID %q is not a UUID", ErrACLRoleInvalid, r.ID)
	}
	named, err := first[structs.ACLRole](tx.Txn, nil, TableACLRoles, "name", r.Name)
	if err != nil {
		return err
	}
	if named != nil && named.ID != r.ID {
		return fmt.Errorf("%w: name %q is taken by role %s", ErrACLRoleInvalid, r.Name, named.ID)
	}
	for _, p := range r.Policies {
		if pol, err := first[structs.ACLPolicy](tx.Txn, nil, TableACLPolicies, "id", p.Name); err != nil || pol == nil {
			return fmt.Errorf("%w: policy %q does not exist", ErrACLRoleInvalid, p.Name)
		}
	}
	existing, err := first[structs.ACLRole](tx.Txn, nil, TableACLRoles, "id", r.ID)
	if err != nil {
		return err
	}
	c := r.Copy()
	c.CreateIndex, c.ModifyIndex = tx.index, tx.index
	if existing != nil {
		c.CreateIndex = existing.CreateIndex
	}
	return tx.insert(TableACLRoles, c)
}

// DeleteACLRoles deletes roles by ID; unknown IDs are an error and nothing
// is deleted. Tokens keep their links: a link to a deleted role grants
// nothing.
func (s *StateStore) DeleteACLRoles(index uint64, ids []string) error {
	return s.write(index, func(tx *writeTxn) error {
		for _, id := range ids {
			if !isUUID(id) {
				return errNotFoundf("ACL role %q", id)
			}
		}
		return deleteAll[structs.ACLRole](tx, TableACLRoles, "ACL role", ids)
	})
}

// ACLRoleByID returns a role, or nil. A malformed ID is absent.
func (r reader) ACLRoleByID(ws memdb.WatchSet, id string) (*structs.ACLRole, error) {
	if !isUUID(id) {
		return nil, nil
	}
	return first[structs.ACLRole](r.txn(), ws, TableACLRoles, "id", id)
}

// ACLRoleByName returns a role, or nil.
func (r reader) ACLRoleByName(ws memdb.WatchSet, name string) (*structs.ACLRole, error) {
	return first[structs.ACLRole](r.txn(), ws, TableACLRoles, "name", name)
}

// ACLRoles lists roles by ID, optionally by ID prefix.
func (r reader) ACLRoles(ws memdb.WatchSet, prefix string) ([]*structs.ACLRole, error) {
	return listWhere[structs.ACLRole](r.txn(), ws, func(role *structs.ACLRole) bool {
		return strings.HasPrefix(role.ID, prefix)
	}, TableACLRoles, "id")
}
