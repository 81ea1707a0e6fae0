package command

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

// chainNode is one eval of the chain view, with the evals it led to. It is
// also what -json and -t see, so scripts get the same tree.
type chainNode struct {
	Link     string `json:",omitempty"` // how the parent points here: next, blocked, follow-up
	Eval     *evalView
	Children []*chainNode `json:",omitempty"`
}

// evalChain draws the eval id and every eval linked to it as a tree.
func (e *env) evalChain(id string) error {
	evals, err := e.chainEvals(id)
	if err != nil {
		return err
	}
	roots := buildChain(evals)
	return e.output(roots, func() error {
		rows := [][]string{}
		for _, r := range roots {
			rows = e.chainRows(rows, r, id, "", "")
		}
		writeColumns(e.stdout, rows)
		fmt.Fprintf(e.stdout, "\n%s\n", chainSummary(evals))
		return nil
	})
}

// chainEvals fetches the eval with its related evals, then each related
// eval in full for its timeline. An eval garbage-collected in between is
// shown from its stub.
func (e *env) chainEvals(id string) ([]*evalView, error) {
	first, err := e.fetchEval(id, true)
	if err != nil {
		return nil, err
	}
	out := []*evalView{first}
	seen := map[string]bool{id: true}
	for _, stub := range first.RelatedEvals {
		if seen[stub.ID] {
			continue
		}
		seen[stub.ID] = true
		ev, err := e.fetchEval(stub.ID, false)
		if err != nil {
			ev = &evalView{Evaluation: stubEval(stub)}
		}
		out = append(out, ev)
	}
	first.RelatedEvals = nil // the tree shows them
	return out, nil
}

func stubEval(s *api.EvaluationStub) api.Evaluation {
	return api.Evaluation{
		ID: s.ID, Namespace: s.Namespace, Priority: s.Priority, Type: s.Type, TriggeredBy: s.TriggeredBy,
		JobID: s.JobID, NodeID: s.NodeID, DeploymentID: s.DeploymentID, Status: s.Status,
		StatusDescription: s.StatusDescription, WaitUntil: s.WaitUntil, NextEval: s.NextEval,
		PreviousEval: s.PreviousEval, BlockedEval: s.BlockedEval, CreateIndex: s.CreateIndex,
		ModifyIndex: s.ModifyIndex, CreateTime: s.CreateTime, ModifyTime: s.ModifyTime,
	}
}

// buildChain links each eval under the eval that caused it: the one whose
// NextEval or BlockedEval names it, else the one its PreviousEval names.
// Evals without a cause in the set are roots, oldest first.
func buildChain(evals []*evalView) []*chainNode {
	sort.Slice(evals, func(i, j int) bool { return evals[i].CreateIndex < evals[j].CreateIndex })
	nodes := map[string]*chainNode{}
	for _, ev := range evals {
		nodes[ev.ID] = &chainNode{Eval: ev}
	}
	parent := map[string]string{}
	for _, ev := range evals {
		linkChild(nodes, parent, ev.ID, ev.NextEval, "next")
		linkChild(nodes, parent, ev.ID, ev.BlockedEval, "blocked")
	}
	for _, ev := range evals {
		linkChild(nodes, parent, ev.PreviousEval, ev.ID, "follow-up")
	}
	return attach(evals, nodes, parent)
}

// linkChild records from -> to unless to already has a cause or the link
// would close a cycle.
func linkChild(nodes map[string]*chainNode, parent map[string]string, from, to, link string) {
	if nodes[from] == nil || nodes[to] == nil || from == to || parent[to] != "" {
		return
	}
	for p := from; p != ""; p = parent[p] {
		if p == to {
			return
		}
	}
	parent[to] = from
	nodes[to].Link = link
}

func attach(evals []*evalView, nodes map[string]*chainNode, parent map[string]string) []*chainNode {
	var roots []*chainNode
	for _, ev := range evals { // creation order, so children come out sorted
		n := nodes[ev.ID]
		if p := parent[ev.ID]; p != "" {
			nodes[p].Children = append(nodes[p].Children, n)
		} else {
			roots = append(roots, n)
		}
	}
	return roots
}

// chainRows renders n and its subtree. lead is the branch drawn before
// n's own connector; pre the indentation its children inherit.
func (e *env) chainRows(rows [][]string, n *chainNode, target, lead, pre string) [][]string {
	mark := "○"
	if n.Eval.ID == target {
		mark = "●"
	}
	label := ""
	if n.Link != "" {
		label = n.Link + ": "
	}
	ev := n.Eval
	rows = append(rows, []string{lead + label + mark + " " + e.short(ev.ID), ev.TriggeredBy, ev.Status, e.timelineLine(ev)})
	for i, c := range n.Children {
		last := i == len(n.Children)-1
		branch, cont := "├─ ", "│  "
		if last {
			branch, cont = "└─ ", "   "
		}
		rows = e.chainRows(rows, c, target, pre+branch, pre+cont)
	}
	return rows
}

// timelineLine is the eval's steps with the time each took to reach, e.g.
// "pending → scheduling(worker-0) 12ms → complete 3ms", plus how long a
// non-terminal eval has been waiting.
func (e *env) timelineLine(ev *evalView) string {
	if len(ev.Timeline) == 0 {
		return ev.Status + e.waiting(ev.Status, ev.ModifyTime)
	}
	steps := collapseSteps(ev.Timeline)
	parts := make([]string, 0, len(steps))
	for i, s := range steps {
		step := s.Status
		if s.Worker != "" {
			step += "(" + s.Worker + ")"
		}
		if i > 0 {
			step += " " + e.dur(time.Duration(s.Time-steps[i-1].Time))
		}
		parts = append(parts, step)
	}
	return strings.Join(parts, " → ") + e.waiting(ev.Status, steps[len(steps)-1].Time)
}

// collapseSteps drops a step that only repeats the one before it (same
// status and worker, no note): it adds length, not information.
func collapseSteps(steps []*timelineStep) []*timelineStep {
	out := steps[:1:1]
	for _, s := range steps[1:] {
		prev := out[len(out)-1]
		if s.Status == prev.Status && s.Worker == prev.Worker && s.Note == "" {
			continue
		}
		out = append(out, s)
	}
	return out
}

// waiting says how long a pending or blocked eval has sat since its last
// step; terminal evals are not waiting.
func (e *env) waiting(status string, since int64) string {
	if status != "pending" && status != "blocked" || since == 0 {
		return ""
	}
	return " (waiting " + e.dur(now().Sub(time.Unix(0, since))) + ")"
}

// chainSummary counts the chain's evals by trigger and by status: the
// quick answer to "why does this job have 40 evals?".
func chainSummary(evals []*evalView) string {
	byTrigger, byStatus := map[string]int{}, map[string]int{}
	for _, ev := range evals {
		byTrigger[ev.TriggeredBy]++
		byStatus[ev.Status]++
	}
	return fmt.Sprintf("%d evaluation%s: %s; %s", len(evals), plural(len(evals)), countList(byTrigger), countList(byStatus))
}

func countList(m map[string]int) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}
