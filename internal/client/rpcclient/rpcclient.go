// Package rpcclient is the client agent's side of the internal RPC: one
// yamux-multiplexed TCP connection to a server, one net/rpc call (msgpack)
// per stream, failing over to the next listed server when a connection
// breaks. It implements client.Servers.
package rpcclient

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/rpc"
	"sync"

	"github.com/hashicorp/yamux"

	"github.com/drover-project/drover/internal/rpcwire"
	"github.com/drover-project/drover/internal/structs"
)

// Client calls the servers' Node endpoints.
type Client struct {
	mu      sync.Mutex
	servers []string
	next    int // index of the server to try next
	session *yamux.Session
	tls     *tls.Config // nil: plaintext
}

// New returns a client for the listed server RPC addresses (host:port).
func New(servers []string) (*Client, error) {
	if len(servers) == 0 {
		return nil, errors.New("rpcclient: no servers configured (client { servers = [...] })")
	}
	return &Client{servers: append([]string(nil), servers...)}, nil
}

// Close closes the connection.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session != nil {
		err := c.session.Close()
		c.session = nil
		return err
	}
	return nil
}

// Register registers the node.
func (c *Client) Register(ctx context.Context, args *structs.NodeRegisterArgs) (*structs.NodeUpdateResponse, error) {
	var out structs.NodeUpdateResponse
	return &out, c.call(ctx, structs.RPCNodeRegister, args, &out)
}

// Heartbeat reports the node alive.
func (c *Client) Heartbeat(ctx context.Context, args *structs.NodeHeartbeatArgs) (*structs.NodeUpdateResponse, error) {
	var out structs.NodeUpdateResponse
	return &out, c.call(ctx, structs.RPCNodeUpdateStatus, args, &out)
}

// GetAllocIndexes pulls the index of each of the node's allocations (a
// blocking query).
func (c *Client) GetAllocIndexes(ctx context.Context, args *structs.NodeAllocsArgs) (*structs.NodeClientAllocsResponse, error) {
	var out structs.NodeClientAllocsResponse
	return &out, c.call(ctx, structs.RPCNodeGetClientAllocIndexes, args, &out)
}

// FetchAllocs fetches some of the node's allocations by ID.
func (c *Client) FetchAllocs(ctx context.Context, args *structs.AllocsGetArgs) (*structs.AllocsGetResponse, error) {
	var out structs.AllocsGetResponse
	return &out, c.call(ctx, structs.RPCAllocGetAllocs, args, &out)
}

// GetAllocs pulls the node's allocations with their jobs, in full (a
// blocking query): the form clients before GetAllocIndexes used, which
// servers still answer.
func (c *Client) GetAllocs(ctx context.Context, args *structs.NodeAllocsArgs) (*structs.NodeAllocsResponse, error) {
	var out structs.NodeAllocsResponse
	return &out, c.call(ctx, structs.RPCNodeGetClientAllocs, args, &out)
}

// UpdateAllocs reports a batch of client alloc updates.
func (c *Client) UpdateAllocs(ctx context.Context, args *structs.AllocClientUpdateArgs) (*structs.GenericResponse, error) {
	var out structs.GenericResponse
	return &out, c.call(ctx, structs.RPCNodeUpdateAlloc, args, &out)
}

// call performs one RPC, failing over once per listed server when the
// connection (not the server's answer) fails.
func (c *Client) call(ctx context.Context, method string, args, reply any) error {
	var lastErr error
	for attempt := 0; attempt < c.serverCount(); attempt++ {
		session, err := c.getSession(ctx)
		if err != nil {
			lastErr = err
			continue
		}
		err = rpcwire.Call(ctx, session, method, args, reply)
		var serverErr rpc.ServerError
		if err == nil || errors.As(err, &serverErr) || ctx.Err() != nil {
			return asError(err)
		}
		lastErr = err
		c.dropSession(session)
	}
	return fmt.Errorf("rpcclient: %s: no server reachable: %w", method, lastErr)
}

func (c *Client) serverCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.servers)
}

// getSession returns the open session, dialing the next server if needed.
func (c *Client) getSession(ctx context.Context) (*yamux.Session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session != nil && !c.session.IsClosed() {
		return c.session, nil
	}
	addr := c.servers[c.next%len(c.servers)]
	c.next++
	session, err := rpcwire.DialTLS(ctx, addr, c.tls)
	if err != nil {
		return nil, err
	}
	c.session = session
	return session, nil
}

