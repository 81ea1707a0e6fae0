package structs

import (
	"fmt"
	"regexp"
	"slices"
	"time"
)

// WorkloadIdentity is a task's `identity` block: the default identity
// (Name "" or "default", Task.Identity), the task's credential for
// Drover's API, or a named one (Task.Identities), a token for another
// audience (a secrets store, a cloud's workload identity federation).
type WorkloadIdentity struct {
	// Env sets NOMAD_TOKEN (default) or NOMAD_TOKEN_<name> in the task's
	// environment.
	Env bool
	// File writes the token to secrets/nomad_token (default) or
	// secrets/nomad_<name>.jwt, or to Filepath when set.
	File bool
	// Name is the identity's name; "" and "default" name the default.
	Name string
	// Audience is the token's aud; the default identity's is
	// nomadproject.io when empty.
	Audience []string
	// ChangeMode is what a renewed token does to the task: noop (the
	// default), restart, or signal (with ChangeSignal).
	ChangeMode   string
	ChangeSignal string
	// Filepath is where File writes the token, relative to the task dir.
	Filepath string
	// TTL is the token's lifetime (exp = iat + TTL); 0: it does not
	// expire. The client renews a token once half its TTL has passed.
	TTL time.Duration
}

// Workload identity names, audience and change modes (Nomad's).
const (
	WorkloadIdentityDefaultName     = "default"
	WorkloadIdentityDefaultAudience = "nomadproject.io"
	WIChangeModeNoop                = "noop"
	WIChangeModeRestart             = "restart"
	WIChangeModeSignal              = "signal"
)

// Copy returns a deep copy.
func (w *WorkloadIdentity) Copy() *WorkloadIdentity {
	if w == nil {
		return nil
	}
	c := *w
	c.Audience = slices.Clone(w.Audience)
	return &c
}

// IsDefault reports whether w is the task's default identity.
func (w *WorkloadIdentity) IsDefault() bool {
	return w.Name == "" || w.Name == WorkloadIdentityDefaultName
}

// IdentityName is w's name, "default" for the default identity.
func (w *WorkloadIdentity) IdentityName() string {
	if w.IsDefault() {
		return WorkloadIdentityDefaultName
	}
	return w.Name
}

// Audiences is the token's aud: Audience, or nomadproject.io for a
// default identity that names none.
func (w *WorkloadIdentity) Audiences() []string {
	if len(w.Audience) == 0 && w.IsDefault() {
		return []string{WorkloadIdentityDefaultAudience}
	}
	return w.Audience
}

// IdentityNamed is the task's identity of that name: the default one
// (which need not be written in the job: every task has it) or a named
// one; nil when the task has none of that name.
func (t *Task) IdentityNamed(name string) *WorkloadIdentity {
	if name == "" || name == WorkloadIdentityDefaultName {
		if t.Identity != nil {
			return t.Identity
		}
		return &WorkloadIdentity{Name: WorkloadIdentityDefaultName}
	}
	for _, w := range t.Identities {
		if w != nil && w.Name == name {
			return w
		}
	}
	return nil
}

// identityNameRe is what a named identity may be called: it ends the
// token's subject (after the last ':') and names an environment
// variable and a file.
var identityNameRe = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)

func (w *WorkloadIdentity) validate(v validator, named bool) {
	if w == nil {
		return
	}
	if named {
		switch {
		case w.IsDefault():
			v.fail("Name", "a named identity may not be called %q (that is the default identity: Task.Identity)", w.Name)
		case !identityNameRe.MatchString(w.Name):
			v.fail("Name", "must be 1-128 letters, digits, '-' or '_', got %q", w.Name)
		}
		if len(w.Audience) == 0 {
			v.fail("Audience", "a named identity needs an audience (aud)")
		}
	}
	for i, a := range w.Audience {
		if a == "" {
			v.fail(fmt.Sprintf("Audience[%d]", i), "must not be empty")
		}
	}
	v.oneOf("ChangeMode", w.ChangeMode, "", WIChangeModeNoop, WIChangeModeRestart, WIChangeModeSignal)
	if w.ChangeMode == WIChangeModeSignal && w.ChangeSignal == "" {
		v.fail("ChangeSignal", "is required when ChangeMode is %q", WIChangeModeSignal)
	}
	if w.ChangeMode != WIChangeModeSignal && w.ChangeSignal != "" {
		v.fail("ChangeSignal", "is only used when ChangeMode is %q", WIChangeModeSignal)
	}
	if w.TTL < 0 {
		v.fail("TTL", "must not be negative, got %s", w.TTL)
	}
	if w.Filepath != "" && !w.File {
		v.fail("Filepath", "is only used with file = true")
	}
}

