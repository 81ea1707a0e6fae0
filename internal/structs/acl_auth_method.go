package structs

import (
	"maps"
	"slices"
	"time"
)

// Auth method types (Nomad's).
const (
	ACLAuthMethodTypeJWT  = "JWT"
	ACLAuthMethodTypeOIDC = "OIDC"

	ACLAuthMethodTokenLocalityLocal  = "local"
	ACLAuthMethodTokenLocalityGlobal = "global"
)

// Binding rule bind types (Nomad's).
const (
	ACLBindingRuleBindTypeRole       = "role"
	ACLBindingRuleBindTypePolicy     = "policy"
	ACLBindingRuleBindTypeManagement = "management"
)

// ACLAuthMethod is an external identity provider whose tokens ACL.Login
// exchanges for ACL tokens, by its binding rules. Name is the key.
type ACLAuthMethod struct {
	Name string
	Type string
	// TokenLocality is "local" or "global": whether minted tokens are global.
	TokenLocality string
	// TokenNameFormat names minted tokens; ${auth_method_type},
	// ${auth_method_name} and ${value.<claim>} are interpolated.
	TokenNameFormat string
	MaxTokenTTL     time.Duration
	// Default marks the method `drover login` uses without -method; at
	// most one method is the default.
	Default bool
	Config  *ACLAuthMethodConfig

	CreateTime  time.Time
	ModifyTime  time.Time
	CreateIndex uint64
	ModifyIndex uint64
}

// ACLAuthMethodConfig is an auth method's provider configuration, in
// Nomad's field names.
type ACLAuthMethodConfig struct {
	JWTValidationPubKeys []string
	JWKSURL              string
	JWKSCACert           string
	OIDCDiscoveryURL     string
	DiscoveryCaPem       []string
	OIDCClientID         string
	OIDCClientSecret     string
	OIDCEnablePKCE       bool
	OIDCDisableUserInfo  bool
	OIDCScopes           []string
	AllowedRedirectURIs  []string
	BoundAudiences       []string
	BoundIssuer          []string
	SigningAlgs          []string
	ExpirationLeeway     time.Duration
	NotBeforeLeeway      time.Duration
	ClockSkewLeeway      time.Duration
	ClaimMappings        map[string]string
	ListClaimMappings    map[string]string
	VerboseLogging       bool
}

// Copy returns a deep copy.
func (m *ACLAuthMethod) Copy() *ACLAuthMethod {
	if m == nil {
		return nil
	}
	c := *m
	if m.Config != nil {
		cfg := *m.Config
		cfg.JWTValidationPubKeys = slices.Clone(cfg.JWTValidationPubKeys)
		cfg.DiscoveryCaPem = slices.Clone(cfg.DiscoveryCaPem)
		cfg.OIDCScopes = slices.Clone(cfg.OIDCScopes)
		cfg.AllowedRedirectURIs = slices.Clone(cfg.AllowedRedirectURIs)
		cfg.BoundAudiences = slices.Clone(cfg.BoundAudiences)
		cfg.BoundIssuer = slices.Clone(cfg.BoundIssuer)
		cfg.SigningAlgs = slices.Clone(cfg.SigningAlgs)
		cfg.ClaimMappings = maps.Clone(cfg.ClaimMappings)
		cfg.ListClaimMappings = maps.Clone(cfg.ListClaimMappings)
		c.Config = &cfg
	}
	return &c
}

// ACLBindingRule maps the identities an auth method vouches for to a
// role, a policy or management: when Selector (a go-bexpr expression
// over value.<claim> and list.<claim>) matches, the login's token gets
// BindName (with ${value.<claim>} interpolated) of BindType.
type ACLBindingRule struct {
	ID          string
	Description string
	AuthMethod  string
	Selector    string
	BindType    string
	BindName    string

	CreateTime  time.Time
	ModifyTime  time.Time
	CreateIndex uint64
	ModifyIndex uint64
}

// Copy returns a copy.
func (r *ACLBindingRule) Copy() *ACLBindingRule {
	if r == nil {
		return nil
	}
	c := *r
	return &c
}

// OneTimeToken is a short-lived secret exchanged once for the ACL token
// it was created for (`drover ui -authenticate`).
type OneTimeToken struct {
	OneTimeSecretID string
	AccessorID      string
	ExpiresAt       time.Time
	CreateIndex     uint64
	ModifyIndex     uint64
}

// OIDCAuthRequest is a pending OIDC login: made by auth-url, consumed
// once by complete-auth. It lives in raft so that any server may
// complete a login another began, and so that a state is used once.
type OIDCAuthRequest struct {
	State          string // the state parameter sent to the provider
	AuthMethodName string
	ClientNonce    string // sent as the ID token's nonce (Nomad's choice)
	RedirectURI    string
	PKCEVerifier   string // empty when the method does not use PKCE
	ExpiresAt      time.Time
	CreateIndex    uint64
	ModifyIndex    uint64
}

