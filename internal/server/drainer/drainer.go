package drainer

import (
	"cmp"
	"slices"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// Input is the state one step decides on. The funcs read the leader's
// snapshot; a nil func reads as "nothing there". Nothing is modified.
type Input struct {
	Now          time.Time
	Nodes        []*structs.Node // all nodes; draining ones have DrainStrategy != nil
	AllocsByNode func(nodeID string) []*structs.Allocation
	AllocsByJob  func(namespace, jobID string) []*structs.Allocation
	Job          func(namespace, jobID string) *structs.Job
	// EvalsByJob tells whether a job already got its eval at a forced
	// drain's deadline (see forcedEvalDue).
	EvalsByJob func(namespace, jobID string) []*structs.Evaluation
}

// Actions is what the leader writes after a step.
type Actions struct {
	// Migrate lists the allocs to mark DesiredTransition.Migrate=true, in
	// one raft write together with Evals. They are the snapshot's objects,
	// unchanged: the caller builds the transition request from their IDs.
	Migrate []*structs.Allocation
	// Evals holds one pending node-drain eval per job with allocs in
	// Migrate, and per job whose allocs were marked before a deadline that
	// has now passed (the schedulers then stop them whether or not their
	// replacements fit). Evals may come without Migrate.
	Evals []*structs.Evaluation
	// Done lists the nodes whose drain is complete: the caller clears their
	// DrainStrategy (they stay ineligible unless the request said otherwise).
	Done []string
}

// Empty reports whether the step found nothing to write.
func (a Actions) Empty() bool {
	return len(a.Migrate) == 0 && len(a.Evals) == 0 && len(a.Done) == 0
}

// Transitions returns the Migrate allocs as the ID -> transition map of an
// AllocUpdateDesiredTransitionRequest.
func (a Actions) Transitions() map[string]*structs.DesiredTransition {
	if len(a.Migrate) == 0 {
		return nil
	}
	out := make(map[string]*structs.DesiredTransition, len(a.Migrate))
	for _, alloc := range a.Migrate {
		migrate := true
		out[alloc.ID] = &structs.DesiredTransition{Migrate: &migrate}
	}
	return out
}

// Drainer turns a snapshot into drain actions. It holds only the ID source
// for the evals it creates (injected so IDs are chosen before the raft
// write and tests are deterministic).
type Drainer struct {
	newID func() string
}

// New returns a drainer that names its evals with newID.
func New(newID func() string) *Drainer { return &Drainer{newID: newID} }

// Step decides what the draining nodes need now. Nodes are visited in ID
// order so that, when several draining nodes share a job, the same node
// gets the group's max_parallel budget for the same input.
func (d *Drainer) Step(in Input) Actions {
	s := newStep(in)
	for _, n := range drainingNodes(in.Nodes) {
		s.drainNode(n)
	}
	return Actions{Migrate: s.marked, Evals: d.evals(s), Done: s.done}
}

// evals creates one node-drain eval per job with newly marked allocs (or
// due a forced re-evaluation), in (namespace, job) order. Other jobs whose
// allocs were all marked earlier get none: their eval was written with the
// earlier marks.
func (d *Drainer) evals(s *step) []*structs.Evaluation {
	keys := make([]jobKey, 0, len(s.markedJobs))
	for k := range s.markedJobs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, jobKey.compare)
	evals := make([]*structs.Evaluation, 0, len(keys))
	now := s.in.Now.UnixNano()
	for _, k := range keys {
		job := s.markedJobs[k]
		evals = append(evals, &structs.Evaluation{
			ID:          d.newID(),
			Namespace:   k.namespace,
			Priority:    jobPriority(job),
			Type:        jobType(job),
			TriggeredBy: structs.EvalTriggerNodeDrain,
			JobID:       k.jobID,
			Status:      structs.EvalStatusPending,
			CreateTime:  now,
			ModifyTime:  now,
		})
	}
	return evals
}

// drainingNodes returns the nodes with a drain strategy, sorted by ID.
func drainingNodes(nodes []*structs.Node) []*structs.Node {
	var out []*structs.Node
	for _, n := range nodes {
		if n != nil && n.DrainStrategy != nil {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b *structs.Node) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// jobType is the scheduler type of a job; a job that is gone from the
// state (and from the alloc) is treated as a service job, the default.
func jobType(job *structs.Job) string {
	if job == nil || job.Type == "" {
		return structs.JobTypeService
	}
	return job.Type
}

func jobPriority(job *structs.Job) int {
	if job == nil || job.Priority == 0 {
		return structs.JobDefaultPriority
	}
	return job.Priority
}
