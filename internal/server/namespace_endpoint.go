package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// NamespaceEndpoint is the Namespace.* endpoint family.
type NamespaceEndpoint struct{ srv *Server }

// List answers every namespace (with QueryOptions.Prefix, those whose name
// starts with it), "default" included.
func (e *NamespaceEndpoint) List(ctx context.Context, args *structs.NamespaceListRequest) (*structs.NamespaceListResponse, error) {
	reply := &structs.NamespaceListResponse{}
	if err := refuseListOptions(&args.QueryOptions); err != nil {
		return nil, err
	}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		if reply.Namespaces, err = st.Namespaces(ws, args.Prefix); err == nil {
			reply.Namespaces, err = e.srv.auth.VisibleNamespaces(args, reply.Namespaces)
		}
		return st.Index(state.TableNamespaces), err
	})
	return reply, err
}

// Get answers one namespace; Namespace is nil when it does not exist.
func (e *NamespaceEndpoint) Get(ctx context.Context, args *structs.NamespaceSpecificRequest) (*structs.SingleNamespaceResponse, error) {
	reply := &structs.SingleNamespaceResponse{}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		reply.Namespace, err = st.NamespaceByName(ws, args.Name)
		return st.Index(state.TableNamespaces), err
	})
	return reply, err
}

// Upsert creates or updates namespaces.
func (e *NamespaceEndpoint) Upsert(ctx context.Context, args *structs.NamespaceUpsertRequest) (*structs.GenericWriteResponse, error) {
	if len(args.Namespaces) == 0 {
		return nil, BadRequest("Namespaces: at least one namespace is required")
	}
	for i, ns := range args.Namespaces {
		if ns == nil {
			return nil, BadRequest("Namespaces[%d]: must not be null", i)
		}
		if err := ns.Validate(); err != nil {
			return nil, BadRequest("Namespaces[%d].%v", i, err)
		}
	}
	index, err := e.srv.raftApply(ctx, structs.NamespaceUpsertRequestType, &structs.NamespaceUpsertRequest{Namespaces: args.Namespaces})
	if err != nil {
		return nil, err
	}
	return &structs.GenericWriteResponse{WriteMeta: structs.WriteMeta{Index: index}}, nil
}

// Delete deletes namespaces. "default" cannot be deleted, nor a namespace
// that still has jobs (purge them first); an unknown name is a 404.
func (e *NamespaceEndpoint) Delete(ctx context.Context, args *structs.NamespaceDeleteRequest) (*structs.GenericWriteResponse, error) {
	if len(args.Namespaces) == 0 {
		return nil, BadRequest("Namespaces: at least one namespace name is required")
	}
	snap := e.srv.State().Snapshot()
	for _, name := range args.Namespaces {
		if err := checkDeletable(snap, name); err != nil {
			return nil, err
		}
	}
	index, err := e.srv.raftApply(ctx, structs.NamespaceDeleteRequestType, &structs.NamespaceDeleteRequest{Namespaces: args.Namespaces})
	if errors.Is(err, state.ErrNamespaceNotEmpty) {
		return nil, BadRequest("Name: %v", err) // a job arrived after the check above
	}
	if err != nil {
		return nil, err
	}
	return &structs.GenericWriteResponse{WriteMeta: structs.WriteMeta{Index: index}}, nil
}

func checkDeletable(snap *state.StateSnapshot, name string) error {
	if name == structs.DefaultNamespace {
		return BadRequest("Name: the %q namespace is built in and cannot be deleted", name)
	}
	ns, err := snap.NamespaceByName(nil, name)
	if err != nil {
		return err
	}
	if ns == nil {
		return NotFound("namespace %q not found", name)
	}
	jobs, err := snap.Jobs(nil, name)
	if err != nil {
		return err
	}
	if len(jobs) > 0 {
		return BadRequest("Name: namespace %q has %d jobs; purge them before deleting it", name, len(jobs))
	}
	return nil
}

// checkJobAdmission refuses a job the cluster cannot hold, each problem a
// 400 naming the field: a region other than this cluster's, a namespace
// or node pool that does not exist, a group count above job_max_count.
func (e *JobEndpoint) checkJobAdmission(job *structs.Job) error {
	if job.Region != e.srv.config.Region {
		return BadRequest("invalid job: Region: region %q does not exist (this cluster's region is %q)", job.Region, e.srv.config.Region)
	}
	ns, err := e.srv.State().NamespaceByName(nil, job.Namespace)
	if err != nil {
		return err
	}
	if ns == nil {
		return BadRequest("invalid job: Namespace: namespace %q does not exist", job.Namespace)
	}
	if job.NodePool != "" {
		pool, err := e.srv.State().NodePoolByName(nil, job.NodePool)
		if err != nil {
			return err
		}
		if pool == nil {
			return BadRequest("invalid job: NodePool: node pool %q does not exist", job.NodePool)
		}
	}
	var errs structs.ValidationErrors
	for i, tg := range job.TaskGroups {
		if tg != nil && tg.Count > e.srv.config.JobMaxCount {
			errs = append(errs, structs.ValidationError{
				Field:   fmt.Sprintf("TaskGroups[%d].Count", i),
				Message: fmt.Sprintf("must be at most %d (server job_max_count), got %d", e.srv.config.JobMaxCount, tg.Count),
			})
		}
	}
	if len(errs) > 0 {
		return BadRequest("invalid job: %v", errs)
	}
	return nil
}
