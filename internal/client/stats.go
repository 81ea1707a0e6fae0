package client

import (
	"strconv"
	"time"
)

// heartbeatState is what the client last heard from the servers, for
// /v1/agent/self's stats.client.
type heartbeatState struct {
	last time.Time
	ttl  time.Duration
}

// noteHeartbeat records a successful register or heartbeat.
func (c *Client) noteHeartbeat(ttl time.Duration) {
	c.mu.Lock()
	c.hb = heartbeatState{last: c.clock.Now(), ttl: ttl}
	c.mu.Unlock()
}

// Stats are the client's figures in Nomad's stats.client shape (all
// strings, as Nomad reports them).
func (c *Client) Stats() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]string{
		"node_id":         c.nodeID,
		"num_allocations": strconv.Itoa(len(c.runners)),
		"heartbeat_ttl":   c.hb.ttl.String(),
		"last_heartbeat":  "never",
	}
	if !c.hb.last.IsZero() {
		out["last_heartbeat"] = c.clock.Now().Sub(c.hb.last).Round(time.Millisecond).String()
	}
	return out
}
