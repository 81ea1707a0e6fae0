package auth

import (
	"crypto/subtle"

	"github.com/drover-project/drover/internal/server/coded"
	"github.com/drover-project/drover/internal/structs"
)

// AuthorizeRegistration decides whether a client may register args.Node.
//
//   - A node that exists can be re-registered only with its own SecretID:
//     nobody can take over another node's identity (and its allocations).
//   - With a cluster node credential configured (server {
//     node_registration_token }), the client must present it; with ACLs
//     on, an ACL token granting node write is accepted too.
//   - With ACLs on and no credential configured, the client must present
//     an ACL token granting node write.
//   - With neither, registration is open, as in Nomad without ACLs.
//
// Whenever a credential is required the node must carry a SecretID, which
// then authenticates every later call of the node.
func (s *Service) AuthorizeRegistration(args *structs.NodeRegisterArgs) error {
	node := args.Node
	existing, err := s.srv.State().NodeByID(nil, node.ID)
	if err != nil {
		return err
	}
	if existing != nil && existing.SecretID != "" && subtle.ConstantTimeCompare([]byte(existing.SecretID), []byte(node.SecretID)) != 1 {
		return ErrPermissionDenied
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
	if cfg.Enabled && presented != "" {
		if a, err := s.ResolveToken(presented); err == nil && a.AllowNodeWrite() {
			return nil
		}
	}
	return ErrPermissionDenied
}
