package client

import (
	"errors"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// heartbeatLoop registers the node, then heartbeats within the TTL the
// servers return. A fingerprint change registers the node again, and so
// does a server that no longer knows it.
func (c *Client) heartbeatLoop() {
	ttl, ok := c.registerUntilDone()
	failures := 0
	for ok {
		wait := c.heartbeatInterval(ttl)
		if failures > 0 {
			wait = backoff(failures, max(ttl/4, time.Second))
			if next, ok := c.untilNextDisconnectStop(); ok {
				wait = max(min(wait, next), time.Millisecond)
			}
		}
		alive, rereg := c.sleep(wait, c.reregisterCh)
		if !alive {
			return
		}
		if rereg {
			ttl, ok = c.registerUntilDone()
			continue
		}
		resp, err := c.servers.Heartbeat(c.ctx, &structs.NodeHeartbeatArgs{NodeID: c.nodeID, SecretID: c.secretID, Status: structs.NodeStatusReady})
		switch {
		case err == nil:
			failures, ttl = 0, ttlOf(resp)
			c.noteContact()
			c.noteHeartbeat(ttl)
		case c.ctx.Err() != nil:
			return
		case isNodeNotFound(err):
			c.logger.Info("servers do not know this node; registering again")
			failures = 0
			ttl, ok = c.registerUntilDone()
		default:
			failures++
			c.logger.Warn("heartbeat failed", "error", err, "attempt", failures)
			c.stopDisconnectedAllocs()
		}
	}
}

// heartbeatInterval is well inside the TTL: half of it plus up to a
// quarter of jitter, so a fleet of clients does not beat in lockstep.
func (c *Client) heartbeatInterval(ttl time.Duration) time.Duration {
	half := ttl / 2
	c.mu.Lock()
	defer c.mu.Unlock()
	if q := int64(ttl / 4); q > 0 {
		return half + time.Duration(c.rand.Int64N(q))
	}
	return half
}

func ttlOf(resp *structs.NodeUpdateResponse) time.Duration {
	if resp == nil || resp.HeartbeatTTL <= 0 {
		return DefaultHeartbeatTTL
	}
	return resp.HeartbeatTTL
}

// registerUntilDone registers the node, retrying with backoff until it
// succeeds; ok is false when the client shut down first. A refused node
// registration token is logged at error level with the setting to fix,
// once per distinct refusal: retrying the same mistake adds debug lines
// only.
func (c *Client) registerUntilDone() (ttl time.Duration, ok bool) {
	lastDenied := ""
	for attempt := 1; ; attempt++ {
		node := c.Node()
		token, source := c.registrationToken()
		resp, err := c.servers.Register(c.ctx, &structs.NodeRegisterArgs{Node: node, NodeRegistrationToken: token})
		if err == nil {
			c.noteContact()
			c.logger.Info("node registered", "node_id", node.ID, "ttl", ttlOf(resp))
			c.regOnce.Do(func() { close(c.registered) })
			c.noteHeartbeat(ttlOf(resp))
			return ttlOf(resp), true
		}
		if c.ctx.Err() != nil {
			return 0, false
		}
		switch {
		case !errors.Is(err, structs.ErrNodeRegistrationDenied):
			c.logger.Warn("node registration failed", "error", err, "attempt", attempt)
		case source+err.Error() == lastDenied:
			c.logger.Debug("node registration refused again", "error", err, "attempt", attempt)
		case source == tokenAgentPending:
			// Transient: a server that has just joined gets the keyring
			// from the leader.
			lastDenied = source + err.Error()
			c.logger.Warn(registrationGuidance(source), "error", err, "attempt", attempt)
		default:
			lastDenied = source + err.Error()
			c.logger.Error(registrationGuidance(source), "error", err, "setting", "client.node_registration_token",
				"attempt", attempt)
		}
		if alive, _ := c.sleep(backoff(attempt, 30*time.Second), nil); !alive {
			return 0, false
		}
	}
}

// Where the token presented at Node.Register came from.
const (
	tokenNone   = "none"
	tokenConfig = "config"
	tokenAgent  = "agent"
	// tokenAgentPending: the agent's own server cannot vouch yet.
	tokenAgentPending = "agent-pending"
)

// registrationToken is the token to present at Node.Register and where it
// came from: client { node_registration_token } when set, else the
// credential of the agent's own server, else none.
func (c *Client) registrationToken() (token, source string) {
	if c.cfg.NodeRegistrationToken != "" {
		return c.cfg.NodeRegistrationToken, tokenConfig
	}
	if c.cfg.AgentNodeCredential != nil {
		if cred, ok := c.cfg.AgentNodeCredential(); ok {
			return cred, tokenAgent
		}
		return "", tokenAgentPending
	}
	return "", tokenNone
}

// registrationGuidance tells the operator what to fix after the servers
// refused the node registration token from source.
func registrationGuidance(source string) string {
	const accepted = "the servers' server { node_registration_token }, or with ACLs on the secret of an ACL token with node write"
	switch source {
	case tokenConfig:
		return "node registration refused: the servers do not accept client { node_registration_token }; set it to " + accepted + "; retrying"
	case tokenAgentPending:
		return "node registration refused: this agent's server cannot vouch for its own client until it holds the cluster's keyring " +
			"(the leader hands it over); retrying"
	case tokenAgent:
		return "node registration refused: the servers did not accept this agent's own node credential " +
			"(is client { servers } another cluster's?); set client { node_registration_token } to " + accepted + "; retrying"
	}
	return "node registration refused: no node registration token is configured; set client { node_registration_token } to " + accepted + "; retrying"
}
