package agent

import (
	"context"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/client/rpcclient"
	"github.com/drover-project/drover/internal/server"
)

// withDevNodeCredential gives a -dev agent, which runs its own server and
// client, a fresh random node credential shared by both, so even a dev
// agent's RPC port does not let anyone register a node. Other configs are
// returned unchanged.
func withDevNodeCredential(cfg *config.Config) *config.Config {
	if !cfg.DevMode || !cfg.Server.Enabled || cfg.Server.NodeRegistrationToken != "" {
		return cfg
	}
	c := cfg.Copy()
	c.Server.NodeRegistrationToken = server.NewUUID()
	if c.Client.NodeRegistrationToken == "" {
		c.Client.NodeRegistrationToken = c.Server.NodeRegistrationToken
	}
	return c
}

// remoteACLResolver resolves tokens through the servers for an agent that
// runs no server of its own (its client endpoints still check tokens);
// nil for a server agent, which resolves locally.
func (a *Agent) remoteACLResolver() func(context.Context, string) (*acl.ACL, error) {
	if a.server != nil {
		return nil
	}
	servers, err := a.clientServers()
	if err != nil {
		return nil
	}
	rc, err := rpcclient.New(servers)
	if err != nil {
		return nil
	}
	if a.tls.rpcClient != nil {
		rc.UseTLS(a.tls.rpcClient)
	}
	a.aclRPC = rc
	return remoteResolver(rc.ResolveToken)
}
