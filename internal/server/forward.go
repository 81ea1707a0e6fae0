package server

import (
	"context"

	"github.com/drover-project/drover/internal/structs"
)

// forward is the first line of every endpoint:
//
//	if done, err := e.srv.forward(ctx, "Job.Register", args, reply); done {
//		return reply, err
//	}
//
// It decides which server answers a request. The contract:
//
//   - a write (args.IsRead() false) is answered by the leader: a follower
//     sends it to the leader over RPC under the same method name, fills
//     reply with the leader's answer and returns done=true;
//   - a read is answered by the leader too, unless args.AllowStaleRead(),
//     then by this server from its own state (the reply's QueryMeta says
//     how stale: LastContact, KnownLeader);
//   - when the request must go to the leader and there is none, done=true
//     with ErrNoLeader (HTTP 503), never a partial local answer;
//   - done=false means this server answers: the endpoint goes on.
//
// Today Drover runs one server, which is always the leader (or has none
// while it starts), so forward always returns false; the cluster work
// fills in the RPC to the leader here and nowhere else.
func (s *Server) forward(ctx context.Context, method string, args structs.RPCInfo, reply any) (bool, error) {
	_, _, _, _ = ctx, method, args, reply
	return false, nil
}
