package sim

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// chainNode is one eval in the chain tree, under the eval that caused it.
type chainNode struct {
	eval     EvalRecord
	link     string // how the parent points here: next, blocked, follow-up
	children []*chainNode
}

// Chains arranges the history's evals as trees: each eval under the one
// whose NextEval or BlockedEval names it, else the one its PreviousEval
// names; evals without a cause are roots, in creation order.
func (h History) chains() []*chainNode {
	nodes := map[string]*chainNode{}
	for _, e := range h.Evals {
		nodes[e.ID] = &chainNode{eval: e}
	}
	parent := map[string]string{}
	link := func(from, to, how string) {
		if nodes[from] == nil || nodes[to] == nil || from == to || parent[to] != "" {
			return
		}
		parent[to] = from
		nodes[to].link = how
	}
	for _, e := range h.Evals {
		link(e.ID, e.Next, "next")
		link(e.ID, e.Blocked, "blocked")
	}
	for _, e := range h.Evals {
		link(e.Previous, e.ID, "follow-up")
	}
	var roots []*chainNode
	for _, e := range h.Evals { // creation order keeps children sorted
		n := nodes[e.ID]
		if p := parent[e.ID]; p != "" {
			nodes[p].children = append(nodes[p].children, n)
		} else {
			roots = append(roots, n)
		}
	}
	return roots
}

// WriteChains draws the eval chains, like `drover eval status -chain`.
func (h History) WriteChains(w io.Writer) {
	for _, r := range h.chains() {
		writeChain(w, r, "", "")
	}
}

func writeChain(w io.Writer, n *chainNode, lead, pre string) {
	label := ""
	if n.link != "" {
		label = n.link + ": "
	}
	e := n.eval
	line := fmt.Sprintf("%s%s%s %s %s job=%s", lead, label, e.ID, e.Trigger, e.Status, e.Job)
	if e.Node != "" {
		line += " node=" + e.Node
	}
	line += fmt.Sprintf(" at=%v", e.Created)
	if e.WaitUntil != 0 {
		line += fmt.Sprintf(" wait_until=%v", e.WaitUntil)
	}
	fmt.Fprintln(w, line)
	for i, c := range n.children {
		branch, cont := "├─ ", "│  "
		if i == len(n.children)-1 {
			branch, cont = "└─ ", "   "
		}
		writeChain(w, c, pre+branch, pre+cont)
	}
}

// Counts summarizes the evals by trigger and by status, and the allocs by
// desired/client status.
func (h History) Counts() string {
	byTrigger, byStatus, allocs := map[string]int{}, map[string]int{}, map[string]int{}
	for _, e := range h.Evals {
		byTrigger[e.Trigger]++
		byStatus[e.Status]++
	}
	for _, a := range h.Allocs {
		allocs[a.Desired+"/"+a.Client]++
	}
	return fmt.Sprintf("%d evals: %s\n  by status: %s\n%d allocs: %s",
		len(h.Evals), countList(byTrigger), countList(byStatus), len(h.Allocs), countList(allocs))
}

func countList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// Report prints a scenario's result: the chains, the counts and every
// failed expectation.
func (r *Result) Report(w io.Writer) {
	verdict := "PASS"
	if !r.Passed() {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "scenario %s (seed %d): %s\n", r.Scenario.Name, r.Scenario.Seed, verdict)
	for _, line := range strings.Split(strings.TrimSpace(r.Scenario.Description), "\n") {
		if line != "" {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	fmt.Fprintln(w)
	r.History.WriteChains(w)
	fmt.Fprintf(w, "\n%s\n", r.History.Counts())
	for _, f := range r.Failures {
		fmt.Fprintf(w, "FAIL %s\n", f)
	}
}
