package server

import (
	"cmp"
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

func withPrefix(names []string, prefix string) []string {
	out := names[:0:0]
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// fuzzyContexts are the contexts a fuzzy search of "all" covers.
var fuzzyContexts = []string{
	structs.SearchContextJobs, structs.SearchContextGroups, structs.SearchContextTasks,
	structs.SearchContextServices, structs.SearchContextImages, structs.SearchContextCommands,
	structs.SearchContextNodes, structs.SearchContextClasses, structs.SearchContextNodePools,
	structs.SearchContextNamespaces, structs.SearchContextAllocs, structs.SearchContextEvals,
	structs.SearchContextDeployments,
}

// fuzzyCandidate is a name that may match, with its match and its scope.
type fuzzyCandidate struct {
	context string
	match   structs.FuzzyMatch
}

// FuzzySearch answers the objects whose names contain args.Text (case
// insensitive), best matches first: earlier occurrences, then shorter
// names, then alphabetical. IDs (allocs, evals, deployments) match by
// prefix only, as substrings of UUIDs mean nothing.
func (e *SearchEndpoint) FuzzySearch(ctx context.Context, args *structs.FuzzySearchRequest) (*structs.FuzzySearchResponse, error) {
	reply := &structs.FuzzySearchResponse{}
	if len(args.Text) < searchFuzzyMinTerm {
		return nil, BadRequest("Text: search term must be at least %d characters", searchFuzzyMinTerm)
	}
	contexts, err := searchContexts(args.Context, fuzzyContexts)
	if err != nil {
		return nil, err
	}
	if contexts, err = e.srv.auth.SearchableContexts(args, contexts); err != nil {
		return nil, err
	}
	text := strings.ToLower(args.Text)
	err = e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		cands, err := fuzzyCandidates(ws, st, args.Namespace, args.Text)
		if err != nil {
			return 0, err
		}
		reply.Matches, reply.Truncations = map[string][]structs.FuzzyMatch{}, map[string]bool{}
		for _, c := range contexts {
			matches := rankFuzzy(cands, c, text)
			reply.Truncations[c] = len(matches) > searchFuzzyLimit
			reply.Matches[c] = matches[:min(len(matches), searchFuzzyLimit)]
		}
		return st.LatestIndex(), nil
	})
	return reply, err
}

// rankFuzzy keeps the candidates of one context that contain text and
// orders them best first.
func rankFuzzy(cands []fuzzyCandidate, context, text string) []structs.FuzzyMatch {
	type scored struct {
		m   structs.FuzzyMatch
		pos int
	}
	var hits []scored
	for _, c := range cands {
		if c.context != context {
			continue
		}
		if pos := strings.Index(strings.ToLower(c.match.ID), text); pos >= 0 {
			hits = append(hits, scored{c.match, pos})
		}
	}
	slices.SortFunc(hits, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.pos, b.pos), cmp.Compare(len(a.m.ID), len(b.m.ID)),
			strings.Compare(a.m.ID, b.m.ID), slices.Compare(a.m.Scope, b.m.Scope))
	})
	out := make([]structs.FuzzyMatch, 0, len(hits))
	for i, h := range hits {
		if i > 0 && h.m.ID == hits[i-1].m.ID && slices.Equal(h.m.Scope, hits[i-1].m.Scope) {
			continue
		}
		out = append(out, h.m)
	}
	return out
}

