package state

import (
	"sort"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// EvalsRelatedToID returns every eval reachable from id through
// PreviousEval, NextEval and BlockedEval links, followed in both
// directions, excluding id itself, sorted by CreateIndex. Follow-up evals
// always belong to the same job, so the search is confined to its evals.
// An unknown id yields no related evals.
func (r reader) EvalsRelatedToID(ws memdb.WatchSet, id string) ([]*structs.EvaluationStub, error) {
	txn := r.txn()
	start, err := evalByID(txn, ws, id)
	if err != nil || start == nil {
		return nil, err
	}
	evals, err := evalsByJob(txn, ws, start.Namespace, start.JobID)
	if err != nil {
		return nil, err
	}
	graph := evalLinks(evals)
	var out []*structs.EvaluationStub
	for _, e := range reachable(graph, start.ID) {
		out = append(out, e.Stub())
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreateIndex < out[j].CreateIndex })
	return out, nil
}

// evalGraph is an undirected graph of eval links.
type evalGraph struct {
	byID  map[string]*structs.Evaluation
	edges map[string][]string
}

func evalLinks(evals []*structs.Evaluation) evalGraph {
	g := evalGraph{byID: map[string]*structs.Evaluation{}, edges: map[string][]string{}}
	for _, e := range evals {
		g.byID[e.ID] = e
	}
	for _, e := range evals {
		for _, other := range []string{e.PreviousEval, e.NextEval, e.BlockedEval} {
			if _, ok := g.byID[other]; ok && other != e.ID {
				g.edges[e.ID] = append(g.edges[e.ID], other)
				g.edges[other] = append(g.edges[other], e.ID)
			}
		}
	}
	return g
}

// reachable returns the evals connected to start, excluding start.
func reachable(g evalGraph, start string) []*structs.Evaluation {
	seen := map[string]bool{start: true}
	queue := []string{start}
	var out []*structs.Evaluation
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, next := range g.edges[cur] {
			if !seen[next] {
				seen[next] = true
				queue = append(queue, next)
				out = append(out, g.byID[next])
			}
		}
	}
	return out
}
