package state

import (
	"strings"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// Tables of ACL auth methods (by name), binding rules (by ID) and
// one-time tokens (by secret).
const (
	TableACLAuthMethods  = "acl_auth_method"
	TableACLBindingRules = "acl_binding_rule"
	TableOneTimeTokens   = "one_time_token"
	TableOIDCRequests    = "oidc_auth_request"
)

func oidcRequestTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableOIDCRequests, Indexes: map[string]*memdb.IndexSchema{
		"id": unique("id", str("State")),
	}}
}

// UpsertOIDCAuthRequest stores a pending OIDC login and removes every
// one expired at now (a zero now expires none).
func (s *StateStore) UpsertOIDCAuthRequest(index uint64, r *structs.OIDCAuthRequest, now time.Time) error {
	return s.write(index, func(tx *writeTxn) error {
		if !now.IsZero() {
			expired, err := listWhere[structs.OIDCAuthRequest](tx.Txn, nil, func(p *structs.OIDCAuthRequest) bool {
				return !p.ExpiresAt.After(now)
			}, TableOIDCRequests, "id")
			if err != nil {
				return err
			}
			for _, p := range expired {
				if err := tx.remove(TableOIDCRequests, p); err != nil {
					return err
				}
			}
		}
		if r == nil {
			return nil
		}
		c := *r
		c.CreateIndex, c.ModifyIndex = index, index
		return tx.insert(TableOIDCRequests, &c)
	})
}

// DeleteOIDCAuthRequests consumes pending OIDC logins by state; an
// unknown state is an error (ErrNotFound) and nothing is deleted.
func (s *StateStore) DeleteOIDCAuthRequests(index uint64, states []string) error {
	return s.write(index, func(tx *writeTxn) error {
		return deleteAll[structs.OIDCAuthRequest](tx, TableOIDCRequests, "OIDC auth request", states)
	})
}

// OIDCAuthRequestByState returns a pending OIDC login, or nil.
func (r reader) OIDCAuthRequestByState(ws memdb.WatchSet, state string) (*structs.OIDCAuthRequest, error) {
	return first[structs.OIDCAuthRequest](r.txn(), ws, TableOIDCRequests, "id", state)
}

// OIDCAuthRequests lists every pending OIDC login.
func (r reader) OIDCAuthRequests(ws memdb.WatchSet) ([]*structs.OIDCAuthRequest, error) {
	return listWhere[structs.OIDCAuthRequest](r.txn(), ws, func(*structs.OIDCAuthRequest) bool { return true }, TableOIDCRequests, "id")
}

func aclAuthMethodTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableACLAuthMethods, Indexes: map[string]*memdb.IndexSchema{
		"id": unique("id", str("Name")),
	}}
}

func aclBindingRuleTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableACLBindingRules, Indexes: map[string]*memdb.IndexSchema{
		"id":          unique("id", &memdb.UUIDFieldIndex{Field: "ID"}),
		"auth_method": {Name: "auth_method", Indexer: str("AuthMethod")},
	}}
}

func oneTimeTokenTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableOneTimeTokens, Indexes: map[string]*memdb.IndexSchema{
		"id": unique("id", str("OneTimeSecretID")),
	}}
}

// UpsertACLAuthMethods writes auth methods by name, keeping each existing
// one's CreateIndex. A method written as the default takes the mark from
// any other.
func (s *StateStore) UpsertACLAuthMethods(index uint64, methods []*structs.ACLAuthMethod) error {
	return s.write(index, func(tx *writeTxn) error {
		for _, m := range methods {
			if m.Default {
				if err := tx.clearDefaultAuthMethod(m.Name); err != nil {
					return err
				}
			}
			existing, err := first[structs.ACLAuthMethod](tx.Txn, nil, TableACLAuthMethods, "id", m.Name)
			if err != nil {
				return err
			}
			c := m.Copy()
			c.CreateIndex, c.ModifyIndex = index, index
			if existing != nil {
				c.CreateIndex, c.CreateTime = existing.CreateIndex, existing.CreateTime
			}
			if err := tx.insert(TableACLAuthMethods, c); err != nil {
				return err
			}
		}
		return nil
	})
}

func (tx *writeTxn) clearDefaultAuthMethod(except string) error {
	all, err := listWhere[structs.ACLAuthMethod](tx.Txn, nil, func(m *structs.ACLAuthMethod) bool {
		return m.Default && m.Name != except
	}, TableACLAuthMethods, "id")
	if err != nil {
		return err
	}
	for _, m := range all {
		c := m.Copy()
		c.Default, c.ModifyIndex = false, tx.index
		if err := tx.insert(TableACLAuthMethods, c); err != nil {
			return err
		}
	}
	return nil
}

