package client

import (
	"context"
	"time"

	"github.com/drover-project/drover/internal/client/taskrunner"
	"github.com/drover-project/drover/internal/structs"
)

// NativeReads is the part of the servers that signs workload identities
// and answers the templates' reads of variables and services. A Servers
// implementation that also implements it (the RPC client does) gets
// identities and live templates; others (test fakes) get neither.
type NativeReads interface {
	SignIdentities(ctx context.Context, args *structs.WorkloadIdentitySignRequest) (*structs.WorkloadIdentitySignResponse, error)
	ReadVariable(ctx context.Context, args *structs.VariablesReadRequest) (*structs.VariablesReadResponse, error)
	ListVariables(ctx context.Context, args *structs.VariablesListRequest) (*structs.VariablesListResponse, error)
	GetService(ctx context.Context, args *structs.ServiceRegistrationByNameRequest) (*structs.ServiceRegistrationsResponse, error)
	ListServices(ctx context.Context, args *structs.ServiceRegistrationListRequest) (*structs.ServiceRegistrationListResponse, error)
}

// templateWaitTime bounds each blocking read of a template watcher, so a
// watcher notices a lost server within it.
const templateWaitTime = 5 * time.Minute

// identitySource signs identities of an alloc's tasks through the
// servers (WorkloadIdentity.Sign, node-authenticated).
func (c *Client) identitySource() func(context.Context, string, []structs.WorkloadIdentityRequest) ([]structs.SignedWorkloadIdentity, error) {
	nr, ok := c.servers.(NativeReads)
	if !ok {
		return nil
	}
	return func(ctx context.Context, allocID string, reqs []structs.WorkloadIdentityRequest) ([]structs.SignedWorkloadIdentity, error) {
		resp, err := nr.SignIdentities(ctx, &structs.WorkloadIdentitySignRequest{
			NodeID: c.nodeID, SecretID: c.secretID, AllocID: allocID, Identities: reqs,
		})
		if err != nil {
			return nil, err
		}
		return resp.Signed, nil
	}
}

// templateData is the templates' view of variables and services.
func (c *Client) templateData() taskrunner.TemplateData {
	nr, ok := c.servers.(NativeReads)
	if !ok {
		return nil
	}
	return serverTemplateData{nr}
}

type serverTemplateData struct{ nr NativeReads }

func query(token, namespace string, minIndex uint64) structs.QueryOptions {
	q := structs.QueryOptions{AuthToken: token, Namespace: namespace, MinQueryIndex: minIndex, AllowStale: true}
	if minIndex > 0 {
		q.MaxQueryTime = templateWaitTime
	}
	return q
}

func (d serverTemplateData) Variable(ctx context.Context, token, ns, path string, min uint64) (*structs.VariableDecrypted, uint64, error) {
	r, err := d.nr.ReadVariable(ctx, &structs.VariablesReadRequest{Path: path, QueryOptions: query(token, ns, min)})
	if err != nil {
		return nil, 0, err
	}
	return r.Data, r.Index, nil
}

func (d serverTemplateData) VariableList(ctx context.Context, token, ns, prefix string, min uint64) ([]*structs.VariableMetadata, uint64, error) {
	q := query(token, ns, min)
	q.Prefix = prefix
	r, err := d.nr.ListVariables(ctx, &structs.VariablesListRequest{QueryOptions: q})
	if err != nil {
		return nil, 0, err
	}
	return r.Data, r.Index, nil
}

func (d serverTemplateData) Services(ctx context.Context, token, ns, name string, min uint64) ([]*structs.ServiceRegistration, uint64, error) {
	r, err := d.nr.GetService(ctx, &structs.ServiceRegistrationByNameRequest{ServiceName: name, QueryOptions: query(token, ns, min)})
	if err != nil {
		return nil, 0, err
	}
	return r.Services, r.Index, nil
}

func (d serverTemplateData) ServiceList(ctx context.Context, token, ns string, min uint64) ([]*structs.ServiceRegistrationListStub, uint64, error) {
	r, err := d.nr.ListServices(ctx, &structs.ServiceRegistrationListRequest{QueryOptions: query(token, ns, min)})
	if err != nil {
		return nil, 0, err
	}
	return r.Services, r.Index, nil
}
