package state

import (
	"errors"
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// ACL tables and the index-table key that records the bootstrap.
const (
	TableACLPolicies = "acl_policy"
	TableACLTokens   = "acl_token"
	// ACLBootstrapKey is the index-table row holding the raft index of the
	// ACL bootstrap (0: never bootstrapped).
	ACLBootstrapKey = "acl_token_bootstrap"
)

// ErrACLAlreadyBootstrapped refuses a second bootstrap (without the reset
// index).
var ErrACLAlreadyBootstrapped = errors.New("ACL bootstrap already done")

func aclPolicyTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableACLPolicies, Indexes: map[string]*memdb.IndexSchema{
		"id": unique("id", str("Name")),
	}}
}

func aclTokenTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableACLTokens, Indexes: map[string]*memdb.IndexSchema{
		"id":     unique("id", &memdb.UUIDFieldIndex{Field: "AccessorID"}),
		"secret": unique("secret", &memdb.UUIDFieldIndex{Field: "SecretID"}),
	}}
}

// UpsertACLPolicies writes policies, keeping each existing one's CreateIndex.
func (s *StateStore) UpsertACLPolicies(index uint64, policies []*structs.ACLPolicy) error {
	return s.write(index, func(tx *writeTxn) error {
		return upsertKeepingCreate(tx, TableACLPolicies, policies, func(p *structs.ACLPolicy) string { return p.Name }, aclPolicyIndexes)
	})
}

// DeleteACLPolicies deletes policies by name; unknown names are an error
// and nothing is deleted.
func (s *StateStore) DeleteACLPolicies(index uint64, names []string) error {
	return s.write(index, func(tx *writeTxn) error {
		return deleteAll[structs.ACLPolicy](tx, TableACLPolicies, "ACL policy", names)
	})
}

// deleteAll deletes the rows of table with the given ids, failing (and so
// deleting nothing) on the first unknown one.
func deleteAll[T any](tx *writeTxn, table, what string, ids []string) error {
	for _, id := range ids {
		existing, err := first[T](tx.Txn, nil, table, "id", id)
		if err != nil {
			return err
		}
		if existing == nil {
			return errNotFoundf("%s %q", what, id)
		}
		if err := tx.remove(table, existing); err != nil {
			return err
		}
	}
	return nil
}

// ACLPolicyByName returns a policy, or nil.
func (r reader) ACLPolicyByName(ws memdb.WatchSet, name string) (*structs.ACLPolicy, error) {
	return first[structs.ACLPolicy](r.txn(), ws, TableACLPolicies, "id", name)
}

// ACLPolicies lists policies whose name starts with prefix, by name.
func (r reader) ACLPolicies(ws memdb.WatchSet, prefix string) ([]*structs.ACLPolicy, error) {
	return list[structs.ACLPolicy](r.txn(), ws, TableACLPolicies, "id_prefix", prefix)
}

// UpsertACLTokens writes tokens, keeping each existing one's CreateIndex.
func (s *StateStore) UpsertACLTokens(index uint64, tokens []*structs.ACLToken) error {
	return s.write(index, func(tx *writeTxn) error { return tx.upsertACLTokens(tokens) })
}

func (tx *writeTxn) upsertACLTokens(tokens []*structs.ACLToken) error {
	return upsertKeepingCreate(tx, TableACLTokens, tokens, func(t *structs.ACLToken) string { return t.AccessorID },
		func(t *structs.ACLToken) (create, modify *uint64) { return &t.CreateIndex, &t.ModifyIndex })
}

// DeleteACLTokens deletes tokens by accessor; unknown accessors are an
// error and nothing is deleted.
func (s *StateStore) DeleteACLTokens(index uint64, accessorIDs []string) error {
	return s.write(index, func(tx *writeTxn) error {
		return deleteAll[structs.ACLToken](tx, TableACLTokens, "ACL token", accessorIDs)
	})
}

// BootstrapACLToken writes the first management token and records the
// bootstrap index. A second bootstrap is refused unless resetIndex is the
// current bootstrap's index.
func (s *StateStore) BootstrapACLToken(index, resetIndex uint64, token *structs.ACLToken) error {
	return s.write(index, func(tx *writeTxn) error {
		if cur := tableIndex(tx.Txn, ACLBootstrapKey); cur != 0 && cur != resetIndex {
			return fmt.Errorf("%w (reset index: %d)", ErrACLAlreadyBootstrapped, cur)
		}
		if err := tx.upsertACLTokens([]*structs.ACLToken{token}); err != nil {
			return err
		}
		return tx.Insert(TableIndex, &IndexEntry{Key: ACLBootstrapKey, Value: index})
	})
}

// ACLBootstrapIndex is the raft index of the ACL bootstrap, 0 if none.
func (r reader) ACLBootstrapIndex() uint64 { return tableIndex(r.txn(), ACLBootstrapKey) }

// ACLTokenByAccessorID returns a token, or nil. A malformed ID is absent.
func (r reader) ACLTokenByAccessorID(ws memdb.WatchSet, id string) (*structs.ACLToken, error) {
	if !isUUID(id) {
		return nil, nil
	}
	return first[structs.ACLToken](r.txn(), ws, TableACLTokens, "id", id)
}

// ACLTokenBySecretID returns a token, or nil. A malformed secret is absent.
func (r reader) ACLTokenBySecretID(ws memdb.WatchSet, secret string) (*structs.ACLToken, error) {
	if !isUUID(secret) {
		return nil, nil
	}
	return first[structs.ACLToken](r.txn(), ws, TableACLTokens, "secret", secret)
}

// ACLTokens lists tokens by accessor, optionally by accessor prefix.
func (r reader) ACLTokens(ws memdb.WatchSet, prefix string) ([]*structs.ACLToken, error) {
	if prefix == "" {
		return list[structs.ACLToken](r.txn(), ws, TableACLTokens, "id")
	}
	return listWhere[structs.ACLToken](r.txn(), ws, func(t *structs.ACLToken) bool {
		return len(t.AccessorID) >= len(prefix) && t.AccessorID[:len(prefix)] == prefix
	}, TableACLTokens, "id")
}

// isUUID reports whether s has the 36-character UUID shape the token
// indexes require (memdb errors on anything else).
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

func aclPolicyIndexes(r *structs.ACLPolicy) (create, modify *uint64) {
	return &r.CreateIndex, &r.ModifyIndex
}
