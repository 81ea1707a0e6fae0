package rpcclient

import (
	"context"
	"crypto/tls"
	"net"

	"github.com/drover-project/drover/internal/structs"
)

// UseTLS makes every later connection speak mutual TLS (tls { rpc =
// true }) with cfg (see tlsutil.Config.RPCClient).
func (c *Client) UseTLS(cfg *tls.Config) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tls = cfg
}

// secure upgrades a fresh connection to TLS when configured: the TLS
// byte, then the handshake. The caller holds c.mu.
func (c *Client) secure(ctx context.Context, conn net.Conn) (net.Conn, error) {
	if c.tls == nil {
		return conn, nil
	}
	if _, err := conn.Write([]byte{structs.RPCTLSByte}); err != nil {
		conn.Close()
		return nil, err
	}
	tc := tls.Client(conn, c.tls)
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return tc, nil
}
