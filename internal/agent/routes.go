package agent

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/server/cluster"
)

// routes registers every /v1 endpoint this agent serves: the cluster API
// when it runs a server, the client API (/v1/client/...) always (it
// answers for the local client, or forwards). Unknown paths get a 404
// naming them; a client-only agent forwards cluster paths to a server
// over its client's RPC connection (server_forward_http.go).
func (h *HTTPServer) routes() {
	if h.srv != nil {
		h.serverRoutes()
	}
	h.clientRoutes()
	h.agentRoutes()
	h.agentServerRoutes()
	h.agentDebugRoutes()
	h.metricsRoutes()
	h.uiRoutes()
	h.handle("/", func(w http.ResponseWriter, r *http.Request) (any, error) {
		if h.srv == nil && strings.HasPrefix(r.URL.Path, "/v1/") {
			if h.toServer != nil {
				h.toServer.ServeHTTP(w, r)
				return nil, nil
			}
			return nil, server.NewCodedError(http.StatusNotImplemented,
				"this agent runs no server: send %s to a server agent's HTTP address", r.URL.Path)
		}
		return nil, server.NotFound("no such endpoint: %s %s", r.Method, r.URL.Path)
	})
}

// putOrPost marks a write route: Nomad takes PUT or POST for every write.
const putOrPost = "PUT|POST"

// serverRoute is one row of the cluster API's table. by is the
// registered server method (server/methods.go) whose access rule decides
// the request: the handler calls it, and that call checks the caller's
// token, so the route has no rule of its own and ACL is decided once per
// request. A route whose handler is not one method call (nil by) keeps a
// rule in acl_rules.go.
type serverRoute struct {
	method, path string
	fn           handlerFunc
	by           server.MethodRef
}

