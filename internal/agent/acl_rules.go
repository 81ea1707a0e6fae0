package agent

import (
	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/server"
)

// Capability names, shortened for the table.
const (
	capListJobs    = acl.NamespaceCapabilityListJobs
	capReadJob     = acl.NamespaceCapabilityReadJob
	capSubmitJob   = acl.NamespaceCapabilitySubmitJob
	capParseJob    = acl.NamespaceCapabilityParseJob
	capDispatchJob = acl.NamespaceCapabilityDispatchJob
	capScaleJob    = acl.NamespaceCapabilityScaleJob
	capReadLogs    = acl.NamespaceCapabilityReadLogs
	capReadFS      = acl.NamespaceCapabilityReadFS
	capLifecycle   = acl.NamespaceCapabilityAllocLifecycle
)

func readOnly(c aclCheck) aclRule { return aclRule{read: c} }

func writeOnly(c aclCheck) aclRule { return aclRule{write: c} }

func readWrite(read, write aclCheck) aclRule { return aclRule{read: read, write: write} }

// aclRules maps each route (the path of its mux pattern) to the
// capability it needs, following Nomad's API documentation ("ACL
// required" of each endpoint). Routes not listed need a management token.
var aclRules = map[string]aclRule{
	// The ACL endpoints check tokens themselves (a token reads itself,
	// bootstrap needs none).
	"/v1/acl/bootstrap":         writeOnly(public),
	"/v1/acl/policies":          readOnly(public),
	"/v1/acl/policy/{name}":     readWrite(public, public),
	"/v1/acl/tokens":            readOnly(public),
	"/v1/acl/token":             writeOnly(public),
	"/v1/acl/token/self":        readOnly(public),
	"/v1/acl/token/{accessor}":  readWrite(public, public),
	"/v1/acl/roles":             readOnly(public),
	"/v1/acl/role":              writeOnly(public),
	"/v1/acl/role/{id}":         readWrite(public, public),
	"/v1/acl/role/name/{name}":  readOnly(public),
	"/":                         readWrite(public, public),
	"/{$}":                      readOnly(public), // redirect to the UI
	"/ui":                       readOnly(public),
	"/ui/":                      readOnly(public), // static files; the UI calls the API with the user's token
	"/v1/status/leader":         readOnly(public),
	"/v1/status/peers":          readOnly(public),
	"/v1/agent/health":          readOnly(public),
	"/v1/regions":               readOnly(public),
	"/v1/agent/self":            readOnly(agentRead),
	"/v1/agent/host":            readOnly(agentRead),
	"/v1/agent/monitor":         readOnly(agentRead),
	"/v1/agent/servers":         readWrite(agentRead, agentWrite),
	"/v1/agent/keyring/list":    readOnly(agentRead),
	"/v1/agent/keyring/install": writeOnly(agentWrite),
	"/v1/agent/keyring/use":     writeOnly(agentWrite),
	"/v1/agent/keyring/remove":  writeOnly(agentWrite),
	"/v1/agent/pprof/{profile}": readOnly(agentWrite),
	"/v1/metrics":               readOnly(agentRead),

	// Jobs: the namespace is the request's, or for writes of a job body
	// the job's own.
	"/v1/jobs":                         readWrite(nsList(capListJobs), nsBody(capSubmitJob)),
	"/v1/jobs/parse":                   writeOnly(ns(capParseJob, capSubmitJob)),
	"/v1/job/{id}":                     {read: ns(capReadJob), write: both(ns(capSubmitJob), nsBody(capSubmitJob))},
	"/v1/job/{id}/versions":            readOnly(ns(capReadJob)),
	"/v1/job/{id}/evaluations":         readOnly(ns(capReadJob)),
	"/v1/job/{id}/allocations":         readOnly(ns(capReadJob)),
	"/v1/job/{id}/summary":             readOnly(ns(capReadJob)),
	"/v1/job/{id}/deployments":         readOnly(ns(capReadJob)),
	"/v1/job/{id}/deployment":          readOnly(ns(capReadJob)),
	"/v1/job/{id}/scale":               readWrite(ns(acl.NamespaceCapabilityReadJobScaling, capReadJob), ns(capScaleJob, capSubmitJob)),
	"/v1/job/{id}/submission":          readOnly(ns(capReadJob)),
	"/v1/job/{id}/stable":              writeOnly(ns(capSubmitJob)),
	"/v1/job/{id}/versions/{name}/tag": writeOnly(ns(capSubmitJob)),
	"/v1/job/{id}/plan":                writeOnly(both(ns(capSubmitJob), nsBody(capSubmitJob))),
	"/v1/job/{id}/evaluate":            writeOnly(ns(capSubmitJob)),
	"/v1/job/{id}/revert":              writeOnly(ns(capSubmitJob)),
	"/v1/job/{id}/actions":             readOnly(ns(capReadJob)),
	// Running an action needs what exec needs; the action, not the
	// caller, chooses the command.
	"/v1/job/{id}/action":             readOnly(ns(acl.NamespaceCapabilityAllocExec)),
	"/v1/job/{id}/periodic/force":     writeOnly(ns(capSubmitJob)),
	"/v1/job/{id}/dispatch":           writeOnly(ns(capDispatchJob)),
	"/v1/validate/job":                writeOnly(nsBody(capReadJob)),
	"/v1/search":                      writeOnly(ns(capListJobs)),
	"/v1/search/fuzzy":                writeOnly(ns(capListJobs)),
	"/v1/evaluations":                 readWrite(nsList(capReadJob), management),
	"/v1/evaluations/count":           readOnly(ns(capReadJob)),
	"/v1/evaluation/{id}":             readOnly(object(server.ObjectEval, capReadJob)),
	"/v1/evaluation/{id}/allocations": readOnly(object(server.ObjectEval, capReadJob)),
	"/v1/allocations":                 readOnly(nsList(capReadJob)),
	"/v1/allocation/{id}":             readOnly(object(server.ObjectAlloc, capReadJob)),
	"/v1/allocation/{id}/stop":        writeOnly(object(server.ObjectAlloc, capLifecycle)),
	"/v1/deployments":                 readOnly(nsList(capReadJob)),
	"/v1/deployment/{id}":             readOnly(object(server.ObjectDeployment, capReadJob)),
	"/v1/deployment/allocations/{id}": readOnly(object(server.ObjectDeployment, capReadJob)),
	"/v1/deployment/promote/{id}":     writeOnly(object(server.ObjectDeployment, capSubmitJob)),
	"/v1/deployment/fail/{id}":        writeOnly(object(server.ObjectDeployment, capSubmitJob)),
	"/v1/deployment/pause/{id}":       writeOnly(object(server.ObjectDeployment, capSubmitJob)),
	"/v1/deployment/unblock/{id}":     writeOnly(object(server.ObjectDeployment, capSubmitJob)),

	// Namespaces: any valid token lists (the endpoint answers the
	// namespaces it holds a capability in); one namespace needs a
	// capability in it; writes need management.
	"/v1/namespaces":       readOnly(anyToken),
	"/v1/namespace/{name}": readWrite(namespaceNamed, management),
	"/v1/namespace":        writeOnly(management),

	// Native services, variables (the endpoint checks each path), keyring.
	"/v1/services":                  readOnly(nsList(capReadJob)),
	"/v1/service/{name}":            readOnly(ns(capReadJob)),
	"/v1/service/{name}/{id}":       writeOnly(ns(capSubmitJob)),
	"/v1/job/{id}/services":         readOnly(ns(capReadJob)),
	"/v1/allocation/{id}/services":  readOnly(object(server.ObjectAlloc, capReadJob)),
	"/v1/vars":                      readOnly(anyToken),
	"/v1/var/{path...}":             readWrite(anyToken, anyToken),
	"/v1/operator/keyring/keys":     readOnly(management),
	"/v1/operator/keyring/rotate":   writeOnly(management),
	"/v1/operator/keyring/key/{id}": writeOnly(management),
	"/.well-known/jwks.json":        readOnly(public),

	// Nodes; a node's allocations are also filtered by namespace.
	"/v1/nodes":                  readOnly(nodeRead),
	"/v1/node/{id}":              readOnly(nodeRead),
	"/v1/node/{id}/{sub}":        readOnly(nodeRead), // a node's allocations, or a pool
	"/v1/node/pools":             readWrite(nodeRead, management),
	"/v1/node/pool/{name}":       readWrite(nodeRead, management),
	"/v1/node/pool/{name}/jobs":  readOnly(nodeRead),
	"/v1/node/pool/{name}/nodes": readOnly(nodeRead),
	"/v1/event/stream":           readOnly(anyToken), // the endpoint sends only visible events
	"/v1/node/{id}/drain":        writeOnly(nodeWrite),
	"/v1/node/{id}/eligibility":  writeOnly(nodeWrite),
	"/v1/node/{id}/evaluate":     writeOnly(nodeWrite),

	// Operator: snapshots and GC hold or change everything.
	"/v1/operator/raft/configuration":       readOnly(operatorRead),
	"/v1/operator/raft/peer":                writeOnly(operatorWrite),
	"/v1/operator/raft/transfer-leadership": writeOnly(operatorWrite),
	"/v1/operator/autopilot/configuration":  readWrite(operatorRead, operatorWrite),
	"/v1/operator/autopilot/health":         readOnly(operatorRead),
	"/v1/agent/members":                     readOnly(nodeRead),
	"/v1/agent/join":                        writeOnly(agentWrite),
	"/v1/agent/force-leave":                 writeOnly(agentWrite),
	"/v1/operator/scheduler/configuration":  readWrite(operatorRead, operatorWrite),
	"/v1/operator/snapshot":                 readWrite(management, management),
	"/v1/system/gc":                         writeOnly(management),

	// Client endpoints: the allocation's namespace decides.
	"/v1/client/fs/logs/{id}":            readOnly(object(server.ObjectAlloc, capReadLogs)),
	"/v1/client/fs/ls/{id}":              readOnly(object(server.ObjectAlloc, capReadFS)),
	"/v1/client/fs/stat/{id}":            readOnly(object(server.ObjectAlloc, capReadFS)),
	"/v1/client/fs/cat/{id}":             readOnly(object(server.ObjectAlloc, capReadFS)),
	"/v1/client/fs/stream/{id}":          readOnly(object(server.ObjectAlloc, capReadFS)),
	"/v1/client/allocation/{id}/exec":    readWrite(object(server.ObjectAlloc, acl.NamespaceCapabilityAllocExec), object(server.ObjectAlloc, acl.NamespaceCapabilityAllocExec)),
	"/v1/client/fs/readat/{id}":          readOnly(object(server.ObjectAlloc, capReadFS)),
	"/v1/client/allocation/{id}/checks":  readOnly(object(server.ObjectAlloc, capReadJob)),
	"/v1/client/allocation/{id}/stats":   readOnly(object(server.ObjectAlloc, capReadJob)),
	"/v1/client/allocation/{id}/restart": writeOnly(object(server.ObjectAlloc, capLifecycle)),
	"/v1/client/allocation/{id}/signal":  writeOnly(object(server.ObjectAlloc, capLifecycle)),
	"/v1/client/allocation/{id}/gc":      readWrite(object(server.ObjectAlloc, capLifecycle), object(server.ObjectAlloc, capLifecycle)),
	"/v1/client/gc":                      readWrite(nodeWrite, nodeWrite),
	"/v1/client/stats":                   readOnly(nodeRead),
	"/v1/client/metadata":                readWrite(nodeRead, nodeWrite),
}
