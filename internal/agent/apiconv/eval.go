package apiconv

import (
	"maps"
	"slices"

	"github.com/drover-project/drover/internal/structs"
	"github.com/hashicorp/nomad/api"
)

// EvalFromStructs converts an evaluation for output. LeaderACL is never
// copied (the api has no such field): it is a token that must not leave the
// server.
func EvalFromStructs(e *structs.Evaluation) *api.Evaluation {
	if e == nil {
		return nil
	}
	out := byName[api.Evaluation](e)
	out.RelatedEvals = convertPtrs(e.RelatedEvals, evalStubFromStub)
	out.FailedTGAllocs = convertMap(e.FailedTGAllocs, allocMetricFromStructs)
	out.ClassEligibility = maps.Clone(e.ClassEligibility)
	out.QueuedAllocations = maps.Clone(e.QueuedAllocations)
	return out
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
	return byName[api.EvaluationStub](s)
}

// allocMetricFromStructs is shared by evals (FailedTGAllocs) and allocs
// (Metrics).
func allocMetricFromStructs(m *structs.AllocMetric) *api.AllocationMetric {
	if m == nil {
		return nil
	}
	out := byName[api.AllocationMetric](m)
	out.NodesAvailable = maps.Clone(m.NodesAvailable)
	out.ClassFiltered = maps.Clone(m.ClassFiltered)
	out.ConstraintFiltered = maps.Clone(m.ConstraintFiltered)
	out.ClassExhausted = maps.Clone(m.ClassExhausted)
	out.DimensionExhausted = maps.Clone(m.DimensionExhausted)
	out.QuotaExhausted = slices.Clone(m.QuotaExhausted)
	out.ScoreMetaData = convertPtrs(m.ScoreMetaData, scoreMetaFromStructs)
	return out
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
