package server

import (
	"context"
	"slices"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// Search limits (Nomad's defaults): a prefix search returns at most
// searchPrefixLimit IDs per context, a fuzzy search searchFuzzyLimit
// matches, and refuses terms shorter than searchFuzzyMinTerm.
const (
	searchPrefixLimit  = 20
	searchFuzzyLimit   = 100
	searchFuzzyMinTerm = 2
)

// prefixContexts are the contexts a prefix search of "all" covers.
var prefixContexts = []string{
	structs.SearchContextJobs, structs.SearchContextEvals, structs.SearchContextAllocs,
	structs.SearchContextNodes, structs.SearchContextNodePools, structs.SearchContextDeployments,
	structs.SearchContextNamespaces, structs.SearchContextPlugins, structs.SearchContextVolumes,
}

// SearchEndpoint is the Search.* endpoint family.
type SearchEndpoint struct{ srv *Server }

// PrefixSearch answers the IDs starting with args.Prefix in one context or
// all of them, sorted, at most 20 per context.
func (e *SearchEndpoint) PrefixSearch(ctx context.Context, args *structs.SearchRequest) (*structs.SearchResponse, error) {
	reply := &structs.SearchResponse{}
	contexts, err := searchContexts(args.Context, prefixContexts)
	if err != nil {
		return nil, err
	}
	if contexts, err = e.srv.auth.SearchableContexts(args, contexts); err != nil {
		return nil, err
	}
	err = e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		reply.Matches, reply.Truncations = map[string][]string{}, map[string]bool{}
		for _, c := range contexts {
			ids, err := prefixMatches(ws, st, c, args.Namespace, args.Prefix)
			if err != nil {
				return 0, err
			}
			slices.Sort(ids)
			ids = slices.Compact(ids)
			reply.Truncations[c] = len(ids) > searchPrefixLimit
			reply.Matches[c] = ids[:min(len(ids), searchPrefixLimit)]
		}
		return st.LatestIndex(), nil
	})
	return reply, err
}

// searchContexts validates a requested context and expands "all".
func searchContexts(requested string, all []string) ([]string, error) {
	switch {
	case requested == "" || requested == structs.SearchContextAll:
		return all, nil
	case slices.Contains(all, requested):
		return []string{requested}, nil
	}
	return nil, BadRequest("Context: %q is not a search context (one of %s, or all)", requested, strings.Join(all, ", "))
}

// prefixMatches lists the IDs of one context that start with prefix.
func prefixMatches(ws memdb.WatchSet, st *state.StateStore, context, ns, prefix string) ([]string, error) {
	switch context {
	case structs.SearchContextJobs:
		jobs, err := st.JobsByIDPrefix(ws, ns, prefix)
		return ids(jobs, func(j *structs.Job) string { return j.ID }), err
	case structs.SearchContextEvals:
		evals, err := st.EvalsByIDPrefix(ws, ns, prefix)
		return ids(evals, func(e *structs.Evaluation) string { return e.ID }), err
	case structs.SearchContextAllocs:
		allocs, err := st.AllocsByIDPrefix(ws, ns, prefix)
		return ids(allocs, func(a *structs.Allocation) string { return a.ID }), err
	case structs.SearchContextNodes:
		nodes, err := st.NodesByIDPrefix(ws, prefix)
		return ids(nodes, func(n *structs.Node) string { return n.ID }), err
	case structs.SearchContextDeployments:
		ds, err := st.Deployments(ws, ns)
		return withPrefix(ids(ds, func(d *structs.Deployment) string { return d.ID }), prefix), err
	case structs.SearchContextNodePools:
		pools, err := nodePoolNames(ws, st)
		return withPrefix(pools, prefix), err
	case structs.SearchContextNamespaces:
		return withPrefix([]string{structs.DefaultNamespace}, prefix), nil
	}
	return nil, nil // plugins and volumes: Drover has none
}

// nodePoolNames are the built-in pools and every pool a node is in.
func nodePoolNames(ws memdb.WatchSet, st *state.StateStore) ([]string, error) {
	nodes, err := st.Nodes(ws)
	if err != nil {
		return nil, err
	}
	pools := []string{"all", structs.DefaultNodePool}
	for _, n := range nodes {
		pools = append(pools, n.NodePool)
	}
	slices.Sort(pools)
	return slices.Compact(pools), nil
}

func ids[T any](objs []T, id func(T) string) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, id(o))
	}
	return out
}

func withPrefix(names []string, prefix string) []string {
	out := names[:0:0]
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}
