package blockedevals

import "github.com/drover-project/drover/internal/structs"

// matchClass returns the job-wide evals that capacity of class might help:
// every escaped eval, and every captured eval that found the class eligible
// or has never seen it (an unknown class might fit). Captured evals that
// found the class ineligible stay blocked.
func (s *evalSet) matchClass(class string) []*entry {
	out := make([]*entry, 0, len(s.escaped)+len(s.eligibleBy[class]))
	for _, en := range s.escaped {
		out = append(out, en)
	}
	if s.undecided(class) == 0 {
		// Every captured eval has an opinion on class: the eligible index
		// is the exact answer, no scan needed.
		for _, en := range s.eligibleBy[class] {
			out = append(out, en)
		}
		return out
	}
	for _, en := range s.captured {
		if mayFit(en.eval, class) {
			out = append(out, en)
		}
	}
	return out
}

// undecided counts the captured evals that have no opinion on class (it
// is in neither their eligible nor their ineligible classes).
func (s *evalSet) undecided(class string) int {
	return len(s.captured) - len(s.eligibleBy[class]) - s.ineligibleCount[class]
}

// mayFit reports whether a captured eval could use capacity of class.
func mayFit(ev *structs.Evaluation, class string) bool {
	eligible, seen := ev.ClassEligibility[class]
	return !seen || eligible
}

// matchNode returns the per-node evals blocked on nodeID.
func (s *evalSet) matchNode(nodeID string) []*entry {
	out := make([]*entry, 0, len(s.byNode[nodeID]))
	for _, en := range s.byNode[nodeID] {
		out = append(out, en)
	}
	return out
}

// matchTrigger returns every tracked eval created with trigger.
func (s *evalSet) matchTrigger(trigger string) []*entry {
	var out []*entry
	for _, en := range s.byID {
		if en.eval.TriggeredBy == trigger {
			out = append(out, en)
		}
	}
	return out
}

// matchJob returns every tracked eval of the job, job-wide and per node.
func (s *evalSet) matchJob(key jobKey) []*entry {
	out := make([]*entry, 0, len(s.byJob[key]))
	for _, en := range s.byJob[key] {
		out = append(out, en)
	}
	return out
}
