package blockedevals

import "github.com/drover-project/drover/internal/structs"

// entry is one tracked blocked eval and the worker token it was reblocked
// under ("" when the leader tracked it from state).
type entry struct {
	eval  *structs.Evaluation
	token string
}

// jobKey identifies a job across namespaces.
type jobKey struct{ namespace, jobID string }

func keyOf(ev *structs.Evaluation) jobKey { return jobKey{ev.Namespace, ev.JobID} }

// evalSet holds the tracked evals plus indexes that keep each release path
// from scanning everything. It has no lock: the Tracker's mutex guards it.
type evalSet struct {
	byID map[string]*entry
	// byJob holds at most one entry per job and node: key "" for the
	// job-wide eval, the node ID for per-node (system) evals.
	byJob map[jobKey]map[string]*entry
	// Every job-wide eval is either captured (its constraints are fully
	// described by ClassEligibility) or escaped (they are not, so any
	// capacity change may help it).
	captured map[string]*entry
	escaped  map[string]*entry
	byNode   map[string]map[string]*entry
	// eligibleBy and ineligibleCount let a class-wide unblock skip the scan
	// of captured evals when every one of them has already seen the class.
	eligibleBy      map[string]map[string]*entry
	ineligibleCount map[string]int
}

func newEvalSet() *evalSet {
	return &evalSet{
		byID:            map[string]*entry{},
		byJob:           map[jobKey]map[string]*entry{},
		captured:        map[string]*entry{},
		escaped:         map[string]*entry{},
		byNode:          map[string]map[string]*entry{},
		eligibleBy:      map[string]map[string]*entry{},
		ineligibleCount: map[string]int{},
	}
}

// forJob returns the entry tracked for the job on nodeID ("" = job-wide).
func (s *evalSet) forJob(key jobKey, nodeID string) *entry { return s.byJob[key][nodeID] }

func (s *evalSet) add(en *entry) {
	ev := en.eval
	s.byID[ev.ID] = en
	putNested(s.byJob, keyOf(ev), ev.NodeID, en)
	switch {
	case ev.NodeID != "":
		putNested(s.byNode, ev.NodeID, ev.ID, en)
	case ev.EscapedComputedClass:
		s.escaped[ev.ID] = en
	default:
		s.captured[ev.ID] = en
		s.indexClasses(ev, 1)
	}
}

// remove forgets the eval with id and returns its entry (nil if untracked).
func (s *evalSet) remove(id string) *entry {
	en := s.byID[id]
	if en == nil {
		return nil
	}
	ev := en.eval
	delete(s.byID, id)
	deleteNested(s.byJob, keyOf(ev), ev.NodeID)
	deleteNested(s.byNode, ev.NodeID, id)
	delete(s.escaped, id)
	if _, ok := s.captured[id]; ok {
		delete(s.captured, id)
		s.indexClasses(ev, -1)
	}
	return en
}

// indexClasses adds (delta 1) or removes (delta -1) a captured eval from
// the per-class indexes.
func (s *evalSet) indexClasses(ev *structs.Evaluation, delta int) {
	for class, eligible := range ev.ClassEligibility {
		switch {
		case !eligible:
			s.ineligibleCount[class] += delta
			if s.ineligibleCount[class] == 0 {
				delete(s.ineligibleCount, class)
			}
		case delta > 0:
			putNested(s.eligibleBy, class, ev.ID, s.byID[ev.ID])
		default:
			deleteNested(s.eligibleBy, class, ev.ID)
		}
	}
}

// putNested stores en at m[k][id], creating the inner map on demand.
func putNested[K comparable](m map[K]map[string]*entry, k K, id string, en *entry) {
	inner := m[k]
	if inner == nil {
		inner = map[string]*entry{}
		m[k] = inner
	}
	inner[id] = en
}

// deleteNested removes m[k][id] and drops the inner map once empty, so
// indexes do not grow with every class, node or job ever seen.
func deleteNested[K comparable](m map[K]map[string]*entry, k K, id string) {
	inner := m[k]
	if inner == nil {
		return
	}
	delete(inner, id)
	if len(inner) == 0 {
		delete(m, k)
	}
}
