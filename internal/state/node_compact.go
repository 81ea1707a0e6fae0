package state

import (
	"maps"
	"reflect"
	"slices"

	"github.com/drover-project/drover/internal/structs"
)

// Compact storage of nodes: nodes of one fleet have mostly the same
// attribute names and values, resources and drivers. The store keeps one
// copy of each repeated string (intern), and nodes whose attributes, meta,
// resources or drivers equal those of a recently stored node share that
// node's (immutable) object instead of holding their own.

// nodeShare remembers the last few distinct values of each shared field.
// Writers only, under the store's write lock.
type nodeShare struct {
	attrs     recent[map[string]string]
	resources recent[*structs.NodeResources]
	reserved  recent[*structs.NodeReservedResources]
	drivers   recent[map[string]*structs.DriverInfo]
}

// recentSize bounds each list: enough for a few node shapes, small enough
// that a miss costs a few comparisons.
const recentSize = 4

// recent is a small most-recently-used list of stored values.
type recent[T any] struct{ vals []T }

// share returns a remembered value equal to v, or remembers and returns v.
func (r *recent[T]) share(v T, equal func(a, b T) bool) T {
	for i, s := range r.vals {
		if equal(s, v) {
			if i > 0 { // move to front
				copy(r.vals[1:i+1], r.vals[:i])
				r.vals[0] = s
			}
			return s
		}
	}
	if len(r.vals) < recentSize {
		r.vals = append(r.vals, v)
	}
	copy(r.vals[1:], r.vals[:len(r.vals)-1])
	r.vals[0] = v
	return v
}

// compactNode shares n's fields with stored nodes where equal and interns
// its strings. n is the store's own copy, not yet stored.
func (tx *writeTxn) compactNode(n *structs.Node) {
	in, sh := tx.interner, tx.nodeShare
	n.ID, n.Datacenter, n.NodePool = in.intern(n.ID), in.intern(n.Datacenter), in.intern(n.NodePool)
	n.NodeClass, n.ComputedClass = in.intern(n.NodeClass), in.intern(n.ComputedClass)
	n.Status, n.SchedulingEligibility = in.intern(n.Status), in.intern(n.SchedulingEligibility)
	if sh == nil {
		return
	}
	n.Attributes = shareMap(&sh.attrs, internMap(in, n.Attributes))
	n.Meta = shareMap(&sh.attrs, internMap(in, n.Meta))
	n.Links = shareMap(&sh.attrs, internMap(in, n.Links))
	if n.NodeResources != nil {
		n.NodeResources = sh.resources.share(n.NodeResources, deepEqual)
	}
	if n.ReservedResources != nil {
		n.ReservedResources = sh.reserved.share(n.ReservedResources, deepEqual)
	}
	if len(n.Drivers) > 0 {
		n.Drivers = sh.drivers.share(n.Drivers, deepEqual)
	}
}

func shareMap(r *recent[map[string]string], m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	return r.share(m, maps.Equal)
}

func deepEqual[T any](a, b T) bool { return reflect.DeepEqual(a, b) }

// internMap interns m's keys and values in place (m is the store's copy).
func internMap(in *interner, m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[in.intern(k)] = in.intern(v)
	}
	return out
}

// modifiedNode returns a copy of a stored node to change: a shallow copy,
// since a change replaces nested objects instead of editing them. Events
// is clipped so an appended event never lands in a stored node's array.
func modifiedNode(existing *structs.Node) *structs.Node {
	c := *existing
	c.Events = slices.Clip(c.Events)
	return &c
}
