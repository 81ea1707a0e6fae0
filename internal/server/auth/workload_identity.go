package auth

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/drover-project/drover/internal/server/coded"
	"github.com/drover-project/drover/internal/structs"
)

// Workload identities are JWTs signed with EdDSA (Ed25519). The signing
// key of a root key is derived from its material, so every server holds
// it through raft and a rotation rotates it too; the public halves are
// served as a JWKS for third parties to verify tokens.

const identityAudience = "nomadproject.io"

// identitySigningKey derives a root key's Ed25519 signing key.
func (s *Service) identitySigningKey(root *structs.RootKey) (ed25519.PrivateKey, error) {
	material, err := s.keys.materialOf(root)
	if err != nil {
		return nil, err
	}
	seed := sha256.Sum256(append([]byte("drover workload identity\x00"), material...))
	return ed25519.NewKeyFromSeed(seed[:]), nil
}

var b64 = base64.RawURLEncoding

// IdentityPublicKey is the public half of a root key's signing key, which
// verifies the workload identities it signed (the JWKS).
func (s *Service) IdentityPublicKey(root *structs.RootKey) (ed25519.PublicKey, error) {
	priv, err := s.identitySigningKey(root)
	if err != nil {
		return nil, err
	}
	return priv.Public().(ed25519.PublicKey), nil
}

type jwtHeader struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
	Typ string `json:"typ"`
}

// SignIdentity issues the token of one task of an alloc with the active key.
func (s *Service) SignIdentity(alloc *structs.Allocation, task string) (string, error) {
	root, err := s.srv.State().ActiveRootKey(nil)
	if err != nil {
		return "", err
	}
	if root == nil {
		return "", errKeyringNotReady
	}
	now := s.now().Unix()
	claims := structs.IdentityClaims{
		Namespace: alloc.Namespace, JobID: alloc.JobID, AllocID: alloc.ID, TaskGroup: alloc.TaskGroup, Task: task,
		Subject:  strings.Join([]string{"global", alloc.Namespace, alloc.JobID, alloc.TaskGroup, task, "default"}, ":"),
		Audience: identityAudience, IssuedAt: now, NotBefore: now,
	}
	header, _ := json.Marshal(jwtHeader{Alg: "EdDSA", Kid: root.KeyID, Typ: "JWT"})
	body, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	signed := b64.EncodeToString(header) + "." + b64.EncodeToString(body)
	priv, err := s.identitySigningKey(root)
	if err != nil {
		return "", err
	}
	sig := ed25519.Sign(priv, []byte(signed))
	return signed + "." + b64.EncodeToString(sig), nil
}

// LooksLikeJWT tells a workload identity from an ACL secret (a UUID).
func LooksLikeJWT(token string) bool { return strings.Count(token, ".") == 2 }

var errBadIdentity = coded.New(http.StatusForbidden, "workload identity: invalid token")

// VerifyIdentity checks a token's signature against the key it names (any
// state: tokens signed before a rotation stay valid) and returns its claims.
func (s *Service) VerifyIdentity(token string) (*structs.IdentityClaims, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, errBadIdentity
	}
	var header jwtHeader
	raw, err := b64.DecodeString(parts[0])
	if err != nil || json.Unmarshal(raw, &header) != nil || header.Alg != "EdDSA" {
		return nil, errBadIdentity
	}
	root, err := s.srv.State().RootKeyByID(nil, header.Kid)
	if err != nil {
		return nil, err
	}
	sig, err := b64.DecodeString(parts[2])
	if root == nil || err != nil {
		return nil, errBadIdentity
	}
	priv, err := s.identitySigningKey(root)
	if err != nil {
		return nil, err
	}
	if !ed25519.Verify(priv.Public().(ed25519.PublicKey), []byte(parts[0]+"."+parts[1]), sig) {
		return nil, errBadIdentity
	}
	var claims structs.IdentityClaims
	raw, err = b64.DecodeString(parts[1])
	if err != nil || json.Unmarshal(raw, &claims) != nil || claims.AllocID == "" {
		return nil, errBadIdentity
	}
	return &claims, nil
}

// identityMayRead reports whether a task's identity may read a variable
// path: its job's, group's and task's own, as Nomad's implicit policy.
func identityMayRead(c *structs.IdentityClaims, namespace, path string) bool {
	if namespace != c.Namespace {
		return false
	}
	allowed := []string{
		"nomad/jobs",
		"nomad/jobs/" + c.JobID,
		"nomad/jobs/" + c.JobID + "/" + c.TaskGroup,
		"nomad/jobs/" + c.JobID + "/" + c.TaskGroup + "/" + c.Task,
	}
	for _, p := range allowed {
		if path == p || (p != "nomad/jobs" && strings.HasPrefix(path, p+"/")) {
			return true
		}
	}
	return false
}

// AuthorizeVariable lets a workload identity read its own variables (and
// nothing else); an ACL secret is the ACL system's to check, and without
// one every caller may read and write.
func (s *Service) AuthorizeVariable(token, namespace, path string, write bool) error {
	if !LooksLikeJWT(token) {
		return s.authorizeVariableACL(token, namespace, path, write)
	}
	claims, err := s.VerifyIdentity(token)
	if err != nil {
		return err
	}
	if write || !identityMayRead(claims, namespace, path) {
		return coded.New(http.StatusForbidden, "Permission denied: the workload identity of %s/%s may not %s variable %q",
			claims.JobID, claims.Task, map[bool]string{true: "write", false: "read"}[write], path)
	}
	return nil
}
