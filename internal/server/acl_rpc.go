package server

import (
	"github.com/drover-project/drover/internal/structs"
)

// aclRPC exposes token resolution to client agents, which check requests
// for the allocations they run (fs, logs, signals) themselves.
type aclRPC struct{ s *Server }

func (r *aclRPC) ResolveToken(a *structs.ResolveACLTokenRequest, o *structs.ResolveACLTokenResponse) error {
	return serveRPC(r.s, r.s.ACL.ResolveToken, a, o)
}
