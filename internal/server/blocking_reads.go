package server

import (
	"context"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// The three shapes of a read endpoint's blocking query. Each runs its
// state read as often as blockingRead does and leaves the last run's
// answer in out, a field of the endpoint's reply.

// readAtTable answers read at table's index: a listing that may change
// whenever the table does.
func readAtTable[T any](s *Server, ctx context.Context, q *QueryOptions, meta *QueryMeta, table string,
	out *T, read func(memdb.WatchSet, *state.StateStore) (T, error)) error {
	return s.blockingRead(ctx, q, meta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		*out, err = read(ws, st)
		return st.Index(table), err
	})
}

// readObject answers one object at its own modify index, or at table's
// index while it is absent (so a caller blocks until it appears).
func readObject[T any](s *Server, ctx context.Context, q *QueryOptions, meta *QueryMeta, table string,
	out **T, get func(memdb.WatchSet, *state.StateStore) (*T, error), modifyIndex func(*T) uint64) error {
	return s.blockingRead(ctx, q, meta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		*out, err = get(ws, st)
		if err != nil || *out == nil {
			return st.Index(table), err
		}
		return modifyIndex(*out), nil
	})
}

// statePage reads one page of a table from the state store
// (state.StateStore's NodesPage, AllocsPage, ...).
type statePage[T any] func(*state.StateStore, memdb.WatchSet, state.PageOptions, state.MatchFunc[T]) (state.PageResult[T], error)

// readPage answers one page of table's items that match (the request's
// filter, and the caller's visible namespaces) at the table's index; the
// next page's token goes in meta.
func readPage[T any](s *Server, ctx context.Context, q *QueryOptions, meta *QueryMeta, table string,
	out *[]*T, match state.MatchFunc[T], page statePage[T]) error {
	return s.blockingRead(ctx, q, meta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		p, err := page(st, ws, pageOptions(q), match)
		*out, meta.NextToken = p.Items, p.NextToken
		return st.Index(table), err
	})
}

// byKey binds a state lookup to the key it reads, for readAtTable and
// readObject: byKey((*state.StateStore).NodeByID, id).
func byKey[K, T any](lookup func(*state.StateStore, memdb.WatchSet, K) (T, error), key K) func(memdb.WatchSet, *state.StateStore) (T, error) {
	return func(ws memdb.WatchSet, st *state.StateStore) (T, error) { return lookup(st, ws, key) }
}

// byJob binds a lookup of one job's objects to the job args address.
func byJob[T any](lookup func(*state.StateStore, memdb.WatchSet, string, string) (T, error), args *structs.JobSpecificRequest) func(memdb.WatchSet, *state.StateStore) (T, error) {
	return func(ws memdb.WatchSet, st *state.StateStore) (T, error) {
		return lookup(st, ws, args.Namespace, args.JobID)
	}
}