// DeleteACLAuthMethods deletes auth methods by name, with their binding
// rules; unknown names are an error and nothing is deleted.
func (s *StateStore) DeleteACLAuthMethods(index uint64, names []string) error {
	return s.write(index, func(tx *writeTxn) error {
		if err := deleteAll[structs.ACLAuthMethod](tx, TableACLAuthMethods, "ACL auth method", names); err != nil {
			return err
		}
		for _, name := range names {
			rules, err := list[structs.ACLBindingRule](tx.Txn, nil, TableACLBindingRules, "auth_method", name)
			if err != nil {
				return err
			}
			for _, r := range rules {
				if err := tx.remove(TableACLBindingRules, r); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// ACLAuthMethodByName returns an auth method, or nil.
func (r reader) ACLAuthMethodByName(ws memdb.WatchSet, name string) (*structs.ACLAuthMethod, error) {
	return first[structs.ACLAuthMethod](r.txn(), ws, TableACLAuthMethods, "id", name)
}

// ACLAuthMethods lists auth methods by name.
func (r reader) ACLAuthMethods(ws memdb.WatchSet) ([]*structs.ACLAuthMethod, error) {
	return listWhere[structs.ACLAuthMethod](r.txn(), ws, func(*structs.ACLAuthMethod) bool { return true }, TableACLAuthMethods, "id")
}

// UpsertACLBindingRules writes binding rules by ID, keeping each existing
// one's CreateIndex. The endpoint has checked that their auth methods
// exist; a rule whose method was deleted meanwhile is refused.
func (s *StateStore) UpsertACLBindingRules(index uint64, rules []*structs.ACLBindingRule) error {
	return s.write(index, func(tx *writeTxn) error {
		for _, r := range rules {
			if !isUUID(r.ID) {
				return errNotFoundf("ACL binding rule ID %q", r.ID)
			}
			if m, err := first[structs.ACLAuthMethod](tx.Txn, nil, TableACLAuthMethods, "id", r.AuthMethod); err != nil || m == nil {
				return errNotFoundf("ACL auth method %q", r.AuthMethod)
			}
			existing, err := first[structs.ACLBindingRule](tx.Txn, nil, TableACLBindingRules, "id", r.ID)
			if err != nil {
				return err
			}
			c := r.Copy()
			c.CreateIndex, c.ModifyIndex = index, index
			if existing != nil {
				c.CreateIndex, c.CreateTime = existing.CreateIndex, existing.CreateTime
			}
			if err := tx.insert(TableACLBindingRules, c); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteACLBindingRules deletes binding rules by ID; unknown IDs are an
// error and nothing is deleted.
func (s *StateStore) DeleteACLBindingRules(index uint64, ids []string) error {
	return s.write(index, func(tx *writeTxn) error {
		for _, id := range ids {
			if !isUUID(id) {
				return errNotFoundf("ACL binding rule %q", id)
			}
		}
		return deleteAll[structs.ACLBindingRule](tx, TableACLBindingRules, "ACL binding rule", ids)
	})
}

// ACLBindingRuleByID returns a binding rule, or nil. A malformed ID is absent.
func (r reader) ACLBindingRuleByID(ws memdb.WatchSet, id string) (*structs.ACLBindingRule, error) {
	if !isUUID(id) {
		return nil, nil
	}
	return first[structs.ACLBindingRule](r.txn(), ws, TableACLBindingRules, "id", id)
}

// ACLBindingRules lists binding rules by ID, optionally by ID prefix.
func (r reader) ACLBindingRules(ws memdb.WatchSet, prefix string) ([]*structs.ACLBindingRule, error) {
	return listWhere[structs.ACLBindingRule](r.txn(), ws, func(b *structs.ACLBindingRule) bool {
		return strings.HasPrefix(b.ID, prefix)
	}, TableACLBindingRules, "id")
}

// ACLBindingRulesByAuthMethod lists an auth method's binding rules, by ID.
func (r reader) ACLBindingRulesByAuthMethod(ws memdb.WatchSet, method string) ([]*structs.ACLBindingRule, error) {
	return list[structs.ACLBindingRule](r.txn(), ws, TableACLBindingRules, "auth_method", method)
}

// UpsertOneTimeToken stores a one-time token.
func (s *StateStore) UpsertOneTimeToken(index uint64, t *structs.OneTimeToken) error {
	return s.write(index, func(tx *writeTxn) error {
		c := *t
		c.CreateIndex, c.ModifyIndex = index, index
		return tx.insert(TableOneTimeTokens, &c)
	})
}

// DeleteOneTimeTokens deletes one-time tokens by secret (an exchange:
// an unknown secret is an error and nothing is deleted) and every token
// expired at now (the GC; a zero now expires none).
func (s *StateStore) DeleteOneTimeTokens(index uint64, secrets []string, now time.Time) error {
	return s.write(index, func(tx *writeTxn) error {
		if err := deleteAll[structs.OneTimeToken](tx, TableOneTimeTokens, "one-time token", secrets); err != nil {
			return err
		}
		if now.IsZero() {
			return nil
		}
		expired, err := listWhere[structs.OneTimeToken](tx.Txn, nil, func(t *structs.OneTimeToken) bool {
			return !t.ExpiresAt.After(now)
		}, TableOneTimeTokens, "id")
		if err != nil {
			return err
		}
		for _, t := range expired {
			if err := tx.remove(TableOneTimeTokens, t); err != nil {
				return err
			}
		}
		return nil
	})
}

// OneTimeTokenBySecret returns a one-time token, or nil.
func (r reader) OneTimeTokenBySecret(ws memdb.WatchSet, secret string) (*structs.OneTimeToken, error) {
	return first[structs.OneTimeToken](r.txn(), ws, TableOneTimeTokens, "id", secret)
}

// OneTimeTokens lists every one-time token.
func (r reader) OneTimeTokens(ws memdb.WatchSet) ([]*structs.OneTimeToken, error) {
	return listWhere[structs.OneTimeToken](r.txn(), ws, func(*structs.OneTimeToken) bool { return true }, TableOneTimeTokens, "id")
}
