package structs

// Requests and responses of the Alloc.* endpoints.

// AllocListRequest lists allocations in the request's namespace ("*" for
// all).
type AllocListRequest struct {
	QueryOptions
}

// AllocListResponse is one page of allocations.
type AllocListResponse struct {
	Allocations []*Allocation
	QueryMeta
}

// AllocSpecificRequest addresses one allocation.
type AllocSpecificRequest struct {
	AllocID string
	QueryOptions
}

// SingleAllocResponse is one allocation, nil when absent.
type SingleAllocResponse struct {
	Alloc *Allocation
	QueryMeta
}

// AllocStopArgs stops an allocation and has it replaced.
type AllocStopArgs struct {
	AllocID string
	// NoShutdownDelay skips the tasks' shutdown_delay (`?no_shutdown_delay`).
	NoShutdownDelay bool
	WriteRequest
}

// AllocStopResponse names the eval that moves the allocation.
type AllocStopResponse struct {
	EvalID string
	WriteMeta
}
