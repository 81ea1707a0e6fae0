package config

import (
	"time"

	"github.com/hashicorp/hcl/v2"
)

// ACLConfig is the acl { } block.
type ACLConfig struct {
	Enabled bool
	// TokenTTL and PolicyTTL bound how long a resolved token and its
	// compiled policies are cached (Nomad's defaults: 30 s).
	TokenTTL  time.Duration
	PolicyTTL time.Duration
}

// fileACL is the acl { } block as written (its other Nomad keys are in the
// key table: refused or warned).
type fileACL struct {
	Enabled   *bool          `hcl:"enabled,optional"`
	TokenTTL  hcl.Expression `hcl:"token_ttl,optional"`
	PolicyTTL hcl.Expression `hcl:"policy_ttl,optional"`
}

func (fa *fileACL) apply(a *ACLConfig) hcl.Diagnostics {
	set(&a.Enabled, fa.Enabled)
	diags := decodeDuration(fa.TokenTTL, &a.TokenTTL)
	return append(diags, decodeDuration(fa.PolicyTTL, &a.PolicyTTL)...)
}

func (a *ACLConfig) merge(o *ACLConfig) {
	setNZ(&a.Enabled, o.Enabled)
	setNZ(&a.TokenTTL, o.TokenTTL)
	setNZ(&a.PolicyTTL, o.PolicyTTL)
}

func (a *ACLConfig) validate(add func(string, ...any)) {
	if a.TokenTTL < 0 {
		add("acl.token_ttl = %v must not be negative", a.TokenTTL)
	}
	if a.PolicyTTL < 0 {
		add("acl.policy_ttl = %v must not be negative", a.PolicyTTL)
	}
}
