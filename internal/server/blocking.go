package server

import (
	"context"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// Limits of blocking queries (Nomad's).
const (
	DefaultQueryWait = 5 * time.Minute
	MaxQueryWait     = 10 * time.Minute
)

// QueryOptions and QueryMeta are the read options and answer metadata of
// every read endpoint (see structs.QueryOptions).
type (
	QueryOptions = structs.QueryOptions
	QueryMeta    = structs.QueryMeta
)

// QueryFunc runs a read against the state store, adding to ws the channels
// that fire when its answer may change, and returns the answer's index.
type QueryFunc func(ws memdb.WatchSet, st *state.StateStore) (uint64, error)

// BlockingQuery runs query, and when opts.MinQueryIndex is set, runs it
// again each time something it watched changes, until the answer's index
// passes MinQueryIndex, the wait ends, or ctx is done. The last run's
// answer stands. A cancelled ctx (the HTTP client went away) ends the wait
// at once.
func (s *Server) BlockingQuery(ctx context.Context, opts QueryOptions, query QueryFunc) (QueryMeta, error) {
	wait := opts.MaxQueryTime
	if wait <= 0 {
		wait = DefaultQueryWait
	}
	wait = min(wait, MaxQueryWait)
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		st := s.State()
		ws := memdb.NewWatchSet()
		ws.Add(st.AbandonCh())
		index, err := query(ws, st)
		if err != nil {
			return s.queryMeta(index), err
		}
		if opts.MinQueryIndex == 0 || index > opts.MinQueryIndex {
			return s.queryMeta(index), nil
		}
		if ws.WatchCtx(ctx) != nil {
			return s.queryMeta(index), nil // timed out: the answer is unchanged
		}
	}
}

// blockingRead is BlockingQuery for an endpoint: it fills the reply's
// QueryMeta (keeping a NextToken the query set).
func (s *Server) blockingRead(ctx context.Context, opts *QueryOptions, meta *QueryMeta, query QueryFunc) error {
	m, err := s.BlockingQuery(ctx, *opts, query)
	next := meta.NextToken
	*meta = m
	meta.NextToken = next
	return err
}

func (s *Server) queryMeta(index uint64) QueryMeta {
	// Index 0 would make clients spin on ?index=0; 1 is "nothing yet".
	return QueryMeta{Index: max(index, 1), KnownLeader: s.Leader() != "", LastContact: s.LastContact()}
}

// The three shapes of a read endpoint's blocking query. Each runs its
// state read as often as blockingRead does and leaves the last run's
// answer in out, a field of the endpoint's reply.

// readAtTable answers read at table's index: a listing that may change
// whenever the table does.
func readAtTable[T any](s *Server, ctx context.Context, q *QueryOptions, meta *QueryMeta, table string,
	out *T, read func(memdb.WatchSet, *state.StateStore) (T, error)) error {
	if err := refuseListOptions(q); err != nil {
		return err
	}
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
