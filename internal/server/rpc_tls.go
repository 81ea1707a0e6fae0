package server

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// negotiate reads the connection's first byte and returns the connection
// to serve and its protocol byte: the plain connection, or, for
// RPCTLSByte, the TLS session and the byte that follows inside it. With
// RPCTLS configured, plaintext connections are refused. All of it must
// happen within the handshake timeout, so a silent peer cannot hold a
// connection (and a slot of its IP's cap) open.
func (r *rpcServer) negotiate(conn net.Conn) (net.Conn, byte, error) {
	if d := r.srv.config.RPCHandshakeTimeout; d > 0 {
		_ = conn.SetDeadline(time.Now().Add(d))
	}
	first, err := readByte(conn)
	if err != nil {
		return conn, 0, err
	}
	cfg := r.srv.config.RPCTLS
	switch {
	case first == structs.RPCTLSByte && cfg != nil:
		tc := tls.Server(conn, cfg)
		if err := tc.Handshake(); err != nil {
			return conn, 0, fmt.Errorf("tls handshake: %w", err)
		}
		conn = tc
		if first, err = readByte(conn); err != nil {
			return conn, 0, err
		}
	case cfg != nil:
		return conn, 0, fmt.Errorf("plaintext RPC refused: this server requires TLS")
	}
	_ = conn.SetDeadline(time.Time{})
	return conn, first, nil
}

func readByte(conn net.Conn) (byte, error) {
	b := make([]byte, 1)
	_, err := io.ReadFull(conn, b)
	return b[0], err
}
