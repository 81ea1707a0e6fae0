package agent

import (
	"github.com/drover-project/drover/internal/agent/config"
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
