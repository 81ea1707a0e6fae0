package server

import (
	"context"

	"github.com/hashicorp/serf/serf"

	"github.com/drover-project/drover/internal/server/auth"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// ACL resolution, result filters, workload identity, the node and server
// credentials and the keyring live in package auth; these names keep the
// server's API (its config, the agent's checks) as it was.

// ACLConfig is the server's side of the agent's acl { } block.
type ACLConfig = auth.ACLConfig

// ErrPermissionDenied is the answer to a token that is unknown, expired,
// or lacks the capability a request needs. It never says which.
var ErrPermissionDenied = auth.ErrPermissionDenied

// Kinds of objects NamespaceOf knows.
const (
	ObjectAlloc      = auth.ObjectAlloc
	ObjectEval       = auth.ObjectEval
	ObjectDeployment = auth.ObjectDeployment
)

// Auth is the server's ACL resolver (ResolveToken, NamespaceOf,
// InternalToken, ...) and keyring.
func (s *Server) Auth() *auth.Service { return s.auth }

// authHost is the server as package auth sees it.
type authHost struct{ s *Server }

var _ auth.Server = authHost{}

func (h authHost) State() *state.StateStore { return h.s.State() }

func (h authHost) RaftApply(t structs.MessageType, msg any) (uint64, error) {
	return h.s.raftApply(t, msg)
}

func (h authHost) Peers() ([]auth.Peer, bool) {
	if !h.s.cluster.HasGossip() {
		return nil, false
	}
	members := h.s.cluster.Servers()
	peers := make([]auth.Peer, 0, len(members))
	for _, m := range members {
		peers = append(peers, auth.Peer{ID: m.ID, Name: m.Name, RPCAddr: m.RPCAddr, Alive: m.Status == serf.StatusAlive})
	}
	return peers, true
}

func (h authHost) RPC(ctx context.Context, addr, method string, args, reply any) error {
	return h.s.cluster.Pool().RPC(ctx, addr, method, args, reply)
}
