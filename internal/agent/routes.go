package agent

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/drover-project/drover/internal/server"
)

// routes registers every /v1 endpoint this agent serves: the cluster API
// when it runs a server, the client API (/v1/client/...) always (it
// answers for the local client, or forwards). Unknown paths get a 404
// naming them; cluster paths on a client-only agent a 501 saying why.
func (h *HTTPServer) routes() {
	if h.srv != nil {
		h.serverRoutes()
	}
	h.clientRoutes()
	h.agentRoutes()
	h.agentServerRoutes()
	h.agentKeyringRoutes()
	h.agentDebugRoutes()
	h.metricsRoutes()
	h.uiRoutes()
	h.handle("/", func(w http.ResponseWriter, r *http.Request) (any, error) {
		if h.srv == nil && strings.HasPrefix(r.URL.Path, "/v1/") {
			return nil, server.NewCodedError(http.StatusNotImplemented,
				"this agent runs no server: send %s to a server agent's HTTP address", r.URL.Path)
		}
		return nil, server.NotFound("no such endpoint: %s %s", r.Method, r.URL.Path)
	})
}

// putOrPost marks a write route: Nomad takes PUT or POST for every write.
const putOrPost = "PUT|POST"

// serverRoute is one row of the cluster API's table.
type serverRoute struct {
	method, path string
	fn           handlerFunc
}

// serverRoutes registers the cluster API from one table, grouped by the
// file that holds the handlers; each path's ACL rule is in acl_rules.go.
func (h *HTTPServer) serverRoutes() {
	for _, r := range h.serverRouteTable() {
		if r.method == putOrPost {
			h.handleWrite(r.path, r.fn)
		} else {
			h.handle(r.method+" "+r.path, r.fn)
		}
	}
	h.snapshotRoutes()
}

