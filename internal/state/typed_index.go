package state

import (
	"encoding/binary"
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// typedString is memdb.StringFieldIndex over one field of one type, read
// by a function instead of by reflection (StringFieldIndex looks the field
// up by name for every object, twice per index for an update): the same
// keys, the field's value and a NUL, none for an empty value.
// TestTypedStringMatchesStringFieldIndex holds it to StringFieldIndex.
type typedString[T any] struct {
	field string // for errors and the test
	get   func(*T) string
}

func (s typedString[T]) FromObject(obj any) (bool, []byte, error) {
	o, ok := obj.(*T)
	if !ok {
		return false, nil, fmt.Errorf("%s index: unexpected type %T", s.field, obj)
	}
	v := s.get(o)
	if v == "" {
		return false, nil, nil
	}
	key := make([]byte, len(v)+1) // the last byte is the NUL terminator
	copy(key, v)
	return true, key, nil
}

// FromArgs is StringFieldIndex's, in one allocation instead of two (every
// lookup by ID builds one).
func (s typedString[T]) FromArgs(args ...any) ([]byte, error) {
	if len(args) == 1 {
		if v, ok := args[0].(string); ok {
			key := make([]byte, len(v)+1) // the last byte is the NUL terminator
			copy(key, v)
			return key, nil
		}
	}
	return (&memdb.StringFieldIndex{}).FromArgs(args...)
}

func (s typedString[T]) PrefixFromArgs(args ...any) ([]byte, error) {
	return (&memdb.StringFieldIndex{}).PrefixFromArgs(args...)
}

// allocStr indexes an alloc's string field.
func allocStr(field string, get func(*structs.Allocation) string) typedString[structs.Allocation] {
	return typedString[structs.Allocation]{field: field, get: get}
}

// The string indexes of the tables every plan result writes (evals, jobs,
// the index rows, node usage) and of nodes.
var (
	ixEvalID        = typedString[structs.Evaluation]{"ID", func(e *structs.Evaluation) string { return e.ID }}
	ixEvalNamespace = typedString[structs.Evaluation]{"Namespace", func(e *structs.Evaluation) string { return e.Namespace }}
	ixEvalJobID     = typedString[structs.Evaluation]{"JobID", func(e *structs.Evaluation) string { return e.JobID }}
	ixEvalStatus    = typedString[structs.Evaluation]{"Status", func(e *structs.Evaluation) string { return e.Status }}
	ixJobNamespace  = typedString[structs.Job]{"Namespace", func(j *structs.Job) string { return j.Namespace }}
	ixJobID         = typedString[structs.Job]{"ID", func(j *structs.Job) string { return j.ID }}
	ixJobType       = typedString[structs.Job]{"Type", func(j *structs.Job) string { return j.Type }}
	ixNodeID        = typedString[structs.Node]{"ID", func(n *structs.Node) string { return n.ID }}
	ixNodeSecretID  = typedString[structs.Node]{"SecretID", func(n *structs.Node) string { return n.SecretID }}
	ixIndexKey      = typedString[IndexEntry]{"Key", func(e *IndexEntry) string { return e.Key }}
	ixUsageNodeID   = typedString[structs.NodeUsage]{"NodeID", func(u *structs.NodeUsage) string { return u.NodeID }}
)

var (
	ixAllocID           = allocStr("ID", func(a *structs.Allocation) string { return a.ID })
	ixAllocNamespace    = allocStr("Namespace", func(a *structs.Allocation) string { return a.Namespace })
	ixAllocJobID        = allocStr("JobID", func(a *structs.Allocation) string { return a.JobID })
	ixAllocNodeID       = allocStr("NodeID", func(a *structs.Allocation) string { return a.NodeID })
	ixAllocDeploymentID = allocStr("DeploymentID", func(a *structs.Allocation) string { return a.DeploymentID })
)

// typedPair is memdb's CompoundIndex of two typedStrings (a namespace and
// an ID): the same keys, first NUL second NUL, none when either is empty,
// built in one allocation where the CompoundIndex takes four (a key per
// part and two appends) for every row written and every lookup.
// TestTypedPairMatchesCompound holds it to the CompoundIndex, which still
// answers what the pair does not read itself (prefixes, odd arguments).
type typedPair[T any] struct {
	first, second typedString[T]
	compound      *memdb.CompoundIndex
}

func newTypedPair[T any](first, second typedString[T]) typedPair[T] {
	return typedPair[T]{first: first, second: second,
		compound: &memdb.CompoundIndex{Indexes: []memdb.Indexer{first, second}}}
}

func (p typedPair[T]) FromObject(obj any) (bool, []byte, error) {
	o, ok := obj.(*T)
	if !ok {
		return p.compound.FromObject(obj) // its error
	}
	a, b := p.first.get(o), p.second.get(o)
	if a == "" || b == "" {
		return false, nil, nil
	}
	return true, pairKey(a, b), nil
}

func (p typedPair[T]) FromArgs(args ...any) ([]byte, error) {
	if len(args) == 2 {
		a, okA := args[0].(string)
		b, okB := args[1].(string)
		if okA && okB {
			return pairKey(a, b), nil
		}
	}
	return p.compound.FromArgs(args...)
}

func (p typedPair[T]) PrefixFromArgs(args ...any) ([]byte, error) {
	return p.compound.PrefixFromArgs(args...)
}

func pairKey(a, b string) []byte {
	key := make([]byte, len(a)+1+len(b)+1) // each part NUL-terminated
	copy(key, a)
	copy(key[len(a)+1:], b)
	return key
}

// The (namespace, job) keys of the allocs and jobs tables: every placement
// writes one, every job write and job lookup builds one.
var (
	ixAllocJob = newTypedPair(ixAllocNamespace, ixAllocJobID)
	ixJobKey   = newTypedPair(ixJobNamespace, ixJobID)
)

// jobVersionKey is the job_version table's id, memdb's CompoundIndex of
// (Namespace, ID, Version) over StringFieldIndex and UintFieldIndex
// (jobVersionCompound): the same keys (namespace NUL ID NUL, the version
// in 8 big-endian bytes), read without reflection and built in one
// allocation. TestJobVersionIndexesMatchCompound holds both job_version
// indexes to the CompoundIndexes they replace.
type jobVersionKey struct{}

var ixJobVersionID jobVersionKey

// jobVersionCompound is the index jobVersionKey replaces; it answers what
// jobVersionKey does not read itself (prefixes, odd arguments).
var jobVersionCompound = &memdb.CompoundIndex{Indexes: []memdb.Indexer{
	str("Namespace"), str("ID"), &memdb.UintFieldIndex{Field: "Version"},
}}

func (jobVersionKey) FromObject(obj any) (bool, []byte, error) {
	j, ok := obj.(*structs.Job)
	if !ok {
		return jobVersionCompound.FromObject(obj) // its error
	}
	if j.Namespace == "" || j.ID == "" {
		return false, nil, nil
	}
	return true, jobVersionKeyOf(j.Namespace, j.ID, j.Version), nil
}

func (jobVersionKey) FromArgs(args ...any) ([]byte, error) {
	if len(args) == 3 {
		ns, okNS := args[0].(string)
		id, okID := args[1].(string)
		v, okV := args[2].(uint64)
		if okNS && okID && okV {
			return jobVersionKeyOf(ns, id, v), nil
		}
	}
	return jobVersionCompound.FromArgs(args...)
}

func (jobVersionKey) PrefixFromArgs(args ...any) ([]byte, error) {
	return jobVersionCompound.PrefixFromArgs(args...)
}

func jobVersionKeyOf(ns, id string, version uint64) []byte {
	key := make([]byte, len(ns)+1+len(id)+1+8)
	copy(key, ns)
	copy(key[len(ns)+1:], id)
	binary.BigEndian.PutUint64(key[len(ns)+1+len(id)+1:], version)
	return key
}

// ixJobVersionJob is job_version's "job": the versions of one job.
var ixJobVersionJob = newTypedPair(ixJobNamespace, ixJobID)

// evalJobCompound is the evals table's "job" index as memdb's
// CompoundIndex of (Namespace, JobID, terminal): ixEvalJob builds its keys
// without it and leaves it what it does not read itself (prefixes, odd
// arguments).
var evalJobCompound = &memdb.CompoundIndex{Indexes: []memdb.Indexer{ixEvalNamespace, ixEvalJobID,
	&memdb.ConditionalIndex{Conditional: func(obj any) (bool, error) {
		e, ok := obj.(*structs.Evaluation)
		if !ok {
			return false, fmt.Errorf("unexpected type %T", obj)
		}
		return e.TerminalStatus(), nil
	}}}}

// evalJobIndex keys an eval by (namespace, job, terminal): namespace NUL
// job NUL and a byte, 1 for a terminal eval, 0 for a live one, as
// evalJobCompound does, in one allocation instead of six. Every eval write
// and every job status check (is there a live eval?) builds one.
// TestEvalJobIndexMatchesCompound holds it to evalJobCompound.
type evalJobIndex struct{}

var ixEvalJob evalJobIndex

func (evalJobIndex) FromObject(obj any) (bool, []byte, error) {
	e, ok := obj.(*structs.Evaluation)
	if !ok {
		return evalJobCompound.FromObject(obj) // its error
	}
	if e.Namespace == "" || e.JobID == "" {
		return false, nil, nil
	}
	return true, evalJobKey(e.Namespace, e.JobID, e.TerminalStatus()), nil
}

func (evalJobIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) == 3 {
		ns, okNS := args[0].(string)
		job, okJob := args[1].(string)
		terminal, okT := args[2].(bool)
		if okNS && okJob && okT {
			return evalJobKey(ns, job, terminal), nil
		}
	}
	return evalJobCompound.FromArgs(args...)
}

