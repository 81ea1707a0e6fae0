package state

import (
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
