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