// fuzzyCandidates lists every searchable name with its context and scope.
func fuzzyCandidates(ws memdb.WatchSet, st *state.StateStore, ns, text string) ([]fuzzyCandidate, error) {
	jobs, err := st.Jobs(ws, ns)
	if err != nil {
		return nil, err
	}
	var out []fuzzyCandidate
	for _, j := range jobs {
		out = append(out, jobCandidates(j)...)
	}
	nodes, err := st.Nodes(ws)
	if err != nil {
		return nil, err
	}
	for _, n := range nodes {
		out = append(out, fuzzyCandidate{structs.SearchContextNodes, structs.FuzzyMatch{ID: n.Name, Scope: []string{n.ID}}})
		if n.NodeClass != "" {
			out = append(out, fuzzyCandidate{structs.SearchContextClasses, structs.FuzzyMatch{ID: n.NodeClass}})
		}
	}
	pools, err := nodePoolNames(ws, st)
	if err != nil {
		return nil, err
	}
	for _, p := range pools {
		out = append(out, fuzzyCandidate{structs.SearchContextNodePools, structs.FuzzyMatch{ID: p}})
	}
	out = append(out, fuzzyCandidate{structs.SearchContextNamespaces, structs.FuzzyMatch{ID: structs.DefaultNamespace}})
	idMatches, err := fuzzyIDCandidates(ws, st, ns, text)
	return append(out, idMatches...), err
}

// jobCandidates are a job's searchable names: the job, its groups, tasks,
// services, images and commands, each scoped by where it lives.
func jobCandidates(j *structs.Job) []fuzzyCandidate {
	out := []fuzzyCandidate{{structs.SearchContextJobs, structs.FuzzyMatch{ID: j.ID, Scope: []string{j.Namespace}}}}
	for _, tg := range j.TaskGroups {
		groupScope := []string{j.Namespace, j.ID}
		out = append(out, fuzzyCandidate{structs.SearchContextGroups, structs.FuzzyMatch{ID: tg.Name, Scope: groupScope}})
		for _, s := range tg.Services {
			out = append(out, fuzzyCandidate{structs.SearchContextServices, structs.FuzzyMatch{ID: s.Name, Scope: []string{j.Namespace, j.ID, tg.Name}}})
		}
		for _, t := range tg.Tasks {
			taskScope := []string{j.Namespace, j.ID, tg.Name}
			out = append(out, fuzzyCandidate{structs.SearchContextTasks, structs.FuzzyMatch{ID: t.Name, Scope: taskScope}})
			inTask := []string{j.Namespace, j.ID, tg.Name, t.Name}
			for _, s := range t.Services {
				out = append(out, fuzzyCandidate{structs.SearchContextServices, structs.FuzzyMatch{ID: s.Name, Scope: inTask}})
			}
			if img, ok := t.Config["image"].(string); ok && img != "" {
				out = append(out, fuzzyCandidate{structs.SearchContextImages, structs.FuzzyMatch{ID: img, Scope: inTask}})
			}
			if cmd, ok := t.Config["command"].(string); ok && cmd != "" {
				out = append(out, fuzzyCandidate{structs.SearchContextCommands, structs.FuzzyMatch{ID: cmd, Scope: inTask}})
			}
		}
	}
	return out
}

// fuzzyIDCandidates are the allocs, evals and deployments whose IDs start
// with text, scoped by namespace and job.
func fuzzyIDCandidates(ws memdb.WatchSet, st *state.StateStore, ns, text string) ([]fuzzyCandidate, error) {
	var out []fuzzyCandidate
	allocs, err := st.AllocsByIDPrefix(ws, ns, text)
	if err != nil {
		return nil, err
	}
	for _, a := range allocs {
		out = append(out, fuzzyCandidate{structs.SearchContextAllocs, structs.FuzzyMatch{ID: a.ID, Scope: []string{a.Namespace, a.JobID}}})
	}
	evals, err := st.EvalsByIDPrefix(ws, ns, text)
	if err != nil {
		return nil, err
	}
	for _, e := range evals {
		out = append(out, fuzzyCandidate{structs.SearchContextEvals, structs.FuzzyMatch{ID: e.ID, Scope: []string{e.Namespace, e.JobID}}})
	}
	ds, err := st.Deployments(ws, ns)
	for _, d := range ds {
		if strings.HasPrefix(d.ID, text) {
			out = append(out, fuzzyCandidate{structs.SearchContextDeployments, structs.FuzzyMatch{ID: d.ID, Scope: []string{d.Namespace, d.JobID}}})
		}
	}
	return out, err
}
