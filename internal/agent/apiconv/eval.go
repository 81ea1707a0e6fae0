package apiconv

import (
	"maps"
	"slices"

	"github.com/drover-project/drover/internal/structs"
	"github.com/hashicorp/nomad/api"
)

// EvalFromStructs converts an evaluation for output. LeaderACL is never
// copied: it is a token that must not leave the server.
func EvalFromStructs(e *structs.Evaluation) *api.Evaluation {
	if e == nil {
		return nil
	}
	return &api.Evaluation{
		ID:                   e.ID,
		Priority:             e.Priority,
		Type:                 e.Type,
		TriggeredBy:          e.TriggeredBy,
		Namespace:            e.Namespace,
		JobID:                e.JobID,
		JobModifyIndex:       e.JobModifyIndex,
		NodeID:               e.NodeID,
		NodeModifyIndex:      e.NodeModifyIndex,
		DeploymentID:         e.DeploymentID,
		Status:               e.Status,
		StatusDescription:    e.StatusDescription,
		Wait:                 e.Wait,
		WaitUntil:            e.WaitUntil,
		NextEval:             e.NextEval,
		PreviousEval:         e.PreviousEval,
		BlockedEval:          e.BlockedEval,
		RelatedEvals:         convertPtrs(e.RelatedEvals, evalStubFromStub),
		FailedTGAllocs:       convertMap(e.FailedTGAllocs, allocMetricFromStructs),
		ClassEligibility:     maps.Clone(e.ClassEligibility),
		EscapedComputedClass: e.EscapedComputedClass,
		QuotaLimitReached:    e.QuotaLimitReached,
		AnnotatePlan:         e.AnnotatePlan,
		QueuedAllocations:    maps.Clone(e.QueuedAllocations),
		SnapshotIndex:        e.SnapshotIndex,
		CreateIndex:          e.CreateIndex,
		ModifyIndex:          e.ModifyIndex,
		CreateTime:           e.CreateTime,
		ModifyTime:           e.ModifyTime,
	}
}

// EvalStubFromStructs converts an evaluation to its list form.
func EvalStubFromStructs(e *structs.Evaluation) *api.EvaluationStub {
	if e == nil {
		return nil
	}
	return evalStubFromStub(e.Stub())
}

// evalStubFromStub converts the stored stub form, which is what an eval's
// RelatedEvals hold.
func evalStubFromStub(s *structs.EvaluationStub) *api.EvaluationStub {
	return &api.EvaluationStub{
		ID:                s.ID,
		Priority:          s.Priority,
		Type:              s.Type,
		TriggeredBy:       s.TriggeredBy,
		Namespace:         s.Namespace,
		JobID:             s.JobID,
		NodeID:            s.NodeID,
		DeploymentID:      s.DeploymentID,
		Status:            s.Status,
		StatusDescription: s.StatusDescription,
		WaitUntil:         s.WaitUntil,
		NextEval:          s.NextEval,
		PreviousEval:      s.PreviousEval,
		BlockedEval:       s.BlockedEval,
		CreateIndex:       s.CreateIndex,
		ModifyIndex:       s.ModifyIndex,
		CreateTime:        s.CreateTime,
		ModifyTime:        s.ModifyTime,
	}
}

// allocMetricFromStructs is shared by evals (FailedTGAllocs) and allocs
// (Metrics).
func allocMetricFromStructs(m *structs.AllocMetric) *api.AllocationMetric {
	if m == nil {
		return nil
	}
	return &api.AllocationMetric{
		NodesEvaluated:     m.NodesEvaluated,
		NodesFiltered:      m.NodesFiltered,
		NodesInPool:        m.NodesInPool,
		NodesAvailable:     maps.Clone(m.NodesAvailable),
		ClassFiltered:      maps.Clone(m.ClassFiltered),
		ConstraintFiltered: maps.Clone(m.ConstraintFiltered),
		NodesExhausted:     m.NodesExhausted,
		ClassExhausted:     maps.Clone(m.ClassExhausted),
		DimensionExhausted: maps.Clone(m.DimensionExhausted),
		QuotaExhausted:     slices.Clone(m.QuotaExhausted),
		ScoreMetaData:      convertPtrs(m.ScoreMetaData, scoreMetaFromStructs),
		AllocationTime:     m.AllocationTime,
		CoalescedFailures:  m.CoalescedFailures,
	}
}

func scoreMetaFromStructs(s *structs.NodeScoreMeta) *api.NodeScoreMeta {
	return &api.NodeScoreMeta{NodeID: s.NodeID, Scores: maps.Clone(s.Scores), NormScore: s.NormScore}
}

// AllocMetricsFromStructs converts per-group placement metrics (an eval's
// FailedTGAllocs, a plan's failures).
func AllocMetricsFromStructs(in map[string]*structs.AllocMetric) map[string]*api.AllocationMetric {
	if in == nil {
		return nil
	}
	out := make(map[string]*api.AllocationMetric, len(in))
	for k, m := range in {
		out[k] = allocMetricFromStructs(m)
	}
	return out
}
