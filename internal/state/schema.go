package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// Table names. They double as the keys of the index table, so blocking
// queries can ask for "the last raft index that changed table X".
const (
	TableJobs            = "jobs"
	TableJobVersion      = "job_version"
	TableNodes           = "nodes"
	TableAllocs          = "allocs"
	TableEvals           = "evals"
	TableDeployment      = "deployment"
	TableSchedulerConfig = "scheduler_config"
	TableAutopilotConfig = "autopilot_config"
	TableIndex           = "index"
)

// stateSchema builds the memdb schema. Every table has a unique "id" index,
// which Persist iterates, so snapshots come out in a deterministic order.
func stateSchema() *memdb.DBSchema {
	tables := []*memdb.TableSchema{
		jobsTable(), jobVersionTable(), nodesTable(), allocsTable(),
		evalsTable(), deploymentTable(), schedulerConfigTable(), indexTable(),
		aclPolicyTable(), aclTokenTable(), aclRoleTable(),
		aclAuthMethodTable(), aclBindingRuleTable(), oneTimeTokenTable(), oidcRequestTable(),
		scalingEventTable(), jobSubmissionTable(), nodePoolsTable(),
		namespacesTable(),
		serviceRegistrationsTable(), variablesTable(), rootKeysTable(),
		autopilotConfigTable(), nodeUsageTable(),
	}
	db := &memdb.DBSchema{Tables: map[string]*memdb.TableSchema{}}
	for _, t := range tables {
		db.Tables[t.Name] = t
	}
	return db
}

// str indexes a required string field.
func str(field string) *memdb.StringFieldIndex { return &memdb.StringFieldIndex{Field: field} }

// nsAnd is the compound (Namespace, field) key used for per-namespace IDs.
func nsAnd(field string) *memdb.CompoundIndex {
	return &memdb.CompoundIndex{Indexes: []memdb.Indexer{str("Namespace"), str(field)}}
}

func unique(name string, idx memdb.Indexer) *memdb.IndexSchema {
	return &memdb.IndexSchema{Name: name, Unique: true, Indexer: idx}
}

// optional indexes a field that may be empty; such rows are left out of it.
func optional(name string, idx memdb.Indexer) *memdb.IndexSchema {
	return &memdb.IndexSchema{Name: name, AllowMissing: true, Indexer: idx}
}

func jobsTable() *memdb.TableSchema {
	// Only periodic parents are in "periodic" (periodicIndex): the periodic
	// dispatcher lists and watches them, and a write of any other job
	// neither costs an entry there nor wakes it. Likewise only system and
	// sysbatch jobs are in "type" (nodeJobTypeIndex): a node registering
	// reads those, and service and batch jobs, nearly all of a cluster's,
	// would pay an index entry rewritten on every write of the job (its
	// register and each status change) for a read nothing makes. The jobs
	// of any other type, and the jobs of a status, are read by filtering
	// "id" (JobsByType, JobsByStatus).
	return &memdb.TableSchema{Name: TableJobs, Indexes: map[string]*memdb.IndexSchema{
		"id":       unique("id", ixJobKey),
		"type":     optional("type", nodeJobTypeIndex{ixJobType}),
		"periodic": {Name: "periodic", AllowMissing: true, Indexer: periodicIndex},
	}}
}

func jobVersionTable() *memdb.TableSchema {
	// "job" is non-unique, and memdb orders equal keys by primary key, so
	// the versions of one job come out oldest first. Both keys are built
	// without reflection (typed_index.go): every job register writes them.
	return &memdb.TableSchema{Name: TableJobVersion, Indexes: map[string]*memdb.IndexSchema{
		"id":  unique("id", ixJobVersionID),
		"job": {Name: "job", Indexer: ixJobVersionJob},
	}}
}

func nodesTable() *memdb.TableSchema {
	// "draining" lets the drainer read and watch only draining nodes, so
	// node registrations elsewhere do not wake it (O(N) each, O(N^2) as a
	// cluster fills).
	// Only draining nodes are in it (drainingIndex), so the other nodes do
	// not pay for an index entry.
	return &memdb.TableSchema{Name: TableNodes, Indexes: map[string]*memdb.IndexSchema{
		"id":        unique("id", ixNodeID),
		"secret_id": {Name: "secret_id", Unique: true, AllowMissing: true, Indexer: ixNodeSecretID},
		"draining":  {Name: "draining", AllowMissing: true, Indexer: drainingIndex},
	}}
}

