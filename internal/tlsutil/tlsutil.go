package tlsutil

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// Config is the tls { } block's files and switches.
type Config struct {
	CAFile, CertFile, KeyFile string
	// VerifyServerHostname makes RPC clients require the server's
	// certificate to name server.<region>.nomad.
	VerifyServerHostname bool
	// VerifyHTTPSClient makes the HTTPS API require client certificates
	// signed by the CA.
	VerifyHTTPSClient bool
	Region            string
}

// ServerName is the name a server's certificate carries for region.
func ServerName(region string) string {
	if region == "" {
		region = "global"
	}
	return "server." + region + ".nomad"
}

func (c Config) keyPair() (tls.Certificate, error) {
	if c.CertFile == "" || c.KeyFile == "" {
		return tls.Certificate{}, errors.New("tls: cert_file and key_file are required")
	}
	cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("tls: loading cert_file/key_file: %w", err)
	}
	return cert, nil
}

func (c Config) caPool() (*x509.CertPool, error) {
	if c.CAFile == "" {
		return nil, errors.New("tls: ca_file is required")
	}
	pem, err := os.ReadFile(c.CAFile)
	if err != nil {
		return nil, fmt.Errorf("tls: reading ca_file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("tls: ca_file %s holds no PEM certificate", c.CAFile)
	}
	return pool, nil
}

func (c Config) keyPairAndCA() (tls.Certificate, *x509.CertPool, error) {
	cert, err := c.keyPair()
	if err != nil {
		return cert, nil, err
	}
	pool, err := c.caPool()
	return cert, pool, err
}

// HTTPServer is the HTTPS API's configuration.
func (c Config) HTTPServer() (*tls.Config, error) {
	cert, err := c.keyPair()
	if err != nil {
		return nil, err
	}
	out := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if c.VerifyHTTPSClient {
		if out.ClientCAs, err = c.caPool(); err != nil {
			return nil, err
		}
		out.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return out, nil
}

// RPCServer is the RPC listener's configuration: mutual TLS, every peer
// must present a certificate signed by the CA.
func (c Config) RPCServer() (*tls.Config, error) {
	cert, pool, err := c.keyPairAndCA()
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert}, ClientCAs: pool,
		ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12,
	}, nil
}

// RPCClient is an RPC client's configuration: its own certificate, the
// CA, and the server name check when VerifyServerHostname is set (else
// only the CA chain is checked, as Nomad does).
func (c Config) RPCClient() (*tls.Config, error) {
	return c.client(ServerName(c.Region), c.VerifyServerHostname)
}

// HTTPClient is the configuration agents use to reach each other's HTTPS
// API (forwarded client requests): chain checked against the CA, and the
// agent's own certificate offered for verify_https_client.
func (c Config) HTTPClient() (*tls.Config, error) {
	return c.client("", false)
}

func (c Config) client(serverName string, verifyName bool) (*tls.Config, error) {
	cert, pool, err := c.keyPairAndCA()
	if err != nil {
		return nil, err
	}
	out := &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, MinVersion: tls.VersionTLS12}
	if verifyName {
		out.ServerName = serverName
		return out, nil
	}
	// Verify the chain, not the name: InsecureSkipVerify only turns off
	// the built-in check, which VerifyPeerCertificate replaces.
	out.InsecureSkipVerify = true
	out.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
		return verifyChain(raw, pool)
	}
	return out, nil
}

// verifyChain checks the peer's chain against pool, ignoring names.
func verifyChain(raw [][]byte, pool *x509.CertPool) error {
	if len(raw) == 0 {
		return errors.New("tls: the server presented no certificate")
	}
	certs := make([]*x509.Certificate, len(raw))
	for i, r := range raw {
		c, err := x509.ParseCertificate(r)
		if err != nil {
			return fmt.Errorf("tls: bad server certificate: %w", err)
		}
		certs[i] = c
	}
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	_, err := certs[0].Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	return err
}