// Raft payloads.
type (
	// ACLAuthMethodUpsertRequest writes auth methods by name.
	ACLAuthMethodUpsertRequest struct{ AuthMethods []*ACLAuthMethod }
	// ACLAuthMethodDeleteRequest deletes auth methods, and their binding
	// rules, by name.
	ACLAuthMethodDeleteRequest struct{ Names []string }
	// ACLBindingRuleUpsertRequest writes binding rules by ID.
	ACLBindingRuleUpsertRequest struct{ BindingRules []*ACLBindingRule }
	// ACLBindingRuleDeleteRequest deletes binding rules by ID.
	ACLBindingRuleDeleteRequest struct{ IDs []string }
	// OneTimeTokenUpsertRequest stores a one-time token.
	OneTimeTokenUpsertRequest struct{ OneTimeToken *OneTimeToken }
	// OneTimeTokenDeleteRequest deletes one-time tokens by secret (an
	// exchange), or every one expired at Now (the GC). Now is decided
	// by the leader before raft.
	OneTimeTokenDeleteRequest struct {
		Secrets []string
		Now     time.Time
	}
	// OIDCAuthRequestUpsertRequest stores a pending OIDC login and drops
	// every one expired at Now (decided by the leader before raft).
	OIDCAuthRequestUpsertRequest struct {
		Request *OIDCAuthRequest
		Now     time.Time
	}
	// OIDCAuthRequestDeleteRequest consumes pending OIDC logins by state:
	// an unknown (already consumed) state fails the whole entry.
	OIDCAuthRequestDeleteRequest struct{ States []string }
)

// Endpoint arguments and replies.
type (
	ACLAuthMethodUpsertArgs struct {
		AuthMethods []*ACLAuthMethod
		WriteRequest
	}
	ACLAuthMethodUpsertResponse struct {
		AuthMethods []*ACLAuthMethod
		WriteMeta
	}
	ACLAuthMethodDeleteArgs struct {
		Names []string
		WriteRequest
	}
	ACLAuthMethodListRequest  struct{ QueryOptions }
	ACLAuthMethodListResponse struct {
		AuthMethods []*ACLAuthMethod
		QueryMeta
	}
	ACLAuthMethodGetRequest struct {
		Name string
		QueryOptions
	}
	ACLAuthMethodGetResponse struct {
		AuthMethod *ACLAuthMethod
		QueryMeta
	}
	ACLBindingRuleUpsertArgs struct {
		BindingRules []*ACLBindingRule
		WriteRequest
	}
	ACLBindingRuleUpsertResponse struct {
		BindingRules []*ACLBindingRule
		WriteMeta
	}
	ACLBindingRuleDeleteArgs struct {
		IDs []string
		WriteRequest
	}
	ACLBindingRuleListRequest  struct{ QueryOptions }
	ACLBindingRuleListResponse struct {
		BindingRules []*ACLBindingRule
		QueryMeta
	}
	ACLBindingRuleGetRequest struct {
		ID string
		QueryOptions
	}
	ACLBindingRuleGetResponse struct {
		BindingRule *ACLBindingRule
		QueryMeta
	}
	// ACLLoginArgs exchanges an auth method's token (a JWT) for an ACL token.
	ACLLoginArgs struct {
		AuthMethodName string
		LoginToken     string
		WriteRequest
	}
	// ACLOIDCAuthURLArgs starts an OIDC login (POST /v1/acl/oidc/auth-url).
	ACLOIDCAuthURLArgs struct {
		AuthMethodName string
		RedirectURI    string
		ClientNonce    string
		WriteRequest
	}
	ACLOIDCAuthURLResponse struct {
		AuthURL string
		WriteMeta
	}
	// ACLOIDCCompleteAuthArgs finishes an OIDC login
	// (POST /v1/acl/oidc/complete-auth).
	ACLOIDCCompleteAuthArgs struct {
		AuthMethodName string
		ClientNonce    string
		State          string
		Code           string
		Iss            string
		RedirectURI    string
		WriteRequest
	}
	// ACLOneTimeTokenUpsertArgs creates a one-time token for the caller.
	ACLOneTimeTokenUpsertArgs     struct{ WriteRequest }
	ACLOneTimeTokenUpsertResponse struct {
		OneTimeToken *OneTimeToken
		WriteMeta
	}
	// ACLOneTimeTokenExchangeArgs trades a one-time secret for its token.
	ACLOneTimeTokenExchangeArgs struct {
		OneTimeSecretID string
		WriteRequest
	}
)
