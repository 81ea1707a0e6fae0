package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/server/auth"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// VariablesEndpoint is the Variables.* family: encrypted items at paths.
type VariablesEndpoint struct{ srv *Server }

// Lock lease bounds and defaults (Nomad's).
const (
	defaultLockTTL   = 15 * time.Second
	defaultLockDelay = 15 * time.Second
	maxLockDuration  = 24 * time.Hour
)

// Apply runs one write: set, delete, or a lock operation, optionally
// check-and-set against CheckIndex. A CAS or lock conflict is no error: the
// reply's Conflict holds the stored variable (metadata only) and nothing
// changed.
func (e *VariablesEndpoint) Apply(ctx context.Context, args *structs.VariablesApplyArgs) (*structs.VariablesApplyResponse, error) {
	reply := &structs.VariablesApplyResponse{}
	req, err := e.applyRequest(args)
	if err != nil {
		return nil, err
	}
	if err := e.srv.auth.AuthorizeVariable(args.AuthToken, req.Var.Namespace, req.Var.Path, variableOpCapability(req.Op)); err != nil {
		return nil, err
	}
	index, err := e.srv.raftApply(ctx, structs.VariableApplyRequestType, req)
	var conflict *structs.VariableConflictError
	switch {
	case errors.As(err, &conflict):
		if conflict.Current != nil {
			reply.Conflict = &structs.VariableDecrypted{VariableMetadata: conflict.Current.VariableMetadata.Copy()}
		} else {
			reply.Conflict = &structs.VariableDecrypted{VariableMetadata: structs.VariableMetadata{Namespace: req.Var.Namespace, Path: req.Var.Path}}
		}
		reply.Index = e.srv.State().Index(state.TableVariables)
		return reply, nil
	case err != nil:
		return nil, err
	}
	reply.Index = index
	if req.Op == structs.VarOpDelete {
		return reply, nil
	}
	stored, err := e.srv.State().VariableByPath(nil, req.Var.Namespace, req.Var.Path)
	if err != nil || stored == nil {
		return reply, err
	}
	reply.Output, err = e.decrypt(stored)
	return reply, err
}

// applyRequest validates the write and seals its items.
func (e *VariablesEndpoint) applyRequest(args *structs.VariablesApplyArgs) (*structs.VariableApplyRequest, error) {
	if args.Var == nil {
		return nil, BadRequest("Var: missing variable")
	}
	ns := args.Namespace
	if ns == "" {
		ns = args.Var.Namespace
	}
	ns = namespaceOf(ns)
	path := args.Var.Path
	if err := structs.ValidateVariablePath(path); err != nil {
		return nil, BadRequest("%v", err)
	}
	req := &structs.VariableApplyRequest{Op: args.Op, CheckIndex: args.CheckIndex, Now: e.srv.now().UnixNano()}
	if args.Var.Lock != nil {
		req.LockID = args.Var.Lock.ID
	}
	enc := &structs.VariableEncrypted{VariableMetadata: structs.VariableMetadata{Namespace: ns, Path: path}}
	req.Var = enc
	switch args.Op {
	case structs.VarOpSet:
		if err := structs.ValidateVariableItems(args.Var.Items); err != nil {
			return nil, BadRequest("%v", err)
		}
	case structs.VarOpDelete:
		return req, nil
	case structs.VarOpLockAcquire:
		lock, err := lockRequest(args.Var.Lock)
		if err != nil {
			return nil, err
		}
		enc.Lock, req.LockID = lock, e.srv.config.NewID()
		if len(args.Var.Items) == 0 {
			return req, nil // an existing variable keeps its items
		}
		if err := structs.ValidateVariableItems(args.Var.Items); err != nil {
			return nil, BadRequest("%v", err)
		}
	case structs.VarOpLockRenew, structs.VarOpLockRelease:
		if req.LockID == "" {
			return nil, BadRequest("Lock.ID: missing: %s needs the lock's ID", args.Op)
		}
		return req, nil
	default:
		return nil, BadRequest("Op: %q is not a variable operation", args.Op)
	}
	data, keyID, err := e.srv.auth.Seal(encodeItems(args.Var.Items), auth.VariableAAD(ns, path))
	if err != nil {
		return nil, err
	}
	enc.Data, enc.KeyID = data, keyID
	return req, nil
}

// variableOpCapability is the variables capability a write needs, as in
// Nomad: destroy to delete, write for a set or any lock operation.
func variableOpCapability(op string) string {
	if op == structs.VarOpDelete {
		return acl.VariablesCapabilityDestroy
	}
	return acl.VariablesCapabilityWrite
}

