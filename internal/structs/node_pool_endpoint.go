package structs

// NodePoolListRequest lists pools (with Prefix, those whose name starts
// with it).
type NodePoolListRequest struct {
	QueryOptions
}

// NodePoolListResponse lists pools by name, built-ins included.
type NodePoolListResponse struct {
	NodePools []*NodePool
	QueryMeta
}

// NodePoolSpecificRequest addresses one pool.
type NodePoolSpecificRequest struct {
	Name string
	QueryOptions
}

// SingleNodePoolResponse is one pool, nil when absent.
type SingleNodePoolResponse struct {
	NodePool *NodePool
	QueryMeta
}

// NodePoolUpsertArgs creates or updates pools.
type NodePoolUpsertArgs struct {
	NodePools []*NodePool
	WriteRequest
}

// NodePoolDeleteArgs deletes pools.
type NodePoolDeleteArgs struct {
	Names []string
	WriteRequest
}

// NodePoolWriteResponse reports a pool write.
type NodePoolWriteResponse struct {
	WriteMeta
}

// NodePoolJobsResponse lists the jobs of a pool (Namespace "*" for all).
type NodePoolJobsResponse struct {
	Jobs      []*Job
	Summaries []*JobSummary
	QueryMeta
}

// NodePoolNodesResponse lists the nodes of a pool.
type NodePoolNodesResponse struct {
	Nodes []*Node
	QueryMeta
}
