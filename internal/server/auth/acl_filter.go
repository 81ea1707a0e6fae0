package auth

import (
	"slices"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// VisibleOnly narrows a list's match to objects in namespaces where the
// caller holds capability, so a list with namespace=* answers (and pages
// over) only what the caller may see. match may be nil (keep all).
func VisibleOnly[T any](s *Service, args structs.RPCInfo, capability string, nsOf func(*T) string, match state.MatchFunc[T]) (state.MatchFunc[T], error) {
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

// VisibleAllocs drops the allocations the caller may not read (a node's
// allocations span namespaces).
func (s *Service) VisibleAllocs(args structs.RPCInfo, allocs []*structs.Allocation) ([]*structs.Allocation, error) {
	a, err := s.ResolveToken(args.RequestToken())
	if err != nil || a.IsManagement() {
		return allocs, err
	}
	return slices.DeleteFunc(slices.Clone(allocs), func(al *structs.Allocation) bool {
		return !a.AllowNamespaceOperation(al.Namespace, acl.NamespaceCapabilityReadJob)
	}), nil
}

// SearchableContexts drops the node contexts from a search by a caller
// without node read.
func (s *Service) SearchableContexts(args structs.RPCInfo, contexts []string) ([]string, error) {
	a, err := s.ResolveToken(args.RequestToken())
	if err != nil || a.AllowNodeRead() {
		return contexts, err
	}
	return slices.DeleteFunc(slices.Clone(contexts), func(c string) bool {
		return c == structs.SearchContextNodes || c == structs.SearchContextNodePools
	}), nil
}

// VisibleNamespaces keeps the namespaces the caller holds a capability in.
func (s *Service) VisibleNamespaces(args structs.RPCInfo, all []*structs.Namespace) ([]*structs.Namespace, error) {
	a, err := s.ResolveToken(args.RequestToken())
	if err != nil || a.IsManagement() {
		return all, err
	}
	return slices.DeleteFunc(slices.Clone(all), func(ns *structs.Namespace) bool { return !a.AllowNamespace(ns.Name) }), nil
}

// VisibleEvents keeps the events of a batch the caller may read: node
// events with node read, the others with read-job in their namespace.
func (s *Service) VisibleEvents(args structs.RPCInfo, b *structs.Events) (*structs.Events, error) {
	a, err := s.ResolveToken(args.RequestToken())
	if err != nil || a.IsManagement() {
		return b, err
	}
	out := &structs.Events{Index: b.Index}
	for _, ev := range b.Events {
		if structs.ACLTopic(ev.Topic) {
			continue // management only
		}
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

// NamespaceVisible returns whether the caller holds capability in a
// namespace, for endpoints that filter as they read.
func (s *Service) NamespaceVisible(args structs.RPCInfo, capability string) (func(ns string) bool, error) {
	a, err := s.ResolveToken(args.RequestToken())
	if err != nil {
		return nil, err
	}
	return func(ns string) bool { return a.AllowNamespaceOperation(ns, capability) }, nil
}

// JobNamespace is a job's namespace, for VisibleOnly.
func JobNamespace(j *structs.Job) string { return j.Namespace }

// AllocNamespace is an allocation's namespace, for VisibleOnly.
func AllocNamespace(a *structs.Allocation) string { return a.Namespace }

// EvalNamespace is an evaluation's namespace, for VisibleOnly.
func EvalNamespace(e *structs.Evaluation) string { return e.Namespace }

// DeploymentNamespace is a deployment's namespace, for VisibleOnly.
func DeploymentNamespace(d *structs.Deployment) string {
	return d.Namespace
}
