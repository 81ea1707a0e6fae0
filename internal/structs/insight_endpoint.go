package structs

import "time"

// Requests and answers of the insight endpoints (package insight computes
// them): why a group is not placed (Job.Explain, Eval.Explain), how many
// more of it fit (Job.Headroom, Operator.Headroom), and what a drain or
// the loss of nodes would do (Operator.WhatIf). None of them writes.

// JobExplainRequest asks why a job's groups (or one) are not placed.
type JobExplainRequest struct {
	JobID string
	Group string // empty: every group with unplaced allocs (every group if none)
	Node  string // a node ID, ID prefix or name: only its verdict
	Nodes bool   // list every node's verdict, not only the reasons' summary
	QueryOptions
}

// EvalExplainRequest asks why a (blocked) eval's job is not placed.
type EvalExplainRequest struct {
	EvalID string
	Nodes  bool
	QueryOptions
}

// RequestObjectID is the eval, whose namespace decides access.
func (r *EvalExplainRequest) RequestObjectID() string { return r.EvalID }

// JobExplainResponse is the explanation of each group.
type JobExplainResponse struct {
	JobID     string
	Namespace string
	EvalID    string // Eval.Explain: the eval explained
	Groups    []*GroupExplanation
	QueryMeta
}

// GroupExplanation says why one more alloc of a group does not fit, node
// by node, and the cheapest change that would place it.
type GroupExplanation struct {
	Group string
	// Unplaced is how many allocs the scheduler, run now on the current
	// state, leaves unplaced (0: the group is fully placed, and the
	// explanation is about one more).
	Unplaced int
	Ask      ComparableResources
	Nodes    int // nodes in the cluster
	Fit      int // nodes that take one more alloc now
	// Reasons are the first reasons nodes are unusable, most nodes first.
	Reasons []*ExplainReason
	// Fixes are the changes that would place it, cheapest first.
	Fixes []string
	// NodeVerdicts are every node's (with JobExplainRequest.Nodes or Node).
	NodeVerdicts []*NodeVerdict
}

// ExplainReason is one first reason, with the nodes it rules out.
type ExplainReason struct {
	Step    string // status, datacenter, pool, driver, constraint, host-volume, distinct_hosts, distinct_property, resources, ports
	Reason  string // e.g. "constraint ${attr.kernel.name} = windows", "memory"
	Count   int
	Classes map[string]int // by the node class the operator set ("" : none)
	Example string         // one node's numbers
	Nodes   []string       // node names (at most 10; Count says how many)
}

// NodeVerdict is one node's answer: every failure, the first one being
// what the scheduler reports.
type NodeVerdict struct {
	NodeID     string
	Name       string
	Class      string
	Datacenter string
	Fits       bool
	Failures   []string
	Free       ComparableResources
}

// JobHeadroomRequest asks how many more allocs of a group fit.
type JobHeadroomRequest struct {
	JobID string
	Group string
	QueryOptions
}

// OperatorHeadroomRequest asks how many allocs of a hypothetical shape
// fit (one task, the given resources), in the given datacenters and pool.
type OperatorHeadroomRequest struct {
	CPU         int
	MemoryMB    int
	DiskMB      int
	Datacenters []string
	NodePool    string
	QueryOptions
}

// HeadroomResponse is a headroom answer.
type HeadroomResponse struct {
	JobID string
	Group string
	Ask   ComparableResources
	// Current is the group's count; More how many more allocs the real
	// scheduler places on the current state, one by one.
	Current int
	More    int
	// Blocker is why the next one is not placed (the explanation's first
	// fix).
	Blocker string
	// PerNode is how many of the More each node took.
	PerNode map[string]int
	// N1 is the headroom after each single-node loss (every ready node
	// when the per-node fits are exact, else the worst few), worst
	// first: the node down, its allocs of the group placed again first;
	// N1Min the minimum over them and N1Worst its node.
	N1      []*NodeLoss
	N1Min   int
	N1Worst string
	QueryMeta
	// N1MinBound: the answer did not play every loss that could leave
	// fewer than N1Min (a cap on what-ifs for a large cluster); such a
	// loss leaves at least N1MinAtLeast (N1Min when exact).
	N1MinBound   bool
	N1MinAtLeast int
}

// NodeLoss is the headroom left when one node is lost.
type NodeLoss struct {
	NodeID string
	Name   string
	More   int // negative: allocs of the group the rest cannot hold
	// Others is how many allocs of other jobs or groups the node runs
	// (system jobs' aside), which its loss would place elsewhere too.
	// UpperBound: More does not count them taking room (the loss was
	// not played as a what-if); the real headroom may be lower.
	Others     int
	UpperBound bool
}

// WhatIfRequest is a hypothetical change: drain nodes, lose nodes, or
// lose a datacenter.
type WhatIfRequest struct {
	Kind       string   // "drain", "down", "down-dc"
	Nodes      []string // node IDs, ID prefixes or names (drain, down)
	Datacenter string   // down-dc
	// IgnoreSystemJobs keeps system allocs on drained nodes, as drain's
	// -ignore-system does.
	IgnoreSystemJobs bool
	// Deadline is the drain's deadline (0: none, as DrainSpec's): when the
	// drain is stuck, allocs still on the node are stopped at the deadline.
	Deadline time.Duration
	QueryOptions
}

// WhatIfResponse is what the schedulers would do.
type WhatIfResponse struct {
	Kind  string
	Nodes []string // the nodes changed, by name
	// Moves are the allocs that move, Unplaced those that would be left
	// without a node, with the reason.
	Moves    []*WhatIfMove
	Unplaced []*WhatIfUnplaced
	// Stopped are allocs stopped without a replacement (system allocs of a
	// drained node, batch allocs that completed, ...).
	Stopped []*WhatIfMove
	// BlockedDeployments are the jobs whose active deployment would wait
	// for unplaced allocs.
	BlockedDeployments []string
	Evals              int // scheduler runs it took
	QueryMeta
}

// WhatIfMove is one alloc leaving a node (To empty when not replaced).
type WhatIfMove struct {
	AllocID   string
	Name      string
	Namespace string
	JobID     string
	Group     string
	From      string // node name
	To        string
}

// WhatIfUnplaced is a group's allocs left unplaced, and why.
type WhatIfUnplaced struct {
	Namespace string
	JobID     string
	Group     string
	Count     int
	Reason    string
}
