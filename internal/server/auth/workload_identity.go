package auth

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/server/coded"
	"github.com/drover-project/drover/internal/structs"
)

// Workload identities are JWTs signed with EdDSA (Ed25519). The signing
// key of a root key is derived from its material, so every server holds
// it through raft and a rotation rotates it too; the public halves are
// served as a JWKS for third parties to verify tokens.

const identityAudience = structs.WorkloadIdentityDefaultAudience

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

// SignIdentity issues the default identity of one task of an alloc with
// the active key.
func (s *Service) SignIdentity(alloc *structs.Allocation, task string) (string, error) {
	token, _, err := s.SignWorkloadIdentity(alloc, task, &structs.WorkloadIdentity{Name: structs.WorkloadIdentityDefaultName})
	return token, err
}

// identitySigned is what a token says: Nomad's claims, and the registered
// ones as the JWT spec spells them (aud a string or a list, exp only for
// an identity with a TTL, iss only with server { oidc_issuer }); its
// fields shadow IdentityClaims' aud, iat and nbf.
type identitySigned struct {
	structs.IdentityClaims
	Issuer    string           `json:"iss,omitempty"`
	Audience  jwt.Audience     `json:"aud"`
	IssuedAt  int64            `json:"iat"`
	NotBefore int64            `json:"nbf"`
	Expiry    *jwt.NumericDate `json:"exp,omitempty"`
}

// SignWorkloadIdentity issues the token of one identity of one task of
// an alloc with the active key: the identity's audiences (the default
// identity's: nomadproject.io), expiring TTL after now when it has one,
// and as subject global:<namespace>:<job>:<group>:<task>:<identity> as
// Nomad writes it. It returns the token and its expiry (zero: none).
func (s *Service) SignWorkloadIdentity(alloc *structs.Allocation, task string, w *structs.WorkloadIdentity) (string, time.Time, error) {
	root, err := s.srv.State().ActiveRootKey(nil)
	if err != nil {
		return "", time.Time{}, err
	}
	if root == nil {
		return "", time.Time{}, errKeyringNotReady
	}
	now := s.now()
	payload := identitySigned{
		IdentityClaims: structs.IdentityClaims{
			Namespace: alloc.Namespace, JobID: alloc.JobID, AllocID: alloc.ID, TaskGroup: alloc.TaskGroup, Task: task,
			Subject: strings.Join([]string{"global", alloc.Namespace, alloc.JobID, alloc.TaskGroup, task, w.IdentityName()}, ":"),
		},
		Issuer: s.cfg.OIDCIssuer, Audience: jwt.Audience(w.Audiences()), IssuedAt: now.Unix(), NotBefore: now.Unix(),
	}
	var exp time.Time
	if w.TTL > 0 {
		exp = now.Add(w.TTL)
		payload.Expiry = jwt.NewNumericDate(exp)
	}
	header, _ := json.Marshal(jwtHeader{Alg: "EdDSA", Kid: root.KeyID, Typ: "JWT"})
	body, err := json.Marshal(payload)
	if err != nil {
		return "", time.Time{}, err
	}
	signed := b64.EncodeToString(header) + "." + b64.EncodeToString(body)
	priv, err := s.identitySigningKey(root)
	if err != nil {
		return "", time.Time{}, err
	}
	sig := ed25519.Sign(priv, []byte(signed))
	return signed + "." + b64.EncodeToString(sig), exp, nil
}

// LooksLikeJWT tells a workload identity from an ACL secret (a UUID).
func LooksLikeJWT(token string) bool { return strings.Count(token, ".") == 2 }

var (
	errBadIdentity      = coded.New(http.StatusForbidden, "workload identity: invalid token")
	errIdentityTime     = coded.New(http.StatusForbidden, "workload identity: expired, or not valid yet")
	errIdentityAudience = coded.New(http.StatusForbidden, "workload identity: not meant for Nomad (audience)")
	errIdentityAlloc    = coded.New(http.StatusForbidden, "workload identity: its allocation is gone or terminal")
	errIdentityNamed    = coded.New(http.StatusForbidden, "workload identity: a named identity is for its audience, not a Drover API credential (only the default identity is)")
)

// identityLeeway is the clock skew allowed between the server that signed
// a token and the one that verifies it (go-jose's default).
const identityLeeway = jwt.DefaultLeeway

