package server

import (
	"context"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// Count answers how many evaluations in the namespace (or "*") match the
// request's prefix and filter, without sending them.
func (e *EvalEndpoint) Count(ctx context.Context, args *structs.QueryOptions) (*structs.EvalCountResponse, error) {
	reply := &structs.EvalCountResponse{}
	match, err := filterFunc[*structs.Evaluation](args.Filter)
	if err != nil {
		return nil, err
	}
	err = e.srv.blockingRead(ctx, args, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		evals, err := st.EvalsByIDPrefix(ws, args.Namespace, args.Prefix)
		if err != nil {
			return 0, err
		}
		reply.Count = 0
		for _, ev := range evals {
			ok, err := match(ev)
			if err != nil {
				return 0, err
			}
			if ok {
				reply.Count++
			}
		}
		return st.Index(state.TableEvals), nil
	})
	return reply, err
}
