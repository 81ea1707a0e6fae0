package server

import (
	"context"

	"github.com/drover-project/drover/internal/structs"
)

// aclRPC exposes token resolution to client agents, which check requests
// for the allocations they run (fs, logs, signals) themselves.
type aclRPC struct{ s *Server }

func (a *aclRPC) ResolveToken(args *structs.ResolveACLTokenRequest, reply *structs.ResolveACLTokenResponse) error {
	out, err := a.s.ACL.ResolveToken(context.Background(), args)
	return fill(reply, out, err)
}