func (evalJobIndex) PrefixFromArgs(args ...any) ([]byte, error) {
	return evalJobCompound.PrefixFromArgs(args...)
}

func evalJobKey(ns, job string, terminal bool) []byte {
	key := make([]byte, len(ns)+1+len(job)+1+1)
	copy(key, ns)
	copy(key[len(ns)+1:], job)
	if terminal {
		key[len(key)-1] = 1
	}
	return key
}

// nodeTerminalIndex holds the terminal allocs placed on a node, under the
// node's ID; live allocs and allocs without a node are left out. The keys
// are those memdb's CompoundIndex of (NodeID string, terminal
// ConditionalIndex) gave the terminal allocs: the node ID, a NUL and 1.
type nodeTerminalIndex struct{}

var ixAllocNodeTerminal nodeTerminalIndex

func (nodeTerminalIndex) FromObject(obj any) (bool, []byte, error) {
	a, ok := obj.(*structs.Allocation)
	if !ok {
		return false, nil, fmt.Errorf("node_terminal index: unexpected type %T", obj)
	}
	if a.NodeID == "" || !a.TerminalStatus() {
		return false, nil, nil
	}
	return true, nodeTerminalKey(a.NodeID), nil
}

// FromArgs takes the node ID.
func (nodeTerminalIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("node_terminal index takes the node ID, got %d arguments", len(args))
	}
	id, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("node_terminal index: argument must be a string: %#v", args[0])
	}
	return nodeTerminalKey(id), nil
}

func nodeTerminalKey(nodeID string) []byte {
	key := make([]byte, len(nodeID)+2)
	copy(key, nodeID)
	key[len(nodeID)+1] = 1 // after the NUL terminator
	return key
}
