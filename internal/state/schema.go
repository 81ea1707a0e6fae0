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
	TableIndex           = "index"
)

// stateSchema builds the memdb schema. Every table has a unique "id" index,
// which Persist iterates, so snapshots come out in a deterministic order.
func stateSchema() *memdb.DBSchema {
	tables := []*memdb.TableSchema{
		jobsTable(), jobVersionTable(), nodesTable(), allocsTable(),
		evalsTable(), deploymentTable(), schedulerConfigTable(), indexTable(),
		scalingEventTable(), jobSubmissionTable(), nodePoolsTable(),
		namespacesTable(),
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
	return &memdb.TableSchema{Name: TableJobs, Indexes: map[string]*memdb.IndexSchema{
		"id":     unique("id", nsAnd("ID")),
		"status": optional("status", str("Status")),
		"type":   optional("type", str("Type")),
	}}
}

func jobVersionTable() *memdb.TableSchema {
	id := &memdb.CompoundIndex{Indexes: []memdb.Indexer{
		str("Namespace"), str("ID"), &memdb.UintFieldIndex{Field: "Version"},
	}}
	// "job" is non-unique, and memdb orders equal keys by primary key, so
	// the versions of one job come out oldest first.
	return &memdb.TableSchema{Name: TableJobVersion, Indexes: map[string]*memdb.IndexSchema{
		"id":  unique("id", id),
		"job": {Name: "job", Indexer: nsAnd("ID")},
	}}
}

func nodesTable() *memdb.TableSchema {
	// "draining" lets the drainer read and watch only draining nodes, so
	// node registrations elsewhere do not wake it (O(N) each, O(N^2) as a
	// cluster fills).
	draining := &memdb.ConditionalIndex{Conditional: func(obj any) (bool, error) {
		n, ok := obj.(*structs.Node)
		if !ok {
			return false, fmt.Errorf("unexpected type %T", obj)
		}
		return n.DrainStrategy != nil, nil
	}}
	return &memdb.TableSchema{Name: TableNodes, Indexes: map[string]*memdb.IndexSchema{
		"id":        unique("id", str("ID")),
		"secret_id": {Name: "secret_id", Unique: true, AllowMissing: true, Indexer: str("SecretID")},
		"draining":  {Name: "draining", Indexer: draining},
	}}
}

func allocsTable() *memdb.TableSchema {
	terminal := &memdb.ConditionalIndex{Conditional: func(obj any) (bool, error) {
		a, ok := obj.(*structs.Allocation)
		if !ok {
			return false, fmt.Errorf("unexpected type %T", obj)
		}
		return a.TerminalStatus(), nil
	}}
	return &memdb.TableSchema{Name: TableAllocs, Indexes: map[string]*memdb.IndexSchema{
		"id":         unique("id", str("ID")),
		"job":        optional("job", nsAnd("JobID")),
		"node":       optional("node", str("NodeID")),
		"node_term":  optional("node_term", &memdb.CompoundIndex{Indexes: []memdb.Indexer{str("NodeID"), terminal}}),
		"eval":       optional("eval", str("EvalID")),
		"deployment": optional("deployment", str("DeploymentID")),
		"namespace":  optional("namespace", str("Namespace")),
	}}
}

func evalsTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableEvals, Indexes: map[string]*memdb.IndexSchema{
		"id":        unique("id", str("ID")),
		"job":       optional("job", nsAnd("JobID")),
		"status":    optional("status", str("Status")),
		"namespace": optional("namespace", str("Namespace")),
	}}
}

func deploymentTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableDeployment, Indexes: map[string]*memdb.IndexSchema{
		"id":        unique("id", str("ID")),
		"job":       optional("job", nsAnd("JobID")),
		"namespace": optional("namespace", str("Namespace")),
	}}
}

func schedulerConfigTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableSchedulerConfig, Indexes: map[string]*memdb.IndexSchema{
		"id": unique("id", singletonIndex{}),
	}}
}

func indexTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableIndex, Indexes: map[string]*memdb.IndexSchema{
		"id": unique("id", str("Key")),
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