func allocsTable() *memdb.TableSchema {
	// Every index entry costs an alloc about 400 bytes (radix node, leaf,
	// two watch channels, key) and its writes a radix insert on every
	// server, so allocs have only the indexes that no other can serve: a
	// node's live allocs are its node_usage row (node_usage.go), its
	// terminal ones are in node_terminal (AllocsByNode reads both), a
	// namespace's come from "id" (Allocs) and an eval's from its job's
	// (AllocsByEval). The string keys are read without reflection
	// (typed_index.go): a plan writes many allocs, and every server
	// applies it.
	return &memdb.TableSchema{Name: TableAllocs, Indexes: map[string]*memdb.IndexSchema{
		"id":            unique("id", ixAllocID),
		"job":           optional("job", ixAllocJob),
		"node_terminal": optional("node_terminal", ixAllocNodeTerminal),
		"deployment":    optional("deployment", ixAllocDeploymentID),
	}}
}

func evalsTable() *memdb.TableSchema {
	// Terminal evals, nearly all of a big table, have two index entries:
	// "status" holds only live evals (EvalsByStatus scans "id" for the
	// others) and a namespace's evals come from "id" (Evals).
	// "job" keys an eval by (namespace, job, terminal), so a job's status
	// asks whether it has a live eval without reading its whole history.
	return &memdb.TableSchema{Name: TableEvals, Indexes: map[string]*memdb.IndexSchema{
		"id":     unique("id", ixEvalID),
		"job":    optional("job", ixEvalJob),
		"status": optional("status", liveEvalStatusIndex{ixEvalStatus}),
	}}
}

func deploymentTable() *memdb.TableSchema {
	// Only running deployments are in "running" (runningDeploymentIndex):
	// the deployment watcher lists and watches them, so a finished
	// deployment costs it nothing until GC removes it.
	return &memdb.TableSchema{Name: TableDeployment, Indexes: map[string]*memdb.IndexSchema{
		"id":        unique("id", str("ID")),
		"job":       optional("job", nsAnd("JobID")),
		"namespace": optional("namespace", str("Namespace")),
		"running":   {Name: "running", AllowMissing: true, Indexer: runningDeploymentIndex},
	}}
}

func indexTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableIndex, Indexes: map[string]*memdb.IndexSchema{
		"id": unique("id", ixIndexKey),
	}}
}

// singletonIndex gives every object the same key, so a table indexed by it
// holds at most one row (the scheduler configuration).
type singletonIndex struct{}

var singletonKey = []byte{1}

func (singletonIndex) FromObject(any) (bool, []byte, error) { return true, singletonKey, nil }

func (singletonIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 0 {
		return nil, fmt.Errorf("singleton index takes no arguments, got %d", len(args))
	}
	return singletonKey, nil
}

// flagIndex indexes the rows for which has is true, under true, and
// leaves the others out, unlike memdb's ConditionalIndex, which indexes
// every row: a row that lacks the flag pays for no index entry.
type flagIndex[T any] struct {
	name string
	has  func(*T) bool
}

func (i flagIndex[T]) FromObject(obj any) (bool, []byte, error) {
	row, ok := obj.(*T)
	if !ok {
		return false, nil, fmt.Errorf("%s index: unexpected type %T", i.name, obj)
	}
	if !i.has(row) {
		return false, nil, nil
	}
	return true, []byte{1}, nil
}

func (i flagIndex[T]) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 1 || args[0] != true {
		return nil, fmt.Errorf("%s index takes the single argument true, got %v", i.name, args)
	}
	return []byte{1}, nil
}

// drainingIndex holds the draining nodes.
var drainingIndex = flagIndex[structs.Node]{name: "draining", has: func(n *structs.Node) bool { return n.DrainStrategy != nil }}

// runningDeploymentIndex holds the deployments in status running.
var runningDeploymentIndex = flagIndex[structs.Deployment]{name: "running", has: func(d *structs.Deployment) bool {
	return d.Status == structs.DeploymentStatusRunning
}}

// periodicIndex holds the jobs with an enabled periodic block.
var periodicIndex = flagIndex[structs.Job]{name: "periodic", has: (*structs.Job).IsPeriodic}

// nodeJobTypeIndex indexes the type of system and sysbatch jobs only
// (indexedJobType), under the keys a type index of every job gave them.
type nodeJobTypeIndex struct {
	typedString[structs.Job]
}

func (i nodeJobTypeIndex) FromObject(obj any) (bool, []byte, error) {
	if j, ok := obj.(*structs.Job); ok && !indexedJobType(j.Type) {
		return false, nil, nil
	}
	return i.typedString.FromObject(obj)
}

// indexedJobType reports whether jobs of type t are in the jobs table's
// "type" index: the types whose jobs run on every node.
func indexedJobType(t string) bool {
	return t == structs.JobTypeSystem || t == structs.JobTypeSysBatch
}

// liveEvalStatusIndex indexes the status of evals that are not terminal.
type liveEvalStatusIndex struct {
	typedString[structs.Evaluation]
}

func (i liveEvalStatusIndex) FromObject(obj any) (bool, []byte, error) {
	if e, ok := obj.(*structs.Evaluation); ok && e.TerminalStatus() {
		return false, nil, nil
	}
	return i.typedString.FromObject(obj)
}
