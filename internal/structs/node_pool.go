package structs

import (
	"maps"
	"regexp"
)

// NodePool groups client nodes; a job runs only on nodes of its pool
// ("all" spans every node). "default" and "all" are built in; a pool a
// node registers into is created on the fly, as Nomad does.
type NodePool struct {
	Name        string
	Description string
	Meta        map[string]string

	CreateIndex uint64
	ModifyIndex uint64
}

// Descriptions of the built-in pools.
const (
	defaultNodePoolDescription = "Default node pool."
	allNodePoolDescription     = "Node pool with all nodes in the cluster."
)

// BuiltinNodePools are the pools every cluster has without a raft entry,
// in name order.
func BuiltinNodePools() []*NodePool {
	return []*NodePool{
		{Name: AllNodePools, Description: allNodePoolDescription},
		{Name: DefaultNodePool, Description: defaultNodePoolDescription},
	}
}

// IsBuiltinNodePool reports whether name is "all" or "default".
func IsBuiltinNodePool(name string) bool { return name == AllNodePools || name == DefaultNodePool }

// Copy returns a deep copy.
func (p *NodePool) Copy() *NodePool {
	if p == nil {
		return nil
	}
	c := *p
	c.Meta = maps.Clone(p.Meta)
	return &c
}

// nodePoolName is Nomad's rule: 1 to 128 letters, digits, dashes and
// underscores.
var nodePoolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)

// Validate checks a pool as submitted.
func (p *NodePool) Validate() error {
	v := newValidator()
	if !nodePoolName.MatchString(p.Name) {
		v.fail("Name", "must be 1-128 letters, digits, dashes or underscores, got %q", p.Name)
	}
	if IsBuiltinNodePool(p.Name) {
		v.fail("Name", "%q is a built-in node pool and cannot be changed", p.Name)
	}
	if len(p.Description) > 256 {
		v.fail("Description", "must be at most 256 characters, got %d", len(p.Description))
	}
	return v.err()
}

// NodePoolUpsertRequest (raft) creates or replaces pools.
type NodePoolUpsertRequest struct {
	NodePools []*NodePool
}

// NodePoolDeleteRequest (raft) deletes pools by name.
type NodePoolDeleteRequest struct {
	Names []string
}

// Event types of the NodePool topic.
const (
	TypeNodePoolUpserted = "NodePoolUpserted"
	TypeNodePoolDeleted  = "NodePoolDeleted"
)

// NodePoolEvent is the payload of a NodePool-topic event.
type NodePoolEvent struct{ NodePool *NodePool }
