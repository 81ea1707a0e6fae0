package rpcclient

import "errors"

// Servers returns the server RPC addresses the client fails over between
// (`node config -servers`).
func (c *Client) Servers() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.servers...)
}

// SetServers replaces the server list; the next call dials the first of
// the new servers, so a list without the current one takes effect at once.
func (c *Client) SetServers(servers []string) error {
	if len(servers) == 0 {
		return errors.New("rpcclient: no servers given")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.servers, c.next = append([]string(nil), servers...), 0
	if c.session != nil {
		c.session.Close()
		c.session = nil
	}
	return nil
}
