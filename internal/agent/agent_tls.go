package agent

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/tlsutil"
)

// agentTLS holds the TLS configurations the agent's tls { } block asks
// for; nil fields mean plaintext.
type agentTLS struct {
	httpServer *tls.Config // the HTTPS API
	httpClient *tls.Config // forwarding to other agents' HTTPS API
	rpcServer  *tls.Config // the server's RPC port (mutual TLS)
	rpcClient  *tls.Config // the client's (and resolver's) RPC connections
	// cert is the agent's certificate, which every configuration above
	// presents through a callback, so Reload can swap it for new
	// handshakes without restarting a listener.
	cert atomic.Pointer[tls.Certificate]
}

// useReloadableCert makes every configuration present a.tls.cert.
func (a *Agent) useReloadableCert(cert tls.Certificate) {
	a.tls.cert.Store(&cert)
	get := func() *tls.Certificate { return a.tls.cert.Load() }
	for _, c := range []*tls.Config{a.tls.httpServer, a.tls.rpcServer} {
		if c != nil {
			c.Certificates = nil
			c.GetCertificate = func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return get(), nil }
		}
	}
	for _, c := range []*tls.Config{a.tls.httpClient, a.tls.rpcClient} {
		if c != nil {
			c.Certificates = nil
			c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return get(), nil }
		}
	}
}

// reloadTLS reads the certificate and key files of c (a reloaded tls { }
// block) for new connections. Turning TLS on or off, or changing the CA,
// needs a restart, as in Nomad: the listeners keep their mode.
func (a *Agent) reloadTLS(c config.TLSConfig) error {
	old := a.config.TLS
	if c.HTTP != old.HTTP || c.RPC != old.RPC || c.CAFile != old.CAFile ||
		c.VerifyHTTPSClient != old.VerifyHTTPSClient || c.VerifyServerHostname != old.VerifyServerHostname ||
		c.MinVersion != old.MinVersion || c.CipherSuites != old.CipherSuites {
		return errors.New("reload: only tls.cert_file and tls.key_file change without a restart")
	}
	if !c.HTTP && !c.RPC {
		return nil
	}
	cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
	if err != nil {
		return fmt.Errorf("reload: tls: %w", err)
	}
	a.tls.cert.Store(&cert)
	return nil
}

// loadTLS reads the certificates once, at start, so a bad file fails the
// start with a clear error instead of the first connection.
func (a *Agent) loadTLS() error {
	c := a.config.TLS
	base := tlsutil.Config{CAFile: c.CAFile, CertFile: c.CertFile, KeyFile: c.KeyFile,
		VerifyServerHostname: c.VerifyServerHostname, VerifyHTTPSClient: c.VerifyHTTPSClient, Region: a.config.Region,
		MinVersion: tlsutil.TLSVersions[c.MinVersion]}
	base.CipherSuites, _ = tlsutil.ParseCipherSuites(c.CipherSuites) // Validate checked it
	var err error
	if c.HTTP {
		if a.tls.httpServer, err = base.HTTPServer(); err != nil {
			return err
		}
		if c.CAFile != "" {
			if a.tls.httpClient, err = base.HTTPClient(); err != nil {
				return err
			}
		}
	}
	if c.RPC {
		if a.tls.rpcServer, err = base.RPCServer(); err != nil {
			return err
		}
		if a.tls.rpcClient, err = base.RPCClient(); err != nil {
			return err
		}
	}
	if c.HTTP || c.RPC {
		cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return fmt.Errorf("tls: %w", err)
		}
		a.useReloadableCert(cert)
	}
	return nil
}

// httpListener wraps the API listener in TLS when tls.http is on, with
// limits.https_handshake_timeout as the handshake's deadline. With that
// limit off (0), http.Server's own applies: its read-header timeout.
func (a *Agent) httpListener(ln net.Listener) net.Listener {
	if a.tls.httpServer == nil {
		return ln
	}
	if d := a.config.Limits.HTTPSHandshakeTimeout; d > 0 {
		return newHandshakeListener(ln, a.tls.httpServer, d, a.log.With("component", "http"))
	}
	return tls.NewListener(ln, a.tls.httpServer)
}

// handshakeTimeout is the server's RPCHandshakeTimeout for the agent's
// limits.rpc_handshake_timeout, where 0 means none.
func handshakeTimeout(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// forwardTransportFor is the transport for forwarding client requests to
// another agent: HTTPS with the cluster CA when tls.http is on.
func forwardTransportFor(cfg *tls.Config) http.RoundTripper {
	if cfg == nil {
		return forwardTransport
	}
	t := forwardTransport.(*http.Transport).Clone()
	t.TLSClientConfig = cfg
	return t
}
