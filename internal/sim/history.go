package sim

import (
	"cmp"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// EvalRecord is one eval as the history shows it: IDs canonicalized to
// E1, E2... by creation (raft index, then ID), nodes by name, times as
// simulated offsets from the start.
type EvalRecord struct {
	ID, Type, Trigger, Job, Node string
	Status, Description          string
	Previous, Next, Blocked      string
	Deployment                   string
	Created                      time.Duration
	WaitUntil                    time.Duration // 0: not delayed
}

// AllocRecord is one alloc in the history (A1, A2... by creation).
type AllocRecord struct {
	ID, Name, Job, Node, Eval string
	Desired, Client           string
	JobVersion                uint64
	Healthy                   string // "", "true", "false"
	Restarts                  uint64 // in-place task restarts, all tasks
}

// History is every eval and alloc the cluster holds, canonicalized so two
// runs with the same seed compare equal line by line.
type History struct {
	Evals  []EvalRecord
	Allocs []AllocRecord
}

// History reads the state store's evals and allocs.
func (s *Sim) History() (History, error) {
	evals, err := s.srv.State().Evals(nil, "*")
	if err != nil {
		return History{}, err
	}
	allocs, err := s.srv.State().Allocs(nil, "*")
	if err != nil {
		return History{}, err
	}
	c := s.canon(evals, allocs)
	h := History{}
	for _, e := range evals {
		h.Evals = append(h.Evals, c.eval(e))
	}
	for _, a := range allocs {
		h.Allocs = append(h.Allocs, c.alloc(a))
	}
	return h, nil
}

// canonicalizer maps raw IDs to stable names.
type canonicalizer struct {
	sim   *Sim
	names map[string]string
}

// canon sorts evals and allocs into a canonical order and names them;
// evals and allocs are sorted in place.
//
// The order does not rest on raft indexes alone, so a transcript survives
// a change in the order the duties are stepped in (and real-time runs,
// where the leader's goroutines write concurrently with the worker). Evals are ordered by
// simulated creation time, then causal depth (how many PreviousEval hops
// lead to them), then job, trigger and node; only evals equal in all of
// those (which are causally ordered) fall back to the raft index.
func (s *Sim) canon(evals []*structs.Evaluation, allocs []*structs.Allocation) *canonicalizer {
	c := &canonicalizer{sim: s, names: map[string]string{}}
	for _, n := range s.sortedNodes() {
		c.names[n.ID] = n.Name
	}
	depth := evalDepths(evals)
	sort.Slice(evals, func(i, j int) bool {
		a, b := evals[i], evals[j]
		return compareKeys(
			[]any{a.CreateTime, depth[a.ID], a.JobID, a.TriggeredBy, c.name(a.NodeID), a.CreateIndex, a.ID},
			[]any{b.CreateTime, depth[b.ID], b.JobID, b.TriggeredBy, c.name(b.NodeID), b.CreateIndex, b.ID}) < 0
	})
	sort.Slice(allocs, func(i, j int) bool {
		a, b := allocs[i], allocs[j]
		return compareKeys(
			[]any{a.CreateTime, a.JobID, a.Name, c.name(a.NodeID), a.CreateIndex, a.ID},
			[]any{b.CreateTime, b.JobID, b.Name, c.name(b.NodeID), b.CreateIndex, b.ID}) < 0
	})
	for i, e := range evals {
		c.names[e.ID] = fmt.Sprintf("E%d", i+1)
	}
	for i, a := range allocs {
		c.names[a.ID] = fmt.Sprintf("A%d", i+1)
	}
	deployments := 0
	for _, e := range evals {
		if e.DeploymentID != "" && c.names[e.DeploymentID] == "" {
			deployments++
			c.names[e.DeploymentID] = fmt.Sprintf("D%d", deployments)
		}
	}
	return c
}

// evalDepths counts PreviousEval hops back to an eval without one.
func evalDepths(evals []*structs.Evaluation) map[string]int {
	prev := map[string]string{}
	for _, e := range evals {
		prev[e.ID] = e.PreviousEval
	}
	depth := map[string]int{}
	for _, e := range evals {
		d := 0
		for p := prev[e.ID]; p != "" && d < len(evals); p = prev[p] {
			d++
		}
		depth[e.ID] = d
	}
	return depth
}

// compareKeys compares two tuples of int64, int, uint64 or string.
func compareKeys(a, b []any) int {
	for i := range a {
		var c int
		switch x := a[i].(type) {
		case int64:
			c = cmp.Compare(x, b[i].(int64))
		case int:
			c = cmp.Compare(x, b[i].(int))
		case uint64:
			c = cmp.Compare(x, b[i].(uint64))
		case string:
			c = cmp.Compare(x, b[i].(string))
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

func (c *canonicalizer) name(id string) string {
	if id == "" {
		return ""
	}
	if n, ok := c.names[id]; ok {
		return n
	}
	return "?" + id
}

func (c *canonicalizer) eval(e *structs.Evaluation) EvalRecord {
	r := EvalRecord{
		ID: c.name(e.ID), Type: e.Type, Trigger: e.TriggeredBy, Job: e.JobID, Node: c.name(e.NodeID),
		Status: e.Status, Description: e.StatusDescription,
		Previous: c.name(e.PreviousEval), Next: c.name(e.NextEval), Blocked: c.name(e.BlockedEval),
		Deployment: c.name(e.DeploymentID), Created: c.sim.offset(e.CreateTime),
	}
	if !e.WaitUntil.IsZero() {
		r.WaitUntil = e.WaitUntil.Sub(c.sim.start)
	}
	return r
}

func (c *canonicalizer) alloc(a *structs.Allocation) AllocRecord {
	r := AllocRecord{
		ID: c.name(a.ID), Name: a.Name, Job: a.JobID, Node: c.name(a.NodeID), Eval: c.name(a.EvalID),
		Desired: a.DesiredStatus, Client: a.ClientStatus,
	}
	if a.Job != nil {
		r.JobVersion = a.Job.Version
	}
	if ds := a.DeploymentStatus; ds != nil && ds.Healthy != nil {
		r.Healthy = fmt.Sprint(*ds.Healthy)
	}
	for _, ts := range a.TaskStates {
		r.Restarts += ts.Restarts
	}
	return r
}

// offset turns a unix-nanosecond stamp into time since the start.
func (s *Sim) offset(nanos int64) time.Duration {
	if nanos == 0 {
		return 0
	}
	return time.Unix(0, nanos).Sub(s.start)
}

func (r EvalRecord) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s job=%s", r.ID, r.Trigger, r.Status, r.Job)
	for _, f := range [][2]string{{"node", r.Node}, {"prev", r.Previous}, {"next", r.Next}, {"blocked", r.Blocked}, {"deployment", r.Deployment}} {
		if f[1] != "" {
			fmt.Fprintf(&b, " %s=%s", f[0], f[1])
		}
	}
	fmt.Fprintf(&b, " at=%v", r.Created)
	if r.WaitUntil != 0 {
		fmt.Fprintf(&b, " wait_until=%v", r.WaitUntil)
	}
	if r.Description != "" {
		fmt.Fprintf(&b, " %q", r.Description)
	}
	return b.String()
}

func (r AllocRecord) String() string {
	s := fmt.Sprintf("%s %s v%d node=%s eval=%s %s/%s", r.ID, r.Name, r.JobVersion, r.Node, r.Eval, r.Desired, r.Client)
	if r.Healthy != "" {
		s += " healthy=" + r.Healthy
	}
	if r.Restarts > 0 {
		s += fmt.Sprintf(" restarts=%d", r.Restarts)
	}
	return s
}

// Lines renders the history one record per line.
func (h History) Lines() []string {
	out := make([]string, 0, len(h.Evals)+len(h.Allocs))
	for _, e := range h.Evals {
		out = append(out, e.String())
	}
	for _, a := range h.Allocs {
		out = append(out, a.String())
	}
	return out
}

func (h History) String() string { return strings.Join(h.Lines(), "\n") }

// Diff describes where two histories differ ("" when identical).
func Diff(a, b History) string { return diffLines(a.Lines(), b.Lines(), 10) }

// diffLines lists the lines that differ as "- want" / "+ got" pairs, at
// most limit of them.
func diffLines(la, lb []string, limit int) string {
	var out []string
	for i := 0; i < max(len(la), len(lb)); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			out = append(out, fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, x, y))
		}
		if len(out) == limit {
			out = append(out, "...")
			break
		}
	}
	return strings.Join(out, "\n")
}
