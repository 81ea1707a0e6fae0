package server

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// ServiceRegistrationEndpoint is the ServiceRegistration.* family: the
// native service catalog (`provider = "nomad"`). Clients write it for the
// allocs they run; everyone reads it.
type ServiceRegistrationEndpoint struct{ srv *Server }

// Upsert writes a client's registrations. The client authenticates with
// its node secret; the server fills what it knows better than the client
// (node, datacenter, namespace, job) from its own records, and refuses
// registrations of allocs that are not on the calling node.
func (e *ServiceRegistrationEndpoint) Upsert(ctx context.Context, args *structs.ServiceRegistrationUpsertRequest) (*structs.ServiceRegistrationUpsertResponse, error) {
	reply := &structs.ServiceRegistrationUpsertResponse{}
	node, err := (&NodeEndpoint{srv: e.srv}).authenticate(args.NodeID, args.SecretID)
	if err != nil {
		return nil, err
	}
	if len(args.Services) == 0 {
		return nil, BadRequest("Services: no registrations")
	}
	regs := make([]*structs.ServiceRegistration, 0, len(args.Services))
	for i, in := range args.Services {
		reg, err := e.trusted(node, in)
		if err != nil {
			return nil, BadRequest("Services[%d].%v", i, err)
		}
		regs = append(regs, reg)
	}
	index, err := e.srv.raftApply(ctx, structs.ServiceRegistrationUpsertRequestType,
		&structs.ServiceRegistrationUpsertRequest{Services: regs, NodeID: node.ID})
	reply.Index = index
	return reply, err
}

// trusted validates one registration against the node and its alloc.
func (e *ServiceRegistrationEndpoint) trusted(node *structs.Node, in *structs.ServiceRegistration) (*structs.ServiceRegistration, error) {
	if in == nil {
		return nil, fmt.Errorf("ID: missing registration")
	}
	alloc, err := e.srv.State().AllocByID(nil, in.AllocID)
	if err != nil {
		return nil, err
	}
	if alloc == nil || alloc.NodeID != node.ID {
		return nil, fmt.Errorf("AllocID: allocation %q is not on node %s", in.AllocID, node.ID)
	}
	reg := in.Copy()
	reg.NodeID, reg.Datacenter = node.ID, node.Datacenter
	reg.Namespace, reg.JobID = alloc.Namespace, alloc.JobID
	if err := reg.Validate(); err != nil {
		return nil, err
	}
	return reg, nil
}

// DeleteByID deletes registrations. A client (NodeID set) may delete only
// its own node's, and unknown IDs are no error (it retries after a
// failure); an operator's delete of an unknown ID is a 404.
func (e *ServiceRegistrationEndpoint) DeleteByID(ctx context.Context, args *structs.ServiceRegistrationDeleteByIDRequest) (*structs.ServiceRegistrationUpsertResponse, error) {
	reply := &structs.ServiceRegistrationUpsertResponse{}
	if len(args.IDs) == 0 {
		return nil, BadRequest("IDs: no registration to delete")
	}
	var ids []string
	if args.NodeID != "" {
		if _, err := (&NodeEndpoint{srv: e.srv}).authenticate(args.NodeID, args.SecretID); err != nil {
			return nil, err
		}
		for _, id := range args.IDs {
			reg, err := e.srv.State().ServiceRegistrationByID(nil, id)
			if err != nil {
				return nil, err
			}
			if reg != nil && reg.NodeID == args.NodeID {
				ids = append(ids, id)
			}
		}
	} else {
		for _, id := range args.IDs {
			reg, err := e.srv.State().ServiceRegistrationByID(nil, id)
			if err != nil {
				return nil, err
			}
			if reg == nil || reg.Namespace != namespaceOf(args.Namespace) ||
				(args.ServiceName != "" && reg.ServiceName != args.ServiceName) {
				return nil, NotFound("service registration %q not found", id)
			}
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		reply.Index = e.srv.State().Index(state.TableServiceRegistrations)
		return reply, nil
	}
	index, err := e.srv.raftApply(ctx, structs.ServiceRegistrationDeleteByIDRequestType,
		&structs.ServiceRegistrationDeleteByIDRequest{IDs: ids})
	reply.Index = index
	return reply, err
}

// List answers one stub per namespace: its service names and the union of
// each one's tags.
func (e *ServiceRegistrationEndpoint) List(ctx context.Context, args *structs.ServiceRegistrationListRequest) (*structs.ServiceRegistrationListResponse, error) {
	reply := &structs.ServiceRegistrationListResponse{}
	match, err := filterFunc[*structs.ServiceRegistration](args.Filter)
	if err != nil {
		return nil, err
	}
	ns := pageOptions(&args.QueryOptions).Namespace
	visible, err := e.srv.auth.NamespaceVisible(args, acl.NamespaceCapabilityReadJob)
	if err != nil {
		return nil, err
	}
	err = e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		regs, err := st.ServiceRegistrations(ws, ns)
		if err != nil {
			return 0, err
		}
		regs = slices.DeleteFunc(slices.Clone(regs), func(r *structs.ServiceRegistration) bool { return !visible(r.Namespace) })
		reply.Services, err = serviceStubs(regs, match)
		return st.Index(state.TableServiceRegistrations), err
	})
	return reply, err
}

