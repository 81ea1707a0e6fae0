package structs

import (
	"slices"
	"time"
)

// Token types.
const (
	ACLClientToken     = "client"
	ACLManagementToken = "management"
)

// AnonymousPolicyName is the policy that applies to requests without a
// token, when it exists.
const AnonymousPolicyName = "anonymous"

// ACLPolicy is a named policy document (rules in Nomad's ACL HCL).
type ACLPolicy struct {
	Name        string
	Description string
	Rules       string

	CreateIndex uint64
	ModifyIndex uint64
}

// Copy returns a deep copy.
func (p *ACLPolicy) Copy() *ACLPolicy {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

// ACLToken is a credential: the caller presents SecretID; AccessorID names
// the token in listings and management calls without revealing it.
type ACLToken struct {
	AccessorID string
	SecretID   string
	Name       string
	// Type is ACLClientToken (the union of Policies) or ACLManagementToken
	// (everything).
	Type     string
	Policies []string
	// Roles link the token to roles, whose policies it holds too.
	Roles []*ACLTokenRoleLink
	// Global tokens are replicated to every region (one region today).
	Global     bool
	CreateTime time.Time
	// ExpirationTime, when set, is when the token stops working; it is
	// computed from ExpirationTTL at creation, before raft.
	ExpirationTime *time.Time
	ExpirationTTL  time.Duration

	CreateIndex uint64
	ModifyIndex uint64
}

// Copy returns a deep copy.
func (t *ACLToken) Copy() *ACLToken {
	if t == nil {
		return nil
	}
	c := *t
	c.Policies = slices.Clone(t.Policies)
	c.Roles = copyLinks(t.Roles)
	if t.ExpirationTime != nil {
		e := *t.ExpirationTime
		c.ExpirationTime = &e
	}
	return &c
}

// IsExpired reports whether the token has expired at now.
func (t *ACLToken) IsExpired(now time.Time) bool {
	return t != nil && t.ExpirationTime != nil && !now.Before(*t.ExpirationTime)
}

// IsManagement reports whether the token is a management token.
func (t *ACLToken) IsManagement() bool { return t != nil && t.Type == ACLManagementToken }

// Raft payloads of the ACL tables.

// ACLPolicyUpsertRequest writes policies (by name).
type ACLPolicyUpsertRequest struct{ Policies []*ACLPolicy }

// ACLPolicyDeleteRequest deletes policies by name.
type ACLPolicyDeleteRequest struct{ Names []string }

// ACLTokenUpsertRequest writes tokens (by accessor).
type ACLTokenUpsertRequest struct{ Tokens []*ACLToken }

// ACLTokenDeleteRequest deletes tokens by accessor.
type ACLTokenDeleteRequest struct{ AccessorIDs []string }

// ACLTokenBootstrapRequest writes the first management token. It applies
// only while the ACL system is not bootstrapped, or when ResetIndex is the
// index of the current bootstrap (the operator's reset).
type ACLTokenBootstrapRequest struct {
	Token      *ACLToken
	ResetIndex uint64
}