func (h *HTTPServer) serverRouteTable() []serverRoute {
	return []serverRoute{
		// job_http.go
		{"GET", "/v1/jobs", h.jobList},
		{putOrPost, "/v1/jobs", h.jobRegister},
		{putOrPost, "/v1/jobs/parse", h.jobParse},
		{"GET", "/v1/job/{id}", h.jobGet},
		{putOrPost, "/v1/job/{id}", h.jobRegister},
		{"DELETE", "/v1/job/{id}", h.jobDeregister},
		{"GET", "/v1/job/{id}/versions", h.jobVersions},
		{"GET", "/v1/job/{id}/evaluations", h.jobEvaluations},
		{"GET", "/v1/job/{id}/allocations", h.jobAllocations},
		// job_actions_http.go
		{putOrPost, "/v1/job/{id}/scale", h.jobScale},
		{putOrPost, "/v1/job/{id}/plan", h.jobPlan},
		{putOrPost, "/v1/job/{id}/evaluate", h.jobEvaluate},
		{putOrPost, "/v1/job/{id}/revert", h.jobRevert},
		{putOrPost, "/v1/validate/job", h.jobValidate},
		{putOrPost, "/v1/allocation/{id}/stop", h.allocStop},
		{"GET", "/v1/job/{id}/summary", h.jobSummary},
		{putOrPost, "/v1/job/{id}/periodic/force", h.jobPeriodicForce},
		{putOrPost, "/v1/job/{id}/dispatch", h.jobDispatch},
		// job_task_action_http.go
		{"GET", "/v1/job/{id}/actions", h.jobActionList},
		{"GET", "/v1/job/{id}/action", h.jobActionRun},
		// deployment_http.go
		{"GET", "/v1/deployments", h.deploymentList},
		{"GET", "/v1/deployment/{id}", h.deploymentGet},
		{"GET", "/v1/deployment/allocations/{id}", h.deploymentAllocations},
		{"GET", "/v1/job/{id}/deployments", h.jobDeployments},
		{"GET", "/v1/job/{id}/deployment", h.jobLatestDeployment},
		{putOrPost, "/v1/deployment/promote/{id}", h.deploymentPromote},
		{putOrPost, "/v1/deployment/fail/{id}", h.deploymentFail},
		{putOrPost, "/v1/deployment/pause/{id}", h.deploymentPause},
		{putOrPost, "/v1/deployment/unblock/{id}", h.deploymentUnblock},
		// eval_http.go
		{"GET", "/v1/evaluations", h.evalList},
		{"GET", "/v1/evaluations/count", h.evalCount},
		{"GET", "/v1/evaluation/{id}", h.evalGet},
		{"GET", "/v1/evaluation/{id}/allocations", h.evalAllocations},
		{"DELETE", "/v1/evaluations", h.evalDelete},
		// alloc_http.go
		{"GET", "/v1/allocations", h.allocList},
		{"GET", "/v1/allocation/{id}", h.allocGet},
		// node_http.go
		{"GET", "/v1/nodes", h.nodeList},
		{"GET", "/v1/node/{id}", h.nodeGet},
		// GET /v1/node/{id}/allocations and GET /v1/node/pool/{name} overlap
		// (/v1/node/pool/allocations matches both), which ServeMux refuses to
		// register; one pattern serves both (see nodeSubresource).
		{"GET", "/v1/node/{id}/{sub}", h.nodeSubresource},
		{putOrPost, "/v1/node/{id}/drain", h.nodeDrain},
		{putOrPost, "/v1/node/{id}/eligibility", h.nodeEligibility},
		{putOrPost, "/v1/node/{id}/evaluate", h.nodeEvaluate},
		// status_http.go
		{"GET", "/v1/status/leader", h.statusLeader},
		{"GET", "/v1/status/peers", h.statusPeers},
		// event_http.go
		{"GET", "/v1/event/stream", h.eventStream},
		// system_http.go
		{"PUT", "/v1/system/gc", h.systemGC},
		// operator_http.go
		{"GET", "/v1/operator/scheduler/configuration", h.schedulerConfigGet},
		{putOrPost, "/v1/operator/scheduler/configuration", h.schedulerConfigSet},
		{"GET", "/v1/operator/raft/configuration", h.raftConfiguration},
		// search_http.go
		{putOrPost, "/v1/search", h.prefixSearch},
		{putOrPost, "/v1/search/fuzzy", h.fuzzySearch},
		// region_http.go
		{"GET", "/v1/regions", h.regionList},
		// job_history_http.go
		{"GET", "/v1/job/{id}/scale", h.jobScaleStatus},
		{"GET", "/v1/job/{id}/submission", h.jobSubmission},
		{putOrPost, "/v1/job/{id}/stable", h.jobStable},
		{putOrPost, "/v1/job/{id}/versions/{name}/tag", h.jobTag},
		{"DELETE", "/v1/job/{id}/versions/{name}/tag", h.jobUntag},
		// node_pool_http.go
		{"GET", "/v1/node/pools", h.nodePoolList},
		{putOrPost, "/v1/node/pools", h.nodePoolUpsert},
		{"DELETE", "/v1/node/pool/{name}", h.nodePoolDelete},
		{"GET", "/v1/node/pool/{name}/jobs", h.nodePoolJobs},
		{"GET", "/v1/node/pool/{name}/nodes", h.nodePoolNodes},
		// namespace_http.go
		{"GET", "/v1/namespaces", h.namespaceList},
		{"GET", "/v1/namespace/{name}", h.namespaceGet},
		{putOrPost, "/v1/namespace", h.namespaceUpsert},
		{putOrPost, "/v1/namespace/{name}", h.namespaceUpsert},
		{"DELETE", "/v1/namespace/{name}", h.namespaceDelete},
		// service_http.go
		{"GET", "/v1/services", h.serviceList},
		{"GET", "/v1/service/{name}", h.serviceGet},
		{"DELETE", "/v1/service/{name}/{id}", h.serviceDelete},
		{"GET", "/v1/job/{id}/services", h.jobServices},
		{"GET", "/v1/allocation/{id}/services", h.allocServices},
		// variables_http.go
		{"GET", "/v1/vars", h.variableList},
		{"GET", "/v1/var/{path...}", h.variableRead},
		{putOrPost, "/v1/var/{path...}", h.variableWrite},
		{"DELETE", "/v1/var/{path...}", h.variableDelete},
		{"GET", "/v1/operator/keyring/keys", h.keyringList},
		{putOrPost, "/v1/operator/keyring/rotate", h.keyringRotate},
		{"DELETE", "/v1/operator/keyring/key/{id}", h.keyringDelete},
		{"GET", "/.well-known/jwks.json", h.jwks},
		// cluster_http.go
		{"GET", "/v1/agent/members", h.agentMembers},
		{putOrPost, "/v1/agent/join", h.agentJoin},
		{putOrPost, "/v1/agent/force-leave", h.agentForceLeave},
		{"DELETE", "/v1/operator/raft/peer", h.raftRemovePeer},
		{putOrPost, "/v1/operator/raft/transfer-leadership", h.raftTransferLeadership},
		{"GET", "/v1/operator/autopilot/configuration", h.autopilotGet},
		{putOrPost, "/v1/operator/autopilot/configuration", h.autopilotSet},
		{"GET", "/v1/operator/autopilot/health", h.autopilotHealth},
		// acl_http.go
		{putOrPost, "/v1/acl/bootstrap", h.aclBootstrap},
		{"GET", "/v1/acl/policies", h.aclPolicyList},
		{"GET", "/v1/acl/policy/{name}", h.aclPolicyGet},
		{putOrPost, "/v1/acl/policy/{name}", h.aclPolicyPut},
		{"DELETE", "/v1/acl/policy/{name}", h.aclPolicyDelete},
		{"GET", "/v1/acl/tokens", h.aclTokenList},
		{putOrPost, "/v1/acl/token", h.aclTokenUpsert},
		{"GET", "/v1/acl/token/self", h.aclTokenSelf},
		{"GET", "/v1/acl/token/{accessor}", h.aclTokenGet},
		{putOrPost, "/v1/acl/token/{accessor}", h.aclTokenUpsert},
		{"DELETE", "/v1/acl/token/{accessor}", h.aclTokenDelete},
		// acl_role_http.go
		{"GET", "/v1/acl/roles", h.aclRoleList},
		{"PUT", "/v1/acl/role", h.aclRoleUpsert},
		{"POST", "/v1/acl/role", h.aclRoleUpsert},
		{"GET", "/v1/acl/role/{id}", h.aclRoleGet},
		{"PUT", "/v1/acl/role/{id}", h.aclRoleUpsert},
		{"POST", "/v1/acl/role/{id}", h.aclRoleUpsert},
		{"DELETE", "/v1/acl/role/{id}", h.aclRoleDelete},
		{"GET", "/v1/acl/role/name/{name}", h.aclRoleGetByName},
	}
}

func boolString(b bool) string   { return strconv.FormatBool(b) }
func uintString(n uint64) string { return strconv.FormatUint(n, 10) }
