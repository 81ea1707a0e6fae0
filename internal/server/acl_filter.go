package server

import (
	"slices"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// visibleOnly narrows a list's match to objects in namespaces where the
// caller holds capability, so a list with namespace=* answers (and pages
// over) only what the caller may see. match may be nil (keep all).
func visibleOnly[T any](s *Server, args structs.RPCInfo, capability string, nsOf func(*T) string, match state.MatchFunc[T]) (state.MatchFunc[T], error) {
	a, err := s.ResolveToken(args.RequestToken())
	if err != nil || a.IsManagement() {
		return match, err
	}
	return func(obj *T) (bool, error) {
		if !a.AllowNamespaceOperation(nsOf(obj), capability) {
			return false, nil
		}
		if match == nil {
			return true, nil
		}
		return match(obj)
	}, nil
}

// visibleAllocs drops the allocations the caller may not read (a node's
// allocations span namespaces).
func (s *Server) visibleAllocs(args structs.RPCInfo, allocs []*structs.Allocation) ([]*structs.Allocation, error) {
	a, err := s.ResolveToken(args.RequestToken())
	if err != nil || a.IsManagement() {
		return allocs, err
	}
	return slices.DeleteFunc(slices.Clone(allocs), func(al *structs.Allocation) bool {
		return !a.AllowNamespaceOperation(al.Namespace, acl.NamespaceCapabilityReadJob)
	}), nil
}

// searchableContexts drops the node contexts from a search by a caller
// without node read.
func (s *Server) searchableContexts(args structs.RPCInfo, contexts []string) ([]string, error) {
	a, err := s.ResolveToken(args.RequestToken())
	if err != nil || a.AllowNodeRead() {
		return contexts, err
	}
	return slices.DeleteFunc(slices.Clone(contexts), func(c string) bool {
		return c == structs.SearchContextNodes || c == structs.SearchContextNodePools
	}), nil
}

// visibleNamespaces keeps the namespaces the caller holds a capability in.
func (s *Server) visibleNamespaces(args structs.RPCInfo, all []*structs.Namespace) ([]*structs.Namespace, error) {
	a, err := s.ResolveToken(args.RequestToken())
	if err != nil || a.IsManagement() {
		return all, err
	}
	return slices.DeleteFunc(slices.Clone(all), func(ns *structs.Namespace) bool { return !a.AllowNamespace(ns.Name) }), nil
}

// visibleEvents keeps the events of a batch the caller may read: node
// events with node read, the others with read-job in their namespace.
func (s *Server) visibleEvents(args structs.RPCInfo, b *structs.Events) (*structs.Events, error) {
	a, err := s.ResolveToken(args.RequestToken())
	if err != nil || a.IsManagement() {
		return b, err
	}
	out := &structs.Events{Index: b.Index}
	for _, ev := range b.Events {
		switch ev.Topic {
		case structs.TopicNode, structs.TopicNodePool:
			if !a.AllowNodeRead() {
				continue
			}
		default:
			if !a.AllowNamespaceOperation(ev.Namespace, acl.NamespaceCapabilityReadJob) {
				continue
			}
		}
		out.Events = append(out.Events, ev)
	}
	return out, nil
}

// namespaceVisible returns whether the caller holds capability in a
// namespace, for endpoints that filter as they read.
func (s *Server) namespaceVisible(args structs.RPCInfo, capability string) (func(ns string) bool, error) {
	a, err := s.ResolveToken(args.RequestToken())
	if err != nil {
		return nil, err
	}
	return func(ns string) bool { return a.AllowNamespaceOperation(ns, capability) }, nil
}

// authorizeVariableACL checks an ACL token's variables rules for path
// (read, or write for any change).
func (s *Server) authorizeVariableACL(token, namespace, path string, write bool) error {
	a, err := s.ResolveToken(token)
	if err != nil {
		return err
	}
	op := acl.VariablesCapabilityRead
	if write {
		op = acl.VariablesCapabilityWrite
	}
	if !a.AllowVariableOperation(namespace, path, op) {
		return ErrPermissionDenied
	}
	return nil
}

func jobNamespace(j *structs.Job) string          { return j.Namespace }
func allocNamespace(a *structs.Allocation) string { return a.Namespace }
func evalNamespace(e *structs.Evaluation) string  { return e.Namespace }
func deploymentNamespace(d *structs.Deployment) string {
	return d.Namespace
}