// lockRequest fills a lock's defaults and checks its bounds.
func lockRequest(in *structs.VariableLock) (*structs.VariableLock, error) {
	l := &structs.VariableLock{TTL: defaultLockTTL, LockDelay: defaultLockDelay}
	if in != nil {
		if in.TTL != 0 {
			l.TTL = in.TTL
		}
		if in.LockDelay != 0 {
			l.LockDelay = in.LockDelay
		}
	}
	if l.TTL <= 0 || l.TTL > maxLockDuration {
		return nil, BadRequest("Lock.TTL: %s is outside (0, %s]", l.TTL, maxLockDuration)
	}
	if l.LockDelay < 0 || l.LockDelay > maxLockDuration {
		return nil, BadRequest("Lock.LockDelay: %s is outside [0, %s]", l.LockDelay, maxLockDuration)
	}
	return l, nil
}

// Read answers one variable with its items (Data nil when absent).
func (e *VariablesEndpoint) Read(ctx context.Context, args *structs.VariablesReadRequest) (*structs.VariablesReadResponse, error) {
	reply := &structs.VariablesReadResponse{}
	ns := namespaceOf(args.Namespace)
	if args.Path == "" {
		return nil, BadRequest("Path: missing")
	}
	if err := e.srv.auth.AuthorizeVariable(args.AuthToken, ns, args.Path, acl.VariablesCapabilityRead); err != nil {
		return nil, err
	}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		v, err := st.VariableByPath(ws, ns, args.Path)
		if err != nil || v == nil {
			reply.Data = nil
			return st.Index(state.TableVariables), err
		}
		reply.Data, err = e.decrypt(v)
		return v.ModifyIndex, err
	})
	return reply, err
}

// List answers the metadata of the variables under QueryOptions.Prefix.
func (e *VariablesEndpoint) List(ctx context.Context, args *structs.VariablesListRequest) (*structs.VariablesListResponse, error) {
	reply := &structs.VariablesListResponse{}
	ns := pageOptions(&args.QueryOptions).Namespace
	match, err := filterFunc[*structs.VariableMetadata](args.Filter)
	if err != nil {
		return nil, err
	}
	access, err := e.srv.auth.VariableAccessOf(args.AuthToken)
	if err != nil {
		return nil, err
	}
	err = e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		vars, err := st.Variables(ws, ns, args.Prefix)
		if err != nil {
			return 0, err
		}
		reply.Data, reply.NextToken = make([]*structs.VariableMetadata, 0, len(vars)), ""
		for _, v := range vars {
			key := variableKey(ns, v)
			if key < args.NextToken || !access.Allows(v.Namespace, v.Path, acl.VariablesCapabilityList) {
				continue
			}
			md := e.visible(v.VariableMetadata)
			ok, err := match(&md)
			if err != nil {
				return 0, err
			}
			if !ok {
				continue
			}
			if args.PerPage > 0 && len(reply.Data) == int(args.PerPage) {
				reply.NextToken = key
				break
			}
			reply.Data = append(reply.Data, &md)
		}
		return st.Index(state.TableVariables), nil
	})
	return reply, err
}

// variableKey orders a listing and names a page's first item: the path,
// or "namespace.path" across namespaces (neither may contain a dot).
func variableKey(ns string, v *structs.VariableEncrypted) string {
	if ns == state.AllNamespaces {
		return v.Namespace + "." + v.Path
	}
	return v.Path
}

// decrypt opens a stored variable.
func (e *VariablesEndpoint) decrypt(v *structs.VariableEncrypted) (*structs.VariableDecrypted, error) {
	if len(v.Data) == 0 { // a lock variable created without items
		return &structs.VariableDecrypted{VariableMetadata: e.visible(v.VariableMetadata), Items: map[string]string{}}, nil
	}
	plain, err := e.srv.auth.Open(v.Data, v.KeyID, auth.VariableAAD(v.Namespace, v.Path))
	if err != nil {
		return nil, fmt.Errorf("variable %s/%s: %w", v.Namespace, v.Path, err)
	}
	items, err := decodeItems(plain)
	if err != nil {
		return nil, err
	}
	return &structs.VariableDecrypted{VariableMetadata: e.visible(v.VariableMetadata), Items: items}, nil
}

// visible is the metadata as callers see it: a lease past its TTL is no
// longer shown (as Nomad releases it then), though its lock delay still
// keeps a new holder out until it passes.
func (e *VariablesEndpoint) visible(md structs.VariableMetadata) structs.VariableMetadata {
	md = md.Copy()
	if md.Lock != nil && e.srv.now().UnixNano() >= md.Lock.ExpiresAt {
		md.Lock = nil
	}
	return md
}

func encodeItems(items map[string]string) []byte {
	buf, err := structs.Encode(0, items)
	if err != nil {
		panic(err) // a map of strings always encodes
	}
	return buf[1:]
}

func decodeItems(buf []byte) (map[string]string, error) {
	var items map[string]string
	if err := structs.Decode(buf, &items); err != nil {
		return nil, fmt.Errorf("variable items: %w", err)
	}
	return items, nil
}
