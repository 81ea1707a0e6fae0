package agent

import (
	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/server"
)

// Capability names, shortened for the table.
const (
	capReadJob   = acl.NamespaceCapabilityReadJob
	capSubmitJob = acl.NamespaceCapabilitySubmitJob
	capParseJob  = acl.NamespaceCapabilityParseJob
	capReadLogs  = acl.NamespaceCapabilityReadLogs
	capReadFS    = acl.NamespaceCapabilityReadFS
	capLifecycle = acl.NamespaceCapabilityAllocLifecycle
)

func readOnly(c aclCheck) aclRule { return aclRule{read: c} }

func writeOnly(c aclCheck) aclRule { return aclRule{write: c} }

func readWrite(read, write aclCheck) aclRule { return aclRule{read: read, write: write} }

// aclRules maps each route that is not a call of a registered server
// method (those are checked by the method's rule: serverRoute.by,
// server/methods.go) to the capability it needs, following Nomad's API
// documentation ("ACL required" of each endpoint): the agent's own routes,
// the client's, and the cluster routes whose handler does more than one
// method call. Routes not listed need a management token.
var aclRules = map[string]aclRule{
	"/":                         readWrite(public, public),
	"/{$}":                      readOnly(public), // redirect to the UI
	"/ui":                       readOnly(public),
	"/ui/":                      readOnly(public), // static files; the UI calls the API with the user's token
	"/v1/agent/health":          readOnly(public),
	"/v1/agent/self":            readOnly(agentRead),
	"/v1/agent/host":            readOnly(agentRead),
	"/v1/agent/monitor":         readOnly(agentRead),
	"/v1/agent/servers":         readWrite(agentRead, agentWrite),
	"/v1/agent/pprof/{profile}": readOnly(agentWrite),
	"/v1/metrics":               readOnly(agentRead),
	"/v1/agent/members":         readOnly(nodeRead),
	"/v1/agent/join":            writeOnly(agentWrite),
	"/v1/agent/force-leave":     writeOnly(agentWrite),

	// Parsing reads no state; it needs parse-job (or submit-job).
	"/v1/jobs/parse": writeOnly(ns(capParseJob, capSubmitJob)),
	// Running an action needs what exec needs; the action, not the
	// caller, chooses the command.
	"/v1/job/{id}/action": readOnly(ns(acl.NamespaceCapabilityAllocExec)),
	// Deleting evals refuses a malformed body before it calls Eval.Delete;
	// the caller is checked first.
	"/v1/evaluations":  writeOnly(management),
	"/v1/event/stream": readOnly(anyToken), // the endpoint checks each topic (403 before it opens), then filters events
	// Snapshots hold or change everything.
	"/v1/operator/snapshot": readWrite(management, management),

	// Client endpoints: the allocation's namespace decides.
	"/v1/client/fs/logs/{id}":         readOnly(object(server.ObjectAlloc, capReadLogs)),
	"/v1/client/fs/ls/{id}":           readOnly(object(server.ObjectAlloc, capReadFS)),
	"/v1/client/fs/stat/{id}":         readOnly(object(server.ObjectAlloc, capReadFS)),
	"/v1/client/fs/cat/{id}":          readOnly(object(server.ObjectAlloc, capReadFS)),
	"/v1/client/fs/stream/{id}":       readOnly(object(server.ObjectAlloc, capReadFS)),
	"/v1/client/allocation/{id}/exec": readWrite(object(server.ObjectAlloc, acl.NamespaceCapabilityAllocExec), object(server.ObjectAlloc, acl.NamespaceCapabilityAllocExec)),
	"/v1/client/fs/readat/{id}":       readOnly(object(server.ObjectAlloc, capReadFS)),
	// Or the alloc's migrate token (authorizeRequest, validMigrateToken).
	snapshotPath:                         readOnly(object(server.ObjectAlloc, capReadFS)),
	"/v1/client/allocation/{id}/checks":  readOnly(object(server.ObjectAlloc, capReadJob)),
	"/v1/client/allocation/{id}/stats":   readOnly(object(server.ObjectAlloc, capReadJob)),
	"/v1/client/allocation/{id}/restart": writeOnly(object(server.ObjectAlloc, capLifecycle)),
	"/v1/client/allocation/{id}/signal":  writeOnly(object(server.ObjectAlloc, capLifecycle)),
	"/v1/client/allocation/{id}/gc":      readWrite(object(server.ObjectAlloc, capLifecycle), object(server.ObjectAlloc, capLifecycle)),
	"/v1/client/gc":                      readWrite(nodeWrite, nodeWrite),
	"/v1/client/stats":                   readOnly(nodeRead),
	"/v1/client/metadata":                readWrite(nodeRead, nodeWrite),
}
