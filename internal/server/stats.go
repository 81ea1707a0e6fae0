package server

import (
	"github.com/drover-project/drover/internal/server/blockedevals"
	"github.com/drover-project/drover/internal/server/broker"
)

// PipelineStats is a point-in-time view of the evaluation pipeline.
type PipelineStats struct {
	Broker     broker.Stats
	Blocked    blockedevals.Stats
	PlanQueue  int
	Workers    int
	Paused     int
	IsLeader   bool
	AppliedIdx uint64
}

// Stats returns the pipeline's counters (used by /v1/metrics and tests).
func (s *Server) Stats() PipelineStats {
	paused := 0
	for _, w := range s.workers {
		if w.isPaused() {
			paused++
		}
	}
	return PipelineStats{
		Broker: s.broker.Stats(), Blocked: s.blocked.Stats(), PlanQueue: s.planQueue.Stats(),
		Workers: len(s.workers), Paused: paused, IsLeader: s.IsLeader(), AppliedIdx: s.State().LatestIndex(),
	}
}
