package auth

import (
	"crypto/hmac"
	"crypto/subtle"
	"net/http"

	"github.com/drover-project/drover/internal/server/coded"
	"github.com/drover-project/drover/internal/structs"
)

// agentNodeCredentialLabel domain-separates the agent node credential
// from the server credential: both are derived from the same root key,
// but holding this one lets a caller register a node and nothing else.
const agentNodeCredentialLabel = "drover in-process client node registration v1"

// AgentNodeCredential is what the client of an agent that also runs a
// server presents to register (the agent hands it from its server to its
// client in-process): every server of the region derives the same value
// from the keyring, which raft replicates to servers only, so it proves
// the client runs beside a server of this cluster, whoever leads, and no
// remote client can present it. ok is false until this server holds the
// keyring's first root key.
func (s *Service) AgentNodeCredential() (string, bool) {
	return s.deriveCredential(agentNodeCredentialLabel)
}

// AuthorizeRegistration decides whether a client may register args.Node.
//
//   - A node that exists can be re-registered only with its own SecretID:
//     nobody can take over another node's identity (and its allocations).
//   - With a cluster node credential configured (server {
//     node_registration_token }), the client must present it; with ACLs
//     on, an ACL token granting node write is accepted too.
//   - With ACLs on and no credential configured, the client must present
//     an ACL token granting node write.
//   - Whenever a credential is required, the agent node credential
//     (AgentNodeCredential) is accepted too: an agent running both roles
//     just works.
//   - With neither, registration is open, as in Nomad without ACLs.
//
// Whenever a credential is required the node must carry a SecretID, which
// then authenticates every later call of the node. A refusal is a 403
// that wraps structs.ErrNodeRegistrationDenied and says what was missing
// and which setting provides it, never what the servers hold.
//
// Drover differs from Nomad on purpose here: Nomad before 1.11 lets any
// client register, ACLs or not, and Nomad 1.11's client introduction
// (client { intro_token }, enforced by server { client_introduction {
// enforcement = "strict" } }) is a JWT per node; Drover's node credential
// is one shared secret, or an ACL token with node write.
func (s *Service) AuthorizeRegistration(args *structs.NodeRegisterArgs) error {
	node := args.Node
	existing, err := s.srv.State().NodeByID(nil, node.ID)
	if err != nil {
		return err
	}
	if existing != nil && existing.SecretID != "" && subtle.ConstantTimeCompare([]byte(existing.SecretID), []byte(node.SecretID)) != 1 {
		return coded.New(http.StatusForbidden, "Permission denied: node %s is registered with another Node.SecretID "+
			"(its client's data_dir was replaced or copied; restore the client's state, or purge the node)", node.ID)
	}
	cfg := s.cfg.ACL
	if cfg.NodeRegistrationToken == "" && !cfg.Enabled {
		return nil
	}
	if node.SecretID == "" {
		return coded.BadRequest("Node.SecretID: required to register")
	}
	presented := args.NodeRegistrationToken
	if cfg.NodeRegistrationToken != "" && subtle.ConstantTimeCompare([]byte(presented), []byte(cfg.NodeRegistrationToken)) == 1 {
		return nil
	}
	if own, ok := s.AgentNodeCredential(); ok && presented != "" && hmac.Equal([]byte(presented), []byte(own)) {
		return nil
	}
	if cfg.Enabled && presented != "" {
		if a, err := s.ResolveToken(presented); err == nil && a.AllowNodeWrite() {
			return nil
		}
	}
	return registrationDenied(presented != "", cfg)
}

// registrationDenied is the 403 of a refused node registration token. It
// names the client setting and what the servers accept, by setting name
// only.
func registrationDenied(presented bool, cfg ACLConfig) error {
	var accepted string
	switch {
	case cfg.NodeRegistrationToken != "" && cfg.Enabled:
		accepted = "the servers' server { node_registration_token } or an ACL token with node write"
	case cfg.NodeRegistrationToken != "":
		accepted = "the servers' server { node_registration_token }"
	default:
		accepted = "an ACL token with node write (ACLs are on)"
	}
	what := "no node registration token was presented"
	if presented {
		what = "the node registration token presented is not accepted"
	}
	return &coded.Error{Code: http.StatusForbidden, Err: structs.ErrNodeRegistrationDenied,
		Msg: "Permission denied: " + what + "; set client { node_registration_token } to " + accepted}
}
