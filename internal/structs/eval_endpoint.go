package structs

// Requests and responses of the Eval.* endpoints.

// EvalListRequest lists evaluations, optionally of one job or status.
type EvalListRequest struct {
	JobID  string
	Status string
	QueryOptions
}

// EvalListResponse is one page of evaluations.
type EvalListResponse struct {
	Evals []*Evaluation
	QueryMeta
}

// EvalSpecificRequest addresses one evaluation.
type EvalSpecificRequest struct {
	EvalID string
	// IncludeRelated adds every eval linked through PreviousEval, NextEval
	// and BlockedEval.
	IncludeRelated bool
	QueryOptions
}

// SingleEvalResponse is one evaluation (nil when absent) with its lifecycle
// timeline as this server knows it.
type SingleEvalResponse struct {
	Eval     *Evaluation
	Related  []*EvaluationStub
	Timeline []*EvalTimelineEntry
	QueryMeta
}

// EvalAllocationsResponse lists the allocations an evaluation placed.
type EvalAllocationsResponse struct {
	Allocations []*Allocation
	QueryMeta
}

// EvalDeleteArgs deletes terminal evaluations by ID.
type EvalDeleteArgs struct {
	EvalIDs []string
	// Filter selects terminal evals to delete instead of EvalIDs: a
	// go-bexpr expression over the evaluation's fields (Nomad's names).
	Filter string
	WriteRequest
}

// EvalDeleteResponse reports how many evaluations were deleted.
type EvalDeleteResponse struct {
	Count int
	WriteMeta
}

// EvalCountResponse is how many evaluations match a list request.
type EvalCountResponse struct {
	Count int
	QueryMeta
}
