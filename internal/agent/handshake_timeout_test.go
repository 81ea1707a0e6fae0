package agent

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/tlsutil/tlstest"
)

// tlsAgentWithHandshakeLimits serves HTTPS and TLS RPC with 200 ms
// handshake timeouts. The HTTP server's own read-header timeout, which
// would otherwise bound a handshake too, is set to an hour.
func tlsAgentWithHandshakeLimits(t *testing.T) (*Agent, *tlstest.CA) {
	t.Helper()
	ca := tlstest.NewCA(t, "cluster")
	cert, key := ca.Issue(t, "server", "server.global.nomad", "localhost")
	limits := DefaultHTTPLimits
	limits.ReadHeader = time.Hour
	a := withHTTPLimits(t, limits, func(c *config.Config) {
		c.TLS = config.TLSConfig{HTTP: true, RPC: true, CAFile: ca.File, CertFile: cert, KeyFile: key}
		c.Limits.HTTPSHandshakeTimeout = 200 * time.Millisecond
		c.Limits.RPCHandshakeTimeout = 200 * time.Millisecond
	})
	return a, ca
}

// requireClosedByServer waits for the server to close conn. The read
// deadline keeps a broken test from hanging: it is 40 times the
// configured timeout, and shorter than any other deadline the agent
// would close the connection by (the RPC port's former fixed 10 s).
func requireClosedByServer(t *testing.T, conn net.Conn, what string) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(8 * time.Second))
	_, err := conn.Read(make([]byte, 1))
	var ne net.Error
	if err == nil || errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("%s: the server kept the connection open (%v)", what, err)
	}
}

// limits { https_handshake_timeout rpc_handshake_timeout }: a connection
// that sends nothing, or starts TLS and stops, is closed by the agent;
// the ports keep serving well-behaved callers.
func TestLimits_HandshakeTimeoutsCloseSilentConnections(t *testing.T) {
	a, ca := tlsAgentWithHandshakeLimits(t)
	for _, tc := range []struct {
		name, addr string
		send       []byte
	}{
		{"https, nothing sent", a.HTTPAddr(), nil},
		{"rpc, nothing sent", a.RPCAddr(), nil},
		{"rpc, TLS byte then nothing", a.RPCAddr(), []byte{structs.RPCTLSByte}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", tc.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.Write(tc.send); err != nil {
				t.Fatal(err)
			}
			requireClosedByServer(t, conn, tc.name)
		})
	}
	c, err := api.NewClient(&api.Config{Address: "https://" + a.HTTPAddr(), TLSConfig: &api.TLSConfig{CACert: ca.File}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Agent().Self(); err != nil {
		t.Fatalf("HTTPS after the silent connections: %v", err)
	}
}

// A TLS client that completes its handshake is served past the handshake
// timeout: the deadline covers the handshake only.
func TestLimits_HTTPSHandshakeDeadlineEndsWithTheHandshake(t *testing.T) {
	a, ca := tlsAgentWithHandshakeLimits(t)
	conn, err := tls.Dial("tcp", a.HTTPAddr(), caPool(t, ca.File))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// real time: the handshake deadline is the connection's own (net)
	// deadline, so only the wall clock can pass it; twice the timeout.
	time.Sleep(400 * time.Millisecond)
	if _, err := conn.Write([]byte("GET /v1/agent/self HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	buf := make([]byte, 12)
	if _, err := conn.Read(buf); err != nil || string(buf[:12]) != "HTTP/1.1 200" {
		t.Fatalf("request after the handshake: %q %v", buf, err)
	}
}

func caPool(t *testing.T, caFile string) *tls.Config {
	t.Helper()
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	return &tls.Config{RootCAs: pool, ServerName: "localhost"}
}

// limits { rpc_max_conns_per_client } reaches the server's RPC port: a
// third connection from one IP is closed at once while two stay open
// (rpc_handshake_timeout is off, so only the cap can close it).
func TestLimits_RPCConnectionCapFromAgentConfig(t *testing.T) {
	a, _ := testAgent(t, func(c *config.Config) {
		c.Limits.RPCMaxConnsPerClient = 2
		c.Limits.RPCHandshakeTimeout = 0
	})
	var conns []net.Conn
	for i := 0; i < 3; i++ {
		conn, err := net.Dial("tcp", a.RPCAddr())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conns = append(conns, conn)
	}
	requireClosedByServer(t, conns[2], "third connection")
}
