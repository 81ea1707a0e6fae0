package blockedevals

// Stats is a point-in-time summary of the tracker, for metrics and the
// operator API.
type Stats struct {
	TotalBlocked  int // every tracked eval
	TotalEscaped  int // job-wide evals released by any capacity change
	TotalCaptured int // job-wide evals released by class
	TotalPerNode  int // per-node (system) evals released by their node
	// TotalDuplicates is how many superseded evals await cancellation.
	TotalDuplicates int
	// EligibleByClass counts, per class, the captured evals that found it
	// eligible: what a node of that class joining would release at least.
	EligibleByClass map[string]int
}

// Stats returns the current counts.
func (t *Tracker) Stats() Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.set
	st := Stats{
		TotalBlocked:    len(s.byID),
		TotalEscaped:    len(s.escaped),
		TotalCaptured:   len(s.captured),
		TotalPerNode:    len(s.byID) - len(s.escaped) - len(s.captured),
		TotalDuplicates: len(t.dups.evals),
		EligibleByClass: make(map[string]int, len(s.eligibleBy)),
	}
	for class, evals := range s.eligibleBy {
		st.EligibleByClass[class] = len(evals)
	}
	return st
}
