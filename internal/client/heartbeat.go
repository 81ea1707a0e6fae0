package client

import (
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
// succeeds; ok is false when the client shut down first.
func (c *Client) registerUntilDone() (ttl time.Duration, ok bool) {
	for attempt := 1; ; attempt++ {
		node := c.Node()
		token, _ := c.registrationToken()
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
		c.logger.Warn("node registration failed", "error", err, "attempt", attempt)
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
	}
	return "", tokenNone
}
