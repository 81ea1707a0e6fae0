package tlsutil

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
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
	// MinVersion is the lowest TLS version spoken (tls.VersionTLS12 when
	// 0); CipherSuites, when set, are the only TLS 1.2 suites offered or
	// accepted (TLS 1.3's are not configurable in Go).
	MinVersion   uint16
	CipherSuites []uint16
}

// apply sets the version floor and suites on out.
func (c Config) apply(out *tls.Config) *tls.Config {
	out.MinVersion = tls.VersionTLS12
	if c.MinVersion != 0 {
		out.MinVersion = c.MinVersion
	}
	if len(c.CipherSuites) > 0 {
		out.CipherSuites = c.CipherSuites
	}
	return out
}

// TLSVersions are the tls_min_version names Nomad takes.
var TLSVersions = map[string]uint16{"tls10": tls.VersionTLS10, "tls11": tls.VersionTLS11, "tls12": tls.VersionTLS12, "tls13": tls.VersionTLS13}

// ParseCipherSuites reads tls_cipher_suites: a comma-separated list of
// Go's (IANA) names of secure suites.
func ParseCipherSuites(s string) ([]uint16, error) {
	byName := map[string]uint16{}
	for _, cs := range tls.CipherSuites() {
		byName[cs.Name] = cs.ID
	}
	insecure := map[string]bool{}
	for _, cs := range tls.InsecureCipherSuites() {
		insecure[cs.Name] = true
	}
	var out []uint16
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		id, ok := byName[name]
		if !ok {
			if insecure[name] {
				return nil, fmt.Errorf("cipher suite %s is insecure", name)
			}
			return nil, fmt.Errorf("%q is not a cipher suite Go knows", name)
		}
		out = append(out, id)
	}
	return out, nil
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
	out := c.apply(&tls.Config{Certificates: []tls.Certificate{cert}})
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
	return c.apply(&tls.Config{
		Certificates: []tls.Certificate{cert}, ClientCAs: pool,
		ClientAuth: tls.RequireAndVerifyClientCert,
	}), nil
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
	out := c.apply(&tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool})
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
