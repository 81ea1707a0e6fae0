package server

import "github.com/drover-project/drover/internal/acl"

// The method table: every RPC method, registered once with its wire name,
// read or write kind (reads/writes/localRead: see method.go for which
// server answers), access rule (access.go) and handler. The HTTP API
// calls these (JobRegister.Call), the RPC listener serves them by
// wire name, and a follower forwards them to the leader under that name.
// Adding an endpoint is one line here plus its handler.

// Capability names, shortened for the table.
const (
	capListJobs       = acl.NamespaceCapabilityListJobs
	capReadJob        = acl.NamespaceCapabilityReadJob
	capSubmitJob      = acl.NamespaceCapabilitySubmitJob
	capDispatchJob    = acl.NamespaceCapabilityDispatchJob
	capScaleJob       = acl.NamespaceCapabilityScaleJob
	capReadJobScaling = acl.NamespaceCapabilityReadJobScaling
	capAllocLifecycle = acl.NamespaceCapabilityAllocLifecycle
)

var (
	// Jobs: the request's namespace; a job body goes to its own.
	JobRegister         = writes("Job.Register", jobBodyCap(capSubmitJob), (*JobEndpoint).Register)
	JobDeregister       = writes("Job.Deregister", nsCap(capSubmitJob), (*JobEndpoint).Deregister)
	JobScale            = writes("Job.Scale", nsCap(capScaleJob, capSubmitJob), (*JobEndpoint).Scale)
	JobEvaluate         = writes("Job.Evaluate", nsCap(capSubmitJob), (*JobEndpoint).Evaluate)
	JobRevert           = writes("Job.Revert", nsCap(capSubmitJob), (*JobEndpoint).Revert)
	JobValidate         = writes("Job.Validate", jobBodyCap(capReadJob), (*JobEndpoint).Validate)
	JobPlan             = writes("Job.Plan", jobBodyCap(capSubmitJob), (*JobEndpoint).Plan)
	JobDispatch         = writes("Job.Dispatch", nsCap(capDispatchJob), (*JobEndpoint).Dispatch)
	JobPeriodicForce    = writes("Job.PeriodicForce", nsCap(capSubmitJob), (*JobEndpoint).PeriodicForce)
	JobList             = reads("Job.List", nsListCap(capListJobs), (*JobEndpoint).List)
	JobGetJob           = reads("Job.GetJob", nsCap(capReadJob), (*JobEndpoint).GetJob)
	JobGetJobVersions   = reads("Job.GetJobVersions", nsCap(capReadJob), (*JobEndpoint).GetJobVersions)
	JobEvaluations      = reads("Job.Evaluations", nsCap(capReadJob), (*JobEndpoint).Evaluations)
	JobAllocations      = reads("Job.Allocations", nsCap(capReadJob), (*JobEndpoint).Allocations)
	JobSummary          = reads("Job.Summary", nsCap(capReadJob), (*JobEndpoint).Summary)
	JobDeployments      = reads("Job.Deployments", nsCap(capReadJob), (*JobEndpoint).Deployments)
	JobLatestDeployment = reads("Job.LatestDeployment", nsCap(capReadJob), (*JobEndpoint).LatestDeployment)
	JobScaleStatus      = reads("Job.ScaleStatus", nsCap(capReadJobScaling, capReadJob), (*JobEndpoint).ScaleStatus)
	JobGetSubmission    = reads("Job.GetSubmission", nsCap(capReadJob), (*JobEndpoint).GetSubmission)
	JobStable           = writes("Job.Stable", nsCap(capSubmitJob), (*JobEndpoint).Stable)
	JobTagVersion       = writes("Job.TagVersion", nsCap(capSubmitJob), (*JobEndpoint).TagVersion)
	// Insight (job_plan.go, package insight): dry runs, nothing written.
	JobExplain  = reads("Job.Explain", nsCap(capReadJob), (*JobEndpoint).Explain)
	JobHeadroom = reads("Job.Headroom", nsCap(capReadJob), (*JobEndpoint).Headroom)

	// Evals, allocs, deployments: IDs are global, so the object's
	// namespace decides; lists filter per object.
	EvalList        = reads("Eval.List", nsListCap(capReadJob), (*EvalEndpoint).List)
	EvalGetEval     = reads("Eval.GetEval", objectCap(ObjectEval, capReadJob), (*EvalEndpoint).GetEval)
	EvalAllocations = reads("Eval.Allocations", objectCap(ObjectEval, capReadJob), (*EvalEndpoint).Allocations)
	EvalDelete      = writes("Eval.Delete", managementOnly, (*EvalEndpoint).Delete)
	EvalCount       = reads("Eval.Count", nsCap(capReadJob), (*EvalEndpoint).Count)
	EvalExplain     = reads("Eval.Explain", objectCap(ObjectEval, capReadJob), (*EvalEndpoint).Explain)
	// The remote workers' calls (a follower's worker to the leader's
	// broker and plan queue) carry the server credential.
	EvalDequeue = writes("Eval.Dequeue", serverOnly, (*EvalEndpoint).Dequeue)
	EvalAck     = writes("Eval.Ack", serverOnly, (*EvalEndpoint).Ack)
	EvalNack    = writes("Eval.Nack", serverOnly, (*EvalEndpoint).Nack)
	EvalUpdate  = writes("Eval.Update", serverOnly, (*EvalEndpoint).Update)

	SearchPrefixSearch = reads("Search.PrefixSearch", nsCap(capListJobs), (*SearchEndpoint).PrefixSearch)
	SearchFuzzySearch  = reads("Search.FuzzySearch", nsCap(capListJobs), (*SearchEndpoint).FuzzySearch)

	// Region.List describes this server's region; it is not forwarded.
	RegionList = localRead("Region.List", selfChecked, (*RegionEndpoint).List)

	AllocList     = reads("Alloc.List", nsListCap(capReadJob), (*AllocEndpoint).List)
	AllocGetAlloc = reads("Alloc.GetAlloc", objectCap(ObjectAlloc, capReadJob), (*AllocEndpoint).GetAlloc)
	AllocStop     = writes("Alloc.Stop", objectCap(ObjectAlloc, capAllocLifecycle), (*AllocEndpoint).Stop)
	// A client fetching its own changed allocs: checked by node secret.
	AllocGetAllocs = reads("Alloc.GetAllocs", selfChecked, (*AllocEndpoint).GetAllocs)

	DeploymentList          = reads("Deployment.List", nsListCap(capReadJob), (*DeploymentEndpoint).List)
	DeploymentGetDeployment = reads("Deployment.GetDeployment", objectCap(ObjectDeployment, capReadJob), (*DeploymentEndpoint).GetDeployment)
	DeploymentAllocations   = reads("Deployment.Allocations", objectCap(ObjectDeployment, capReadJob), (*DeploymentEndpoint).Allocations)
	DeploymentPromote       = writes("Deployment.Promote", objectCap(ObjectDeployment, capSubmitJob), (*DeploymentEndpoint).Promote)
	DeploymentFail          = writes("Deployment.Fail", objectCap(ObjectDeployment, capSubmitJob), (*DeploymentEndpoint).Fail)
	DeploymentPause         = writes("Deployment.Pause", objectCap(ObjectDeployment, capSubmitJob), (*DeploymentEndpoint).Pause)
	DeploymentUnblock       = writes("Deployment.Unblock", objectCap(ObjectDeployment, capSubmitJob), (*DeploymentEndpoint).Unblock)
	DeploymentAllocHealth   = writes("Deployment.SetAllocHealth", objectCap(ObjectDeployment, capSubmitJob), (*DeploymentEndpoint).SetAllocHealth)

	// Nodes: the client's own calls (Register, the UpdateStatus
	// heartbeat, GetClientAllocs, UpdateAlloc) authenticate by node secret.
	NodeRegister          = writes("Node.Register", selfChecked, (*NodeEndpoint).Register)
	NodeUpdateStatus      = writes("Node.UpdateStatus", selfChecked, (*NodeEndpoint).UpdateStatus)
	NodeGetClientAllocs   = reads("Node.GetClientAllocs", selfChecked, (*NodeEndpoint).GetClientAllocs)
	NodeUpdateAlloc       = writes("Node.UpdateAlloc", selfChecked, (*NodeEndpoint).UpdateAlloc)
	NodeUpdateDrain       = writes("Node.UpdateDrain", nodeWrite, (*NodeEndpoint).UpdateDrain)
	NodeUpdateEligibility = writes("Node.UpdateEligibility", nodeWrite, (*NodeEndpoint).UpdateEligibility)
	NodeEvaluate          = writes("Node.Evaluate", nodeWrite, (*NodeEndpoint).Evaluate)
	NodeList              = reads("Node.List", nodeRead, (*NodeEndpoint).List)
	NodeGetNode           = reads("Node.GetNode", nodeRead, (*NodeEndpoint).GetNode)
	NodeGetAllocs         = reads("Node.GetAllocs", nodeRead, (*NodeEndpoint).GetAllocs)
	// A client's pull of its alloc indexes (GetClientAllocs above is the
	// full pull of clients of earlier versions): checked by node secret.
	NodeGetClientAllocIndexes = reads("Node.GetClientAllocIndexes", selfChecked, (*NodeEndpoint).GetClientAllocIndexes)
	// A client migrating an ephemeral_disk asks about its alloc's
	// previous alloc on another node: checked by node secret.
	NodePrevAllocMigration = reads("Node.PrevAllocMigration", selfChecked, (*NodeEndpoint).PrevAllocMigration)

	OperatorSchedulerGetConfiguration = reads("Operator.SchedulerGetConfiguration", operatorRead, (*OperatorEndpoint).SchedulerGetConfiguration)
	OperatorSchedulerSetConfiguration = writes("Operator.SchedulerSetConfiguration", operatorWrite, (*OperatorEndpoint).SchedulerSetConfiguration)
	OperatorRaftGetConfiguration      = reads("Operator.RaftGetConfiguration", operatorRead, (*OperatorEndpoint).RaftGetConfiguration)
	OperatorWhatIf                    = reads("Operator.WhatIf", operatorRead, (*OperatorEndpoint).WhatIf)
	OperatorHeadroom                  = reads("Operator.Headroom", operatorRead, (*OperatorEndpoint).Headroom)

	// Status and raft views: public, answered by the server asked.
	StatusLeader    = localRead("Status.Leader", selfChecked, (*StatusEndpoint).Leader)
	StatusPeers     = localRead("Status.Peers", selfChecked, (*StatusEndpoint).Peers)
	StatusRaftStats = localRead("Status.RaftStats", selfChecked, (*StatusEndpoint).RaftStats)

	SystemGarbageCollect = writes("System.GarbageCollect", managementOnly, (*SystemEndpoint).GarbageCollect)

	// Node pools by the node_pool rules, as Nomad: a list shows the
	// readable pools; a pool's nodes also need node read.
	NodePoolList   = reads("NodePool.List", anyToken, (*NodePoolEndpoint).List)
	NodePoolGet    = reads("NodePool.Get", nodePoolCap(acl.NodePoolCapabilityRead, false), (*NodePoolEndpoint).Get)
	NodePoolUpsert = writes("NodePool.Upsert", nodePoolCap(acl.NodePoolCapabilityWrite, false), (*NodePoolEndpoint).Upsert)
	NodePoolDelete = writes("NodePool.Delete", nodePoolCap(acl.NodePoolCapabilityDelete, false), (*NodePoolEndpoint).Delete)
	NodePoolJobs   = reads("NodePool.Jobs", nodePoolCap(acl.NodePoolCapabilityRead, false), (*NodePoolEndpoint).Jobs)
	NodePoolNodes  = reads("NodePool.Nodes", nodePoolCap(acl.NodePoolCapabilityRead, true), (*NodePoolEndpoint).Nodes)

	// Native services: the client's own calls authenticate by node
	// secret; reads need read-job; an operator's delete submit-job.
	ServiceRegistrationUpsert     = writes("ServiceRegistration.Upsert", selfChecked, (*ServiceRegistrationEndpoint).Upsert)
	ServiceRegistrationDeleteByID = writes("ServiceRegistration.DeleteByID", rule(serviceDelete), (*ServiceRegistrationEndpoint).DeleteByID)
	ServiceRegistrationList       = reads("ServiceRegistration.List", nsListCap(capReadJob), (*ServiceRegistrationEndpoint).List)
	ServiceRegistrationGetService = reads("ServiceRegistration.GetService", nsCap(capReadJob), (*ServiceRegistrationEndpoint).GetService)
	ServiceRegistrationByJob      = reads("ServiceRegistration.ByJob", nsCap(capReadJob), (*ServiceRegistrationEndpoint).ByJob)
	ServiceRegistrationByAlloc    = reads("ServiceRegistration.ByAlloc", objectCap(ObjectAlloc, capReadJob), (*ServiceRegistrationEndpoint).ByAlloc)

	// Variables check each path themselves (auth.Service.AuthorizeVariable).
	VariablesApply = writes("Variables.Apply", byVariablePath, (*VariablesEndpoint).Apply)
	VariablesRead  = reads("Variables.Read", byVariablePath, (*VariablesEndpoint).Read)
	VariablesList  = reads("Variables.List", byVariablePath, (*VariablesEndpoint).List)

	KeyringRotate = writes("Keyring.Rotate", managementOnly, (*KeyringEndpoint).Rotate)
	KeyringList   = reads("Keyring.List", managementOnly, (*KeyringEndpoint).List)
	KeyringDelete = writes("Keyring.Delete", managementOnly, (*KeyringEndpoint).Delete)
	// The KEK hand-over proves itself: it must open the root keys the
	// receiving server already holds (auth/keyring_kek.go).
	KeyringInstallKEK = localWrite("Keyring.InstallKEK", selfChecked, (*KeyringEndpoint).InstallKEK)

	// Sign authenticates the node; the JWKS is public keys.
	WorkloadIdentitySign = reads("WorkloadIdentity.Sign", selfChecked, (*WorkloadIdentityEndpoint).Sign)
	WorkloadIdentityJWKS = reads("WorkloadIdentity.JWKS", selfChecked, (*WorkloadIdentityEndpoint).JWKS)
	// OIDC discovery is public, from this server's oidc_issuer.
	WorkloadIdentityOIDCDiscovery = localRead("WorkloadIdentity.OIDCDiscovery", selfChecked, (*WorkloadIdentityEndpoint).OIDCDiscovery)

	PlanSubmit = writes("Plan.Submit", serverOnly, (*PlanEndpoint).Submit)

	// Autopilot's per-server stats and serf members: answered by the
	// server asked (the leader asks each follower), unchecked as before.
	ClusterServerStats               = localRead("Cluster.ServerStats", selfChecked, (*ClusterEndpoint).ServerStats)
	ClusterMembers                   = localRead("Cluster.Members", selfChecked, (*ClusterEndpoint).Members)
	ClusterGossipKeyring             = localWrite("Cluster.GossipKeyring", agentWrite, (*ClusterEndpoint).GossipKeyring)
	ClusterRemoveRaftPeer            = writes("Cluster.RemoveRaftPeer", operatorWrite, (*ClusterEndpoint).RemoveRaftPeer)
	ClusterTransferLeadership        = writes("Cluster.TransferLeadership", operatorWrite, (*ClusterEndpoint).TransferLeadership)
	ClusterAutopilotGetConfiguration = reads("Cluster.AutopilotGetConfiguration", operatorRead, (*ClusterEndpoint).AutopilotGetConfiguration)
	ClusterAutopilotSetConfiguration = writes("Cluster.AutopilotSetConfiguration", operatorWrite, (*ClusterEndpoint).AutopilotSetConfiguration)
	ClusterServerHealth              = reads("Cluster.ServerHealth", operatorRead, (*ClusterEndpoint).ServerHealth)
	ClusterSnapshotRestore           = writes("Cluster.SnapshotRestore", managementOnly, (*ClusterEndpoint).SnapshotRestore)

	// Namespaces: any token lists (and sees only the namespaces it holds
	// a capability in); reading one needs a capability in it; writes
	// need management.
	NamespaceList   = reads("Namespace.List", anyToken, (*NamespaceEndpoint).List)
	NamespaceGet    = reads("Namespace.Get", rule(namespaceNamed), (*NamespaceEndpoint).Get)
	NamespaceUpsert = writes("Namespace.Upsert", managementOnly, (*NamespaceEndpoint).Upsert)
	NamespaceDelete = writes("Namespace.Delete", managementOnly, (*NamespaceEndpoint).Delete)

	// ACL.ResolveToken lets client agents check the requests for the
	// allocations they run (fs, logs, signals) themselves, on any server.
	// The other ACL methods check the caller's token themselves (a token
	// reads itself, bootstrap needs none); their writes go to the leader.
	ACLResolveToken   = localRead("ACL.ResolveToken", selfChecked, (*ACLEndpoint).ResolveToken)
	ACLBootstrap      = writes("ACL.Bootstrap", selfChecked, (*ACLEndpoint).Bootstrap)
	ACLUpsertPolicies = writes("ACL.UpsertPolicies", selfChecked, (*ACLEndpoint).UpsertPolicies)
	ACLDeletePolicies = writes("ACL.DeletePolicies", selfChecked, (*ACLEndpoint).DeletePolicies)
	ACLListPolicies   = reads("ACL.ListPolicies", selfChecked, (*ACLEndpoint).ListPolicies)
	ACLGetPolicy      = reads("ACL.GetPolicy", selfChecked, (*ACLEndpoint).GetPolicy)
	ACLGetPolicySelf  = reads("ACL.GetPolicySelf", selfChecked, (*ACLEndpoint).GetPolicySelf)
	ACLUpsertRoles    = writes("ACL.UpsertRoles", selfChecked, (*ACLEndpoint).UpsertRoles)
	ACLDeleteRoles    = writes("ACL.DeleteRoles", selfChecked, (*ACLEndpoint).DeleteRoles)
	ACLListRoles      = reads("ACL.ListRoles", selfChecked, (*ACLEndpoint).ListRoles)
	ACLGetRole        = reads("ACL.GetRole", selfChecked, (*ACLEndpoint).GetRole)
	ACLUpsertTokens   = writes("ACL.UpsertTokens", selfChecked, (*ACLEndpoint).UpsertTokens)
	ACLDeleteTokens   = writes("ACL.DeleteTokens", selfChecked, (*ACLEndpoint).DeleteTokens)
	ACLListTokens     = reads("ACL.ListTokens", selfChecked, (*ACLEndpoint).ListTokens)
	ACLGetToken       = reads("ACL.GetToken", selfChecked, (*ACLEndpoint).GetToken)
	ACLGetTokenSelf   = reads("ACL.GetTokenSelf", selfChecked, (*ACLEndpoint).GetTokenSelf)

	// Auth methods and binding rules: management, as Nomad, but listing
	// auth methods (a login looks for the default one before it holds a
	// token). A login presents no token: the JWT is the credential.
	ACLUpsertAuthMethods  = writes("ACL.UpsertAuthMethods", managementOnly, (*ACLEndpoint).UpsertAuthMethods)
	ACLDeleteAuthMethods  = writes("ACL.DeleteAuthMethods", managementOnly, (*ACLEndpoint).DeleteAuthMethods)
	ACLListAuthMethods    = reads("ACL.ListAuthMethods", selfChecked, (*ACLEndpoint).ListAuthMethods)
	ACLGetAuthMethod      = reads("ACL.GetAuthMethod", managementOnly, (*ACLEndpoint).GetAuthMethod)
	ACLUpsertBindingRules = writes("ACL.UpsertBindingRules", managementOnly, (*ACLEndpoint).UpsertBindingRules)
	ACLDeleteBindingRules = writes("ACL.DeleteBindingRules", managementOnly, (*ACLEndpoint).DeleteBindingRules)
	ACLListBindingRules   = reads("ACL.ListBindingRules", managementOnly, (*ACLEndpoint).ListBindingRules)
	ACLGetBindingRule     = reads("ACL.GetBindingRule", managementOnly, (*ACLEndpoint).GetBindingRule)
	ACLLogin              = writes("ACL.Login", selfChecked, (*ACLEndpoint).Login)
	// The OIDC flow: no token; the provider's code is the credential.
	ACLOIDCAuthURL      = writes("ACL.OIDCAuthURL", selfChecked, (*ACLEndpoint).OIDCAuthURL)
	ACLOIDCCompleteAuth = writes("ACL.OIDCCompleteAuth", selfChecked, (*ACLEndpoint).OIDCCompleteAuth)
	// One-time tokens: any token makes one for itself; the exchange's
	// credential is the one-time secret.
	ACLUpsertOneTimeToken   = writes("ACL.UpsertOneTimeToken", selfChecked, (*ACLEndpoint).UpsertOneTimeToken)
	ACLExchangeOneTimeToken = writes("ACL.ExchangeOneTimeToken", selfChecked, (*ACLEndpoint).ExchangeOneTimeToken)
)
