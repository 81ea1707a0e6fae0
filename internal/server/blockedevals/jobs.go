package blockedevals

import (
	"sort"

	"github.com/drover-project/drover/internal/structs"
)

// Untrack drops every blocked eval of the job (job-wide and per node)
// without enqueueing them, and returns them in ID order: the job was
// stopped or purged, and the caller cancels the dropped evals.
func (t *Tracker) Untrack(namespace, jobID string) []*structs.Evaluation {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*structs.Evaluation
	for _, en := range t.set.matchJob(jobKey{namespace, jobID}) {
		t.set.remove(en.eval.ID)
		out = append(out, en.eval)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// HasBlocked returns the job's tracked blocked eval. The job-wide eval is
// preferred; for a system job blocked only per node, the one on the lowest
// node ID is returned so the answer is deterministic.
func (t *Tracker) HasBlocked(namespace, jobID string) (*structs.Evaluation, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	perNode := t.set.byJob[jobKey{namespace, jobID}]
	if en, ok := perNode[""]; ok {
		return en.eval, true
	}
	if len(perNode) == 0 {
		return nil, false
	}
	nodes := make([]string, 0, len(perNode))
	for node := range perNode {
		nodes = append(nodes, node)
	}
	sort.Strings(nodes)
	return perNode[nodes[0]].eval, true
}