func (c *Client) dropSession(s *yamux.Session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session == s {
		c.session.Close()
		c.session = nil
	}
}

// asError turns a server's error back into the coded error it was sent
// as (its HTTP status, and structs.DecodeRPCError's sentinel), so the
// client matches it by value, e.g. errors.Is(err, structs.ErrNodeNotFound).
func asError(err error) error {
	return rpcwire.DecodeError(err)
}

// UpsertServices writes native service registrations of this node's allocs.
func (c *Client) UpsertServices(ctx context.Context, args *structs.ServiceRegistrationUpsertRequest) (*structs.ServiceRegistrationUpsertResponse, error) {
	var out structs.ServiceRegistrationUpsertResponse
	return &out, c.call(ctx, structs.RPCServiceRegistrationUpsert, args, &out)
}

// DeleteServices removes native service registrations of this node's allocs.
func (c *Client) DeleteServices(ctx context.Context, args *structs.ServiceRegistrationDeleteByIDRequest) (*structs.ServiceRegistrationUpsertResponse, error) {
	var out structs.ServiceRegistrationUpsertResponse
	return &out, c.call(ctx, structs.RPCServiceRegistrationDeleteByID, args, &out)
}

// SignIdentities asks for the workload identities of an alloc's tasks.
func (c *Client) SignIdentities(ctx context.Context, args *structs.WorkloadIdentitySignRequest) (*structs.WorkloadIdentitySignResponse, error) {
	var out structs.WorkloadIdentitySignResponse
	return &out, c.call(ctx, structs.RPCWorkloadIdentitySign, args, &out)
}

// PrevAllocMigration asks about the previous alloc on another node whose
// ephemeral_disk data an alloc of this node migrates (a blocking query).
func (c *Client) PrevAllocMigration(ctx context.Context, args *structs.PrevAllocMigrationArgs) (*structs.PrevAllocMigrationResponse, error) {
	var out structs.PrevAllocMigrationResponse
	return &out, c.call(ctx, structs.RPCNodePrevAllocMigration, args, &out)
}

// ReadVariable reads a variable (a blocking query with MinQueryIndex).
func (c *Client) ReadVariable(ctx context.Context, args *structs.VariablesReadRequest) (*structs.VariablesReadResponse, error) {
	var out structs.VariablesReadResponse
	return &out, c.call(ctx, "Variables.Read", args, &out)
}

// ListVariables lists variables under a prefix (a blocking query).
func (c *Client) ListVariables(ctx context.Context, args *structs.VariablesListRequest) (*structs.VariablesListResponse, error) {
	var out structs.VariablesListResponse
	return &out, c.call(ctx, "Variables.List", args, &out)
}

// GetService reads a service's registrations (a blocking query).
func (c *Client) GetService(ctx context.Context, args *structs.ServiceRegistrationByNameRequest) (*structs.ServiceRegistrationsResponse, error) {
	var out structs.ServiceRegistrationsResponse
	return &out, c.call(ctx, "ServiceRegistration.GetService", args, &out)
}

// ListServices lists the service catalog (a blocking query).
func (c *Client) ListServices(ctx context.Context, args *structs.ServiceRegistrationListRequest) (*structs.ServiceRegistrationListResponse, error) {
	var out structs.ServiceRegistrationListResponse
	return &out, c.call(ctx, "ServiceRegistration.List", args, &out)
}

// DialHTTP opens a stream for HTTP to the server this client talks to
// (rpcwire.OpenHTTPStream), failing over as call does: a client-only
// agent forwards the cluster API's requests over it.
func (c *Client) DialHTTP(ctx context.Context) (net.Conn, error) {
	var lastErr error
	for attempt := 0; attempt < c.serverCount(); attempt++ {
		session, err := c.getSession(ctx)
		if err != nil {
			lastErr = err
			continue
		}
		conn, err := rpcwire.OpenHTTPStream(session)
		if err == nil {
			return conn, nil
		}
		lastErr = err
		c.dropSession(session)
	}
	return nil, fmt.Errorf("rpcclient: no server reachable: %w", lastErr)
}