func (t *Task) validateIdentities(v validator) {
	t.Identity.validate(v.at("Identity"), false)
	if t.Identity != nil && !t.Identity.IsDefault() {
		v.at("Identity").fail("Name", "the default identity is named %q, got %q", WorkloadIdentityDefaultName, t.Identity.Name)
	}
	seen := map[string]bool{}
	for i, w := range t.Identities {
		if w == nil {
			continue
		}
		iv := v.index("Identities", i)
		w.validate(iv, true)
		if seen[w.Name] {
			iv.fail("Name", "identity %q is defined twice", w.Name)
		}
		seen[w.Name] = true
	}
}

// IdentityClaims are what a workload identity asserts (Nomad's claim
// names in the token).
type IdentityClaims struct {
	Namespace string `json:"nomad_namespace"`
	JobID     string `json:"nomad_job_id"`
	AllocID   string `json:"nomad_allocation_id"`
	TaskGroup string `json:"nomad_task_group,omitempty"`
	Task      string `json:"nomad_task"`
	Subject   string `json:"sub"`
	Audience  string `json:"aud"`
	IssuedAt  int64  `json:"iat"`
	NotBefore int64  `json:"nbf"`
	// Identity is the identity's name, the subject's last part (not a
	// claim of its own).
	Identity string `json:"-"`
}

// WorkloadIdentitySignRequest is a client asking for its tasks' tokens:
// the default identity of each of Tasks (Tokens), and the identities
// named in Identities (Signed), each signed as its task's identity block
// in the alloc's job says (audience, TTL). Nomad's client asks the same
// through Alloc.SignIdentities.
type WorkloadIdentitySignRequest struct {
	NodeID   string
	SecretID string
	AllocID  string
	Tasks    []string
	QueryOptions
	Identities []WorkloadIdentityRequest
}

// WorkloadIdentityRequest names one identity of one task of the alloc.
type WorkloadIdentityRequest struct {
	Task     string
	Identity string // "default" or a named identity
}

// SignedWorkloadIdentity is one signed token and when it expires (zero:
// never).
type SignedWorkloadIdentity struct {
	WorkloadIdentityRequest
	JWT        string
	Expiration time.Time
}

// WorkloadIdentitySignResponse holds one token per task (Tokens) and
// one per identity asked for (Signed).
type WorkloadIdentitySignResponse struct {
	Tokens map[string]string
	QueryMeta
	Signed []SignedWorkloadIdentity
}

// JWKSRequest reads the public keys that verify workload identities.
type JWKSRequest struct{ QueryOptions }

// JSONWebKey is one public key of the JWKS (Ed25519, RFC 8037).
type JSONWebKey struct {
	KeyID     string `json:"kid"`
	KeyType   string `json:"kty"`
	Curve     string `json:"crv"`
	X         string `json:"x"`
	Use       string `json:"use"`
	Algorithm string `json:"alg"`
}

// JWKSResponse is the key set.
type JWKSResponse struct {
	Keys []JSONWebKey `json:"keys"`
	QueryMeta
}

// OIDCDiscoveryRequest reads the OIDC discovery document of workload
// identities.
type OIDCDiscoveryRequest struct{ QueryOptions }

// OIDCDiscoveryResponse is the document of
// /.well-known/openid-configuration (OpenID Connect Discovery 1.0's
// provider metadata, the fields a JWT verifier reads).
type OIDCDiscoveryResponse struct {
	Issuer        string   `json:"issuer"`
	JWKSURI       string   `json:"jwks_uri"`
	SigningAlgs   []string `json:"id_token_signing_alg_values_supported"`
	ResponseTypes []string `json:"response_types_supported"`
	SubjectTypes  []string `json:"subject_types_supported"`
	QueryMeta     `json:"-"`
}

// RPCWorkloadIdentitySign is the client's call for its tasks' tokens.
const RPCWorkloadIdentitySign = "WorkloadIdentity.Sign"
