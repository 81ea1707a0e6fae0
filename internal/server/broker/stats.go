package broker

// Stats is a point-in-time count of what the broker holds.
type Stats struct {
	TotalReady      int
	TotalUnacked    int
	TotalWaiting    int // delayed: until WaitUntil, or for a nack delay
	TotalPending    int // waiting behind an in-flight eval of the same job
	TotalCancelable int
	ByScheduler     map[string]*SchedulerStats // by eval type; FailedQueue for failed-queue ready/unacked
}

// SchedulerStats counts one scheduler type's evals.
type SchedulerStats struct {
	Ready, Unacked, Delayed, Pending int
}

// Stats counts by walking the queues. That costs O(evals) per call, which
// is fine for a metrics interval and cannot drift like kept counters can.
func (b *Broker) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := Stats{ByScheduler: map[string]*SchedulerStats{}, TotalCancelable: len(b.cancelable)}
	by := func(t string) *SchedulerStats {
		if s.ByScheduler[t] == nil {
			s.ByScheduler[t] = &SchedulerStats{}
		}
		return s.ByScheduler[t]
	}
	for q, h := range b.ready {
		if h.Len() == 0 {
			continue
		}
		by(q).Ready += h.Len()
		s.TotalReady += h.Len()
	}
	for _, u := range b.unack {
		by(u.queue).Unacked++
		s.TotalUnacked++
	}
	for _, d := range b.delayed {
		by(d.eval.Type).Delayed++
		s.TotalWaiting++
	}
	for _, h := range b.pending {
		for _, e := range h.evals {
			by(e.Type).Pending++
			s.TotalPending++
		}
	}
	return s
}
