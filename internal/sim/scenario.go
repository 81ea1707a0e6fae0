package sim

import (
	"fmt"
	"sort"
	"time"
)

// Scenario is a simulated story: nodes and jobs at the start, a timeline
// of events, and the outcome expected. It is written as a Go value or in
// HCL (ParseScenarios).
type Scenario struct {
	Name string
	// Variant is the label of the variant block this scenario was
	// decoded for ("" for a file without variants).
	Variant     string
	Description string
	Seed        int64
	Nodes       []NodeGroup
	Jobs        []JobGroup
	Steps       []Step
	// Expect is checked once the last step has run and the cluster is idle.
	Expect *Expect
}

// NodeGroup is Count nodes (default 1) of one shape; with Count > 1 they
// are named Name-1 ... Name-N (zero-padded to the width of N). Deferred
// nodes join when a step adds them.
type NodeGroup struct {
	NodeSpec
	Count    int
	Deferred bool
}

// JobGroup is Replicas jobs (default 1) of one shape, named like node
// groups. Deferred jobs are not registered at the start: a step does it.
type JobGroup struct {
	JobSpec
	Replicas int
	Deferred bool
}

// Step is what happens at one simulated time (an offset from the start).
// Its operations run in the order of the fields, each to idle.
type Step struct {
	At             time.Duration
	AddNodes       []string // nodes (or node groups) declared Deferred
	Register       []string // jobs (or job groups) declared Deferred
	Update         []string // new version: destructive update
	Scale          map[string]int
	Stop           []string
	RejectPlans    []string
	AcceptPlans    []string
	WorkerDies     int
	Down           []string
	MissHeartbeats []string
	Resume         []string
	Fingerprint    []string // change an attribute: new computed class
	Fill           []string
	Drain          []string
	FailAlloc      []string
	// Operator operations (operator_ops.go).
	RestartAlloc   []string // the job's first running alloc, in place
	Purge          []string
	StopAlloc      []string // the job's first running alloc
	Ineligible     []string
	Eligible       []string
	DrainDeadline  map[string]time.Duration // node -> drain deadline
	Promote        []string                 // the job's running deployment
	FailDeployment []string
	ForcePeriodic  []string
	Dispatch       []string
	LeaderChange   bool
	Expect         *Expect
}

// Expect is an outcome to check: evals (created at or after Since) by
// trigger, status and pointers, and allocs by job, node and status.
type Expect struct {
	Since  time.Duration
	Total  *int
	Evals  []EvalExpect
	Allocs []AllocExpect
}

// EvalExpect counts the evals matching every field set.
type EvalExpect struct {
	Trigger, Status, Job string
	Count                int
	// Delayed: WaitUntil is still in the future at the check.
	Delayed *bool
	// Previous is the trigger of the eval PreviousEval names ("none": no
	// PreviousEval); PreviousStatus that eval's status.
	Previous, PreviousStatus string
	// Link is the pointer back from the previous eval: "blocked" (its
	// BlockedEval names this eval) or "next" (its NextEval does).
	Link string
	// Next and Blocked check the eval's own NextEval / BlockedEval: "none"
	// (unset) or "set".
	Next, Blocked string
}

// AllocExpect counts allocs of a job (on a node, if set) whose desired
// and client status match (defaults run / running).
type AllocExpect struct {
	Job, Node       string
	Desired, Client string
	// Restarts, when set, counts only allocs whose tasks were restarted
	// in place that many times in all (RestartAlloc).
	Restarts *int
	Count    int
}

// expand names the members of a group of n.
func expand(name string, n int) []string {
	if n <= 1 {
		return []string{name}
	}
	width := len(fmt.Sprint(n))
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%0*d", name, width, i+1)
	}
	return out
}

// nodeSpecs lists every node the scenario starts with, and every node by
// its name and its group's name.
func (sc *Scenario) nodeSpecs() (start []NodeSpec, byGroup map[string][]NodeSpec) {
	byGroup = map[string][]NodeSpec{}
	for _, g := range sc.Nodes {
		for _, name := range expand(g.Name, g.Count) {
			spec := g.NodeSpec
			spec.Name = name
			byGroup[g.Name] = append(byGroup[g.Name], spec)
			if name != g.Name {
				byGroup[name] = []NodeSpec{spec}
			}
			if !g.Deferred {
				start = append(start, spec)
			}
		}
	}
	return start, byGroup
}

// jobSpecs lists every job; deferred ones are keyed by group name too.
func (sc *Scenario) jobSpecs() (start []JobSpec, byGroup map[string][]JobSpec) {
	byGroup = map[string][]JobSpec{}
	for _, g := range sc.Jobs {
		for _, name := range expand(g.Name, g.Replicas) {
			spec := g.JobSpec
			spec.Name = name
			byGroup[g.Name] = append(byGroup[g.Name], spec)
			if name != g.Name {
				byGroup[name] = []JobSpec{spec}
			}
			if !g.Deferred {
				start = append(start, spec)
			}
		}
	}
	return start, byGroup
}

// sortedSteps orders the timeline (stable for equal times).
func (sc *Scenario) sortedSteps() []Step {
	steps := append([]Step(nil), sc.Steps...)
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].At < steps[j].At })
	return steps
}
