package rpcclient

import "crypto/tls"

// UseTLS makes every later connection speak mutual TLS (tls { rpc =
// true }) with cfg (see tlsutil.Config.RPCClient).
func (c *Client) UseTLS(cfg *tls.Config) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tls = cfg
}
