package structs

// WorkloadIdentity is a task's default `identity` block: how the signed
// identity token is exposed to the task.
type WorkloadIdentity struct {
	// Env sets NOMAD_TOKEN in the task's environment.
	Env bool
	// File writes the token to secrets/nomad_token.
	File bool
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
}

// WorkloadIdentitySignRequest is a client asking for its tasks' tokens.
type WorkloadIdentitySignRequest struct {
	NodeID   string
	SecretID string
	AllocID  string
	Tasks    []string
	QueryOptions
}

// WorkloadIdentitySignResponse holds one token per task.
type WorkloadIdentitySignResponse struct {
	Tokens map[string]string
	QueryMeta
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

// RPCWorkloadIdentitySign is the client's call for its tasks' tokens.
const RPCWorkloadIdentitySign = "WorkloadIdentity.Sign"