// serverRoutes registers the cluster API from one table, grouped by the
// file that holds the handlers; each route's access is its method's rule
// (by), else its path's rule in acl_rules.go.
func (h *HTTPServer) serverRoutes() {
	for _, r := range h.serverRouteTable() {
		if r.by != nil {
			for _, m := range strings.Split(r.method, "|") {
				h.methodChecked[m+" "+r.path] = r.by.Name()
			}
		}
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
		{"GET", "/v1/jobs", h.jobList, server.JobList},
		{putOrPost, "/v1/jobs", h.jobRegister, server.JobRegister},
		{putOrPost, "/v1/jobs/parse", h.jobParse, nil},
		{"GET", "/v1/job/{id}", h.jobGet, server.JobGetJob},
		{putOrPost, "/v1/job/{id}", h.jobRegister, server.JobRegister},
		{"DELETE", "/v1/job/{id}", h.jobDeregister, server.JobDeregister},
		{"GET", "/v1/job/{id}/versions", h.jobVersions, server.JobGetJobVersions},
		{"GET", "/v1/job/{id}/evaluations", h.jobEvaluations, server.JobEvaluations},
		{"GET", "/v1/job/{id}/allocations", h.jobAllocations, server.JobAllocations},
		// job_actions_http.go
		{putOrPost, "/v1/job/{id}/scale", h.jobScale, server.JobScale},
		{putOrPost, "/v1/job/{id}/plan", h.jobPlan, server.JobPlan},
		{putOrPost, "/v1/job/{id}/evaluate", h.jobEvaluate, server.JobEvaluate},
		{putOrPost, "/v1/job/{id}/revert", h.jobRevert, server.JobRevert},
		{putOrPost, "/v1/validate/job", h.jobValidate, server.JobValidate},
		{putOrPost, "/v1/allocation/{id}/stop", h.allocStop, server.AllocStop},
		{"GET", "/v1/job/{id}/summary", h.jobSummary, server.JobSummary},
		{putOrPost, "/v1/job/{id}/periodic/force", h.jobPeriodicForce, server.JobPeriodicForce},
		{putOrPost, "/v1/job/{id}/dispatch", h.jobDispatch, server.JobDispatch},
		// job_task_action_http.go
		{"GET", "/v1/job/{id}/actions", h.jobActionList, server.JobGetJob},
		{"GET", "/v1/job/{id}/action", h.jobActionRun, nil},
		// insight_http.go
		{"GET", "/v1/job/{id}/explain", h.jobExplain, server.JobExplain},
		{"GET", "/v1/job/{id}/headroom", h.jobHeadroom, server.JobHeadroom},
		{"GET", "/v1/evaluation/{id}/explain", h.evalExplain, server.EvalExplain},
		{putOrPost, "/v1/operator/whatif", h.operatorWhatIf, server.OperatorWhatIf},
		{"GET", "/v1/operator/headroom", h.operatorHeadroom, server.OperatorHeadroom},
		// deployment_http.go
		{"GET", "/v1/deployments", h.deploymentList, server.DeploymentList},
		{"GET", "/v1/deployment/{id}", h.deploymentGet, server.DeploymentGetDeployment},
		{"GET", "/v1/deployment/allocations/{id}", h.deploymentAllocations, server.DeploymentAllocations},
		{"GET", "/v1/job/{id}/deployments", h.jobDeployments, server.JobDeployments},
		{"GET", "/v1/job/{id}/deployment", h.jobLatestDeployment, server.JobLatestDeployment},
		{putOrPost, "/v1/deployment/promote/{id}", h.deploymentPromote, server.DeploymentPromote},
		{putOrPost, "/v1/deployment/fail/{id}", h.deploymentFail, server.DeploymentFail},
		{putOrPost, "/v1/deployment/pause/{id}", h.deploymentPause, server.DeploymentPause},
		{putOrPost, "/v1/deployment/unblock/{id}", h.deploymentUnblock, server.DeploymentUnblock},
		{putOrPost, "/v1/deployment/allocation-health/{id}", h.deploymentAllocHealth, server.DeploymentAllocHealth},
		// eval_http.go
		{"GET", "/v1/evaluations", h.evalList, server.EvalList},
		{"GET", "/v1/evaluations/count", h.evalCount, server.EvalCount},
		{"GET", "/v1/evaluation/{id}", h.evalGet, server.EvalGetEval},
		{"GET", "/v1/evaluation/{id}/allocations", h.evalAllocations, server.EvalAllocations},
		{"DELETE", "/v1/evaluations", h.evalDelete, nil},
		// alloc_http.go
		{"GET", "/v1/allocations", h.allocList, server.AllocList},
		{"GET", "/v1/allocation/{id}", h.allocGet, server.AllocGetAlloc},
		// node_http.go
		{"GET", "/v1/nodes", h.nodeList, server.NodeList},
		{"GET", "/v1/node/{id}", h.nodeGet, server.NodeGetNode},
		// GET /v1/node/{id}/allocations and GET /v1/node/pool/{name} overlap
		// (/v1/node/pool/allocations matches both), which ServeMux refuses to
		// register; one pattern serves both (see nodeSubresource).
		{"GET", "/v1/node/{id}/{sub}", h.nodeSubresource, server.NodeGetAllocs},
		{putOrPost, "/v1/node/{id}/drain", h.nodeDrain, server.NodeUpdateDrain},
		{putOrPost, "/v1/node/{id}/eligibility", h.nodeEligibility, server.NodeUpdateEligibility},
		{putOrPost, "/v1/node/{id}/evaluate", h.nodeEvaluate, server.NodeEvaluate},
		// status_http.go
		{"GET", "/v1/status/leader", h.statusLeader, server.StatusLeader},
		{"GET", "/v1/status/peers", h.statusPeers, server.StatusPeers},
		// event_http.go
		{"GET", "/v1/event/stream", h.eventStream, nil},
		// system_http.go
		{"PUT", "/v1/system/gc", h.systemGC, server.SystemGarbageCollect},
		// operator_http.go
		{"GET", "/v1/operator/scheduler/configuration", h.schedulerConfigGet, server.OperatorSchedulerGetConfiguration},
		{putOrPost, "/v1/operator/scheduler/configuration", h.schedulerConfigSet, server.OperatorSchedulerSetConfiguration},
		{"GET", "/v1/operator/raft/configuration", h.raftConfiguration, server.OperatorRaftGetConfiguration},
		// search_http.go
		{putOrPost, "/v1/search", h.prefixSearch, server.SearchPrefixSearch},
		{putOrPost, "/v1/search/fuzzy", h.fuzzySearch, server.SearchFuzzySearch},
		// region_http.go
		{"GET", "/v1/regions", h.regionList, server.RegionList},
		// job_history_http.go
		{"GET", "/v1/job/{id}/scale", h.jobScaleStatus, server.JobScaleStatus},
		{"GET", "/v1/job/{id}/submission", h.jobSubmission, server.JobGetSubmission},
		{putOrPost, "/v1/job/{id}/stable", h.jobStable, server.JobStable},
		{putOrPost, "/v1/job/{id}/versions/{name}/tag", h.jobTag, server.JobTagVersion},
		{"DELETE", "/v1/job/{id}/versions/{name}/tag", h.jobUntag, server.JobTagVersion},
		// node_pool_http.go
		{"GET", "/v1/node/pools", h.nodePoolList, server.NodePoolList},
		{putOrPost, "/v1/node/pools", h.nodePoolUpsert, server.NodePoolUpsert},
		{"DELETE", "/v1/node/pool/{name}", h.nodePoolDelete, server.NodePoolDelete},
		{"GET", "/v1/node/pool/{name}/jobs", h.nodePoolJobs, server.NodePoolJobs},
		{"GET", "/v1/node/pool/{name}/nodes", h.nodePoolNodes, server.NodePoolNodes},
		// namespace_http.go
		{"GET", "/v1/namespaces", h.namespaceList, server.NamespaceList},
		{"GET", "/v1/namespace/{name}", h.namespaceGet, server.NamespaceGet},
		{putOrPost, "/v1/namespace", h.namespaceUpsert, server.NamespaceUpsert},
		{putOrPost, "/v1/namespace/{name}", h.namespaceUpsert, server.NamespaceUpsert},
		{"DELETE", "/v1/namespace/{name}", h.namespaceDelete, server.NamespaceDelete},
		// service_http.go
		{"GET", "/v1/services", h.serviceList, server.ServiceRegistrationList},
		{"GET", "/v1/service/{name}", h.serviceGet, server.ServiceRegistrationGetService},
		{"DELETE", "/v1/service/{name}/{id}", h.serviceDelete, server.ServiceRegistrationDeleteByID},
		{"GET", "/v1/job/{id}/services", h.jobServices, server.ServiceRegistrationByJob},
		{"GET", "/v1/allocation/{id}/services", h.allocServices, server.ServiceRegistrationByAlloc},
		// variables_http.go
		{"GET", "/v1/vars", h.variableList, server.VariablesList},
		{"GET", "/v1/var/{path...}", h.variableRead, server.VariablesRead},
		{putOrPost, "/v1/var/{path...}", h.variableWrite, server.VariablesApply},
		{"DELETE", "/v1/var/{path...}", h.variableDelete, server.VariablesApply},
		{"GET", "/v1/operator/keyring/keys", h.keyringList, server.KeyringList},
		{putOrPost, "/v1/operator/keyring/rotate", h.keyringRotate, server.KeyringRotate},
		{"DELETE", "/v1/operator/keyring/key/{id}", h.keyringDelete, server.KeyringDelete},
		{"GET", "/.well-known/jwks.json", h.jwks, server.WorkloadIdentityJWKS},
		{"GET", "/.well-known/openid-configuration", h.oidcDiscovery, server.WorkloadIdentityOIDCDiscovery},
		// cluster_http.go
		{"GET", "/v1/agent/members", h.agentMembers, nil},
		{putOrPost, "/v1/agent/join", h.agentJoin, nil},
		{putOrPost, "/v1/agent/force-leave", h.agentForceLeave, nil},
		{"GET", "/v1/agent/keyring/list", h.agentKeyring(cluster.KeyringList), server.ClusterGossipKeyring},
		{putOrPost, "/v1/agent/keyring/install", h.agentKeyring(cluster.KeyringInstall), server.ClusterGossipKeyring},
		{putOrPost, "/v1/agent/keyring/use", h.agentKeyring(cluster.KeyringUse), server.ClusterGossipKeyring},
		{putOrPost, "/v1/agent/keyring/remove", h.agentKeyring(cluster.KeyringRemove), server.ClusterGossipKeyring},
		{"DELETE", "/v1/operator/raft/peer", h.raftRemovePeer, server.ClusterRemoveRaftPeer},
		{putOrPost, "/v1/operator/raft/transfer-leadership", h.raftTransferLeadership, server.ClusterTransferLeadership},
		{"GET", "/v1/operator/autopilot/configuration", h.autopilotGet, server.ClusterAutopilotGetConfiguration},
		{putOrPost, "/v1/operator/autopilot/configuration", h.autopilotSet, server.ClusterAutopilotSetConfiguration},
		{"GET", "/v1/operator/autopilot/health", h.autopilotHealth, server.ClusterServerHealth},
		// acl_http.go
		{putOrPost, "/v1/acl/bootstrap", h.aclBootstrap, server.ACLBootstrap},
		{"GET", "/v1/acl/policies", h.aclPolicyList, server.ACLListPolicies},
		{"GET", "/v1/acl/policy/self", h.aclPolicySelf, server.ACLGetPolicySelf},
		{"GET", "/v1/acl/policy/{name}", h.aclPolicyGet, server.ACLGetPolicy},
		{putOrPost, "/v1/acl/policy/{name}", h.aclPolicyPut, server.ACLUpsertPolicies},
		{"DELETE", "/v1/acl/policy/{name}", h.aclPolicyDelete, server.ACLDeletePolicies},
		{"GET", "/v1/acl/tokens", h.aclTokenList, server.ACLListTokens},
		{putOrPost, "/v1/acl/token", h.aclTokenUpsert, server.ACLUpsertTokens},
		{"GET", "/v1/acl/token/self", h.aclTokenSelf, server.ACLGetTokenSelf},
		{"GET", "/v1/acl/token/{accessor}", h.aclTokenGet, server.ACLGetToken},
		{putOrPost, "/v1/acl/token/{accessor}", h.aclTokenUpsert, server.ACLUpsertTokens},
		{"DELETE", "/v1/acl/token/{accessor}", h.aclTokenDelete, server.ACLDeleteTokens},
		// acl_role_http.go
		{"GET", "/v1/acl/roles", h.aclRoleList, server.ACLListRoles},
		{"PUT", "/v1/acl/role", h.aclRoleUpsert, server.ACLUpsertRoles},
		{"POST", "/v1/acl/role", h.aclRoleUpsert, server.ACLUpsertRoles},
		{"GET", "/v1/acl/role/{id}", h.aclRoleGet, server.ACLGetRole},
		{"PUT", "/v1/acl/role/{id}", h.aclRoleUpsert, server.ACLUpsertRoles},
		{"POST", "/v1/acl/role/{id}", h.aclRoleUpsert, server.ACLUpsertRoles},
		{"DELETE", "/v1/acl/role/{id}", h.aclRoleDelete, server.ACLDeleteRoles},
		{"GET", "/v1/acl/role/name/{name}", h.aclRoleGetByName, server.ACLGetRole},
		// acl_auth_http.go
		{"GET", "/v1/acl/auth-methods", h.aclAuthMethodList, server.ACLListAuthMethods},
		{putOrPost, "/v1/acl/auth-method", h.aclAuthMethodUpsert, server.ACLUpsertAuthMethods},
		{"GET", "/v1/acl/auth-method/{name}", h.aclAuthMethodGet, server.ACLGetAuthMethod},
		{putOrPost, "/v1/acl/auth-method/{name}", h.aclAuthMethodUpsert, server.ACLUpsertAuthMethods},
		{"DELETE", "/v1/acl/auth-method/{name}", h.aclAuthMethodDelete, server.ACLDeleteAuthMethods},
		{"GET", "/v1/acl/binding-rules", h.aclBindingRuleList, server.ACLListBindingRules},
		{putOrPost, "/v1/acl/binding-rule", h.aclBindingRuleUpsert, server.ACLUpsertBindingRules},
		{"GET", "/v1/acl/binding-rule/{id}", h.aclBindingRuleGet, server.ACLGetBindingRule},
		{putOrPost, "/v1/acl/binding-rule/{id}", h.aclBindingRuleUpsert, server.ACLUpsertBindingRules},
		{"DELETE", "/v1/acl/binding-rule/{id}", h.aclBindingRuleDelete, server.ACLDeleteBindingRules},
		{putOrPost, "/v1/acl/login", h.aclLogin, server.ACLLogin},
		{putOrPost, "/v1/acl/token/onetime", h.aclOneTimeTokenCreate, server.ACLUpsertOneTimeToken},
		{putOrPost, "/v1/acl/token/onetime/exchange", h.aclOneTimeTokenExchange, server.ACLExchangeOneTimeToken},
		{putOrPost, "/v1/acl/oidc/auth-url", h.aclOIDCAuthURL, server.ACLOIDCAuthURL},
		{putOrPost, "/v1/acl/oidc/complete-auth", h.aclOIDCCompleteAuth, server.ACLOIDCCompleteAuth},
	}
}

func boolString(b bool) string   { return strconv.FormatBool(b) }
func uintString(n uint64) string { return strconv.FormatUint(n, 10) }