// VerifyIdentity checks a workload identity and returns its claims: an
// EdDSA signature by the root key the token names (in any state: tokens
// signed before a rotation stay valid), its time claims on the server's
// clock (exp and nbf when present, iat never in the future), its audience,
// and, as Nomad does, that its allocation exists and is not terminal (a
// stopped or purged allocation's token reads nothing). Drover differs on
// purpose in requiring the audience nomadproject.io, which every token it
// signs carries (Nomad leaves aud unchecked): a token minted for another
// audience is not a key to the variables.
func (s *Service) VerifyIdentity(token string) (*structs.IdentityClaims, error) {
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.EdDSA})
	if err != nil || len(tok.Headers) != 1 {
		return nil, errBadIdentity
	}
	st := s.srv.State()
	root, err := st.RootKeyByID(nil, tok.Headers[0].KeyID)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, errBadIdentity
	}
	pub, err := s.IdentityPublicKey(root)
	if err != nil {
		return nil, err
	}
	var std jwt.Claims
	var payload identityPayload
	if err := tok.Claims(pub, &std, &payload); err != nil || payload.AllocID == "" {
		return nil, errBadIdentity
	}
	switch err := std.ValidateWithLeeway(jwt.Expected{AnyAudience: jwt.Audience{identityAudience}, Time: s.now()}, identityLeeway); {
	case errors.Is(err, jwt.ErrInvalidAudience):
		return nil, errIdentityAudience
	case err != nil:
		return nil, errIdentityTime
	}
	claims := payload.IdentityClaims
	// Only the default identity is an API credential: a named identity
	// carrying nomadproject.io among its audiences is still a token
	// minted for another system (the name ends the subject, as Nomad
	// writes it).
	if claims.Identity = claims.Subject[strings.LastIndexByte(claims.Subject, ':')+1:]; claims.Identity != structs.WorkloadIdentityDefaultName {
		return nil, errIdentityNamed
	}
	claims.Audience, claims.IssuedAt, claims.NotBefore = identityAudience, unixOf(std.IssuedAt), unixOf(std.NotBefore)
	alloc, err := st.AllocByID(nil, claims.AllocID)
	if err != nil {
		return nil, err
	}
	if alloc == nil || alloc.TerminalStatus() || alloc.Namespace != claims.Namespace || alloc.JobID != claims.JobID {
		return nil, errIdentityAlloc
	}
	return &claims, nil
}

// identityPayload decodes a token's Nomad claims; the registered claims
// it shares with jwt.Claims take any form the JWT spec allows (aud a
// string or a list, numeric dates with fractions), which jwt.Claims
// validates.
type identityPayload struct {
	structs.IdentityClaims
	Audience  jwt.Audience     `json:"aud"`
	IssuedAt  *jwt.NumericDate `json:"iat"`
	NotBefore *jwt.NumericDate `json:"nbf"`
}

func unixOf(d *jwt.NumericDate) int64 {
	if d == nil {
		return 0
	}
	return int64(*d)
}

// identityMay reports whether a task's identity may do op on a variable:
// Nomad's implicit policy, read and list on nomad/jobs and on its job's,
// group's and task's paths and everything under them.
func identityMay(c *structs.IdentityClaims, namespace, path, op string) bool {
	if namespace != c.Namespace || (op != acl.VariablesCapabilityRead && op != acl.VariablesCapabilityList) {
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

// VariableAccess is what one caller may do with variables: its token
// resolved once for a request, then asked per path.
type VariableAccess struct {
	acl    *acl.ACL                // an ACL token's (management with ACLs off)
	claims *structs.IdentityClaims // or a workload identity's
}

// VariableAccessOf resolves a request's token for variables. With ACLs
// off every caller may do everything, a workload identity included (as in
// Nomad, where ACLs off allow every request); with them on a workload
// identity (a JWT) must verify and gets Nomad's implicit policy, and an
// ACL secret its policies' variables rules.
func (s *Service) VariableAccessOf(token string) (VariableAccess, error) {
	if s.ACLEnabled() && LooksLikeJWT(token) {
		claims, err := s.VerifyIdentity(token)
		if err != nil {
			return VariableAccess{}, err
		}
		return VariableAccess{claims: claims}, nil
	}
	a, err := s.ResolveToken(token)
	if err != nil {
		return VariableAccess{}, err
	}
	return VariableAccess{acl: a}, nil
}

// Allows reports whether op (a variables capability: read, list, write,
// destroy) is allowed on the variable at path in namespace.
func (v VariableAccess) Allows(namespace, path, op string) bool {
	if v.claims != nil {
		return identityMay(v.claims, namespace, path, op)
	}
	return v.acl != nil && v.acl.AllowVariableOperation(namespace, path, op)
}

// Check is Allows as an error: 403 naming the identity when a workload
// identity is refused, a bare ErrPermissionDenied for an ACL token.
func (v VariableAccess) Check(namespace, path, op string) error {
	if v.Allows(namespace, path, op) {
		return nil
	}
	if v.claims != nil {
		return coded.New(http.StatusForbidden, "Permission denied: the workload identity of %s/%s may not %s variable %q",
			v.claims.JobID, v.claims.Task, op, path)
	}
	return ErrPermissionDenied
}

// AuthorizeVariable checks one operation on one variable (VariableAccessOf,
// then Check).
func (s *Service) AuthorizeVariable(token, namespace, path, op string) error {
	v, err := s.VariableAccessOf(token)
	if err != nil {
		return err
	}
	return v.Check(namespace, path, op)
}
