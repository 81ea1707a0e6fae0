package structs

// Requests and responses of the Search.* endpoints (`nomad status <prefix>`
// and the UI's search box use them).

// Search contexts, as Nomad names them.
const (
	SearchContextAll         = "all"
	SearchContextJobs        = "jobs"
	SearchContextEvals       = "evals"
	SearchContextAllocs      = "allocs"
	SearchContextNodes       = "nodes"
	SearchContextNodePools   = "node_pools"
	SearchContextDeployments = "deployment"
	SearchContextNamespaces  = "namespaces"
	SearchContextPlugins     = "plugins"
	SearchContextVolumes     = "volumes"
	// Fuzzy-only contexts: names inside jobs.
	SearchContextGroups   = "groups"
	SearchContextTasks    = "tasks"
	SearchContextServices = "services"
	SearchContextImages   = "images"
	SearchContextCommands = "commands"
	SearchContextClasses  = "classes"
)

// SearchRequest asks for the IDs starting with Prefix in one context (or
// every context with "all").
type SearchRequest struct {
	Prefix  string
	Context string
	QueryOptions
}

// SearchResponse lists matching IDs per context; Truncations[ctx] is true
// when more matched than were returned.
type SearchResponse struct {
	Matches     map[string][]string
	Truncations map[string]bool
	QueryMeta
}

// FuzzySearchRequest asks for the objects whose names contain Text.
type FuzzySearchRequest struct {
	Text    string
	Context string
	QueryOptions
}

// FuzzyMatch is one matching object: its ID or name, and the IDs of the
// objects it lives in (namespace, job, group).
type FuzzyMatch struct {
	ID    string
	Scope []string
}

// FuzzySearchResponse lists the matches per context.
type FuzzySearchResponse struct {
	Matches     map[string][]FuzzyMatch
	Truncations map[string]bool
	QueryMeta
}
