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

func (s typedString[T]) FromArgs(args ...any) ([]byte, error) {
	return (&memdb.StringFieldIndex{}).FromArgs(args...)
}

func (s typedString[T]) PrefixFromArgs(args ...any) ([]byte, error) {
	return (&memdb.StringFieldIndex{}).PrefixFromArgs(args...)
}

// allocStr indexes an alloc's string field.
func allocStr(field string, get func(*structs.Allocation) string) typedString[structs.Allocation] {
	return typedString[structs.Allocation]{field: field, get: get}
}

var (
	ixAllocID           = allocStr("ID", func(a *structs.Allocation) string { return a.ID })
	ixAllocNamespace    = allocStr("Namespace", func(a *structs.Allocation) string { return a.Namespace })
	ixAllocJobID        = allocStr("JobID", func(a *structs.Allocation) string { return a.JobID })
	ixAllocNodeID       = allocStr("NodeID", func(a *structs.Allocation) string { return a.NodeID })
	ixAllocDeploymentID = allocStr("DeploymentID", func(a *structs.Allocation) string { return a.DeploymentID })
)