// serviceStubs groups registrations (ordered by namespace, then name) into
// Nomad's list shape; tags are de-duplicated and sorted.
func serviceStubs(regs []*structs.ServiceRegistration, match func(*structs.ServiceRegistration) (bool, error)) ([]*structs.ServiceRegistrationListStub, error) {
	out := []*structs.ServiceRegistrationListStub{}
	var ns *structs.ServiceRegistrationListStub
	var svc *structs.ServiceRegistrationStub
	for _, reg := range regs {
		if ok, err := match(reg); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		if ns == nil || ns.Namespace != reg.Namespace {
			ns = &structs.ServiceRegistrationListStub{Namespace: reg.Namespace}
			out, svc = append(out, ns), nil
		}
		if svc == nil || svc.ServiceName != reg.ServiceName {
			svc = &structs.ServiceRegistrationStub{ServiceName: reg.ServiceName, Tags: []string{}}
			ns.Services = append(ns.Services, svc)
		}
		for _, tag := range reg.Tags {
			if i, found := slices.BinarySearch(svc.Tags, tag); !found {
				svc.Tags = slices.Insert(svc.Tags, i, tag)
			}
		}
	}
	return out, nil
}

// GetService answers the registrations of one service name, filtered, and
// with Choose only the N picked for the key.
func (e *ServiceRegistrationEndpoint) GetService(ctx context.Context, args *structs.ServiceRegistrationByNameRequest) (*structs.ServiceRegistrationsResponse, error) {
	reply := &structs.ServiceRegistrationsResponse{}
	n, key, err := parseChoose(args.Choose)
	if err != nil {
		return nil, err
	}
	match, err := filterFunc[*structs.ServiceRegistration](args.Filter)
	if err != nil {
		return nil, err
	}
	ns := namespaceOf(args.Namespace)
	err = e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		regs, err := st.ServiceRegistrationsByName(ws, ns, args.ServiceName)
		if err != nil {
			return 0, err
		}
		if regs, err = keep(regs, match); err != nil {
			return 0, err
		}
		reply.Services = choose(regs, n, key)
		return st.Index(state.TableServiceRegistrations), nil
	})
	return reply, err
}

// ByJob answers a job's registrations.
func (e *ServiceRegistrationEndpoint) ByJob(ctx context.Context, args *structs.ServiceRegistrationByJobRequest) (*structs.ServiceRegistrationsResponse, error) {
	reply := &structs.ServiceRegistrationsResponse{}
	ns := namespaceOf(args.Namespace)
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		reply.Services, err = st.ServiceRegistrationsByJob(ws, ns, args.JobID)
		if reply.Services == nil {
			reply.Services = []*structs.ServiceRegistration{}
		}
		return st.Index(state.TableServiceRegistrations), err
	})
	return reply, err
}

// ByAlloc answers an allocation's registrations; Services is nil when the
// allocation is unknown (the HTTP handler answers 404).
func (e *ServiceRegistrationEndpoint) ByAlloc(ctx context.Context, args *structs.ServiceRegistrationByAllocRequest) (*structs.ServiceRegistrationsResponse, error) {
	reply := &structs.ServiceRegistrationsResponse{}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		alloc, err := st.AllocByID(ws, args.AllocID)
		if err != nil || alloc == nil {
			reply.Services = nil
			return st.Index(state.TableAllocs), err
		}
		regs, err := st.ServiceRegistrationsByAlloc(ws, args.AllocID)
		reply.Services = append([]*structs.ServiceRegistration{}, regs...)
		return max(st.Index(state.TableServiceRegistrations), alloc.CreateIndex), err
	})
	return reply, err
}

// namespaceOf is the namespace a single-namespace request addresses.
func namespaceOf(ns string) string {
	if ns == "" {
		return structs.DefaultNamespace
	}
	return ns
}

// parseChoose reads `choose=N|key`; "" chooses everything.
func parseChoose(s string) (int, string, error) {
	if s == "" {
		return 0, "", nil
	}
	num, key, ok := strings.Cut(s, "|")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n <= 0 || key == "" {
		return 0, "", BadRequest("choose: %q is not <number>|<key> with a positive number and a key", s)
	}
	return n, key, nil
}

// choose keeps the n registrations ranking highest for key by rendezvous
// (highest random weight) hashing: every caller with the same key picks
// the same instances, and an instance leaving moves only its own callers.
func choose(regs []*structs.ServiceRegistration, n int, key string) []*structs.ServiceRegistration {
	if n == 0 || n >= len(regs) {
		return regs
	}
	ranked := slices.Clone(regs)
	sort.SliceStable(ranked, func(i, j int) bool {
		return structs.RendezvousWeight(key, ranked[i].ID) > structs.RendezvousWeight(key, ranked[j].ID)
	})
	return ranked[:n]
}

// keep returns the registrations match accepts.
func keep(regs []*structs.ServiceRegistration, match func(*structs.ServiceRegistration) (bool, error)) ([]*structs.ServiceRegistration, error) {
	out := []*structs.ServiceRegistration{}
	for _, r := range regs {
		ok, err := match(r)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, r)
		}
	}
	return out, nil
}
