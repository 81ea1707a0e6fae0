package drainer

import (
	"cmp"
	"slices"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

type jobKey struct{ namespace, jobID string }

func (a jobKey) compare(b jobKey) int {
	return cmp.Or(cmp.Compare(a.namespace, b.namespace), cmp.Compare(a.jobID, b.jobID))
}

type groupKey struct {
	jobKey
	group string
}

// step is the working state of one Step: the per-group migration budgets
// left (shared by all draining nodes, since max_parallel is per group, not
// per node) and what has been decided so far.
type step struct {
	in         Input
	budgets    map[groupKey]int
	marked     []*structs.Allocation
	markedJobs map[jobKey]*structs.Job
	done       []string
}

func newStep(in Input) *step {
	return &step{in: in, budgets: map[groupKey]int{}, markedJobs: map[jobKey]*structs.Job{}}
}

// nodeAllocs are a draining node's covered live allocs by how they drain.
type nodeAllocs struct {
	service, batch, system []*structs.Allocation
}

func (na nodeAllocs) empty() bool {
	return len(na.service) == 0 && len(na.batch) == 0 && len(na.system) == 0
}

// drainNode decides for one draining node: Done if nothing it covers is
// left, everything at the deadline, otherwise service allocs within their
// group budgets and system allocs once nothing else is left. Batch allocs
// wait for the deadline (Nomad lets them run to completion).
func (s *step) drainNode(n *structs.Node) {
	na := s.classify(n)
	switch {
	case na.empty():
		s.done = append(s.done, n.ID)
	case forced(n.DrainStrategy, s.in.Now):
		s.markAll(na.service, na.batch, na.system)
		s.reevaluateMarkedEarlier(n.DrainStrategy, na.service, na.batch, na.system)
	default:
		s.markService(na.service)
		if len(na.service) == 0 && len(na.batch) == 0 {
			s.markAll(na.system)
		}
	}
}

// classify returns the node's live allocs the drain covers, sorted by ID.
// System allocs are not covered with IgnoreSystemJobs: they keep running
// and do not hold the drain open.
func (s *step) classify(n *structs.Node) nodeAllocs {
	var na nodeAllocs
	for _, a := range sortedByID(s.allocsOnNode(n.ID)) {
		if a.TerminalStatus() {
			continue
		}
		switch jobType(s.jobOf(a)) {
		case structs.JobTypeSystem, structs.JobTypeSysBatch:
			if !n.DrainStrategy.IgnoreSystemJobs {
				na.system = append(na.system, a)
			}
		case structs.JobTypeBatch:
			na.batch = append(na.batch, a)
		default:
			na.service = append(na.service, a)
		}
	}
	return na
}

// markService marks each unmarked alloc whose group still has budget.
// Allocs are visited in ID order so the same ones are picked every time.
func (s *step) markService(allocs []*structs.Allocation) {
	for _, a := range allocs {
		if migrating(a) {
			continue // already in flight; counted in the budget
		}
		k := keyOf(a)
		if s.budget(k, a) <= 0 {
			continue
		}
		s.budgets[k]--
		s.mark(a)
	}
}

// markAll marks every unmarked alloc, without budget: used at the deadline
// and for system allocs, which have no replacement elsewhere to wait for.
func (s *step) markAll(groups ...[]*structs.Allocation) {
	for _, allocs := range groups {
		for _, a := range allocs {
			if !migrating(a) {
				s.mark(a)
			}
		}
	}
}

func (s *step) mark(a *structs.Allocation) {
	s.marked = append(s.marked, a)
	s.markedJobs[keyOf(a).jobKey] = s.jobOf(a)
}

// budget returns how many more allocs of the group may start migrating,
// computed once per step from the state and then decremented as allocs are
// marked.
func (s *step) budget(k groupKey, a *structs.Allocation) int {
	if b, ok := s.budgets[k]; ok {
		return b
	}
	b := maxParallel(s.jobOf(a), a) - inFlight(s.allocsOfJob(k.jobKey), k.group)
	s.budgets[k] = b
	return b
}

// jobOf returns the alloc's job as the state has it now, falling back to
// the copy on the alloc when the job is gone (e.g. purged).
func (s *step) jobOf(a *structs.Allocation) *structs.Job {
	if s.in.Job != nil {
		if j := s.in.Job(a.Namespace, a.JobID); j != nil {
			return j
		}
	}
	return a.Job
}

func (s *step) allocsOnNode(nodeID string) []*structs.Allocation {
	if s.in.AllocsByNode == nil {
		return nil
	}
	return s.in.AllocsByNode(nodeID)
}

func (s *step) allocsOfJob(k jobKey) []*structs.Allocation {
	if s.in.AllocsByJob == nil {
		return nil
	}
	return s.in.AllocsByJob(k.namespace, k.jobID)
}

func keyOf(a *structs.Allocation) groupKey {
	return groupKey{jobKey{a.Namespace, a.JobID}, a.TaskGroup}
}

// migrating reports whether the alloc has already been asked to migrate.
func migrating(a *structs.Allocation) bool {
	return a.DesiredTransition.Migrate != nil && *a.DesiredTransition.Migrate
}

// sortedByID returns a sorted copy, leaving the caller's slice alone.
func sortedByID(allocs []*structs.Allocation) []*structs.Allocation {
	out := slices.Clone(allocs)
	slices.SortFunc(out, func(a, b *structs.Allocation) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// reevaluateMarkedEarlier gives a new node-drain eval to each job with an
// alloc that was marked before the drain became forced and is still live:
// its migration found no room, so the scheduler kept it running, and only
// a new evaluation (now past the deadline) stops it and lets the drain
// finish. Once such an eval exists the job is not evaluated again.
func (s *step) reevaluateMarkedEarlier(ds *structs.DrainStrategy, groups ...[]*structs.Allocation) {
	since := deadline(ds)
	if since.IsZero() {
		since = ds.StartedAt // a force drain: forced since it started
	}
	for _, allocs := range groups {
		for _, a := range allocs {
			k := keyOf(a).jobKey
			if _, ok := s.markedJobs[k]; ok || !migrating(a) || s.hasDrainEvalSince(k, since) {
				continue
			}
			s.markedJobs[k] = s.jobOf(a)
		}
	}
}

// hasDrainEvalSince reports whether the job has a node-drain eval created
// at or after since.
func (s *step) hasDrainEvalSince(k jobKey, since time.Time) bool {
	if s.in.EvalsByJob == nil {
		return false
	}
	for _, e := range s.in.EvalsByJob(k.namespace, k.jobID) {
		if e.TriggeredBy == structs.EvalTriggerNodeDrain && e.CreateTime >= since.UnixNano() {
			return true
		}
	}
	return false
}
