package config

import "github.com/drover-project/drover/internal/tlsutil"

// TLSConfig is the tls { } block (Nomad's keys).
type TLSConfig struct {
	HTTP                 bool
	RPC                  bool
	CAFile               string
	CertFile             string
	KeyFile              string
	VerifyServerHostname bool
	VerifyHTTPSClient    bool
	// MinVersion is tls_min_version (tls10 to tls13; empty: tls12) and
	// CipherSuites tls_cipher_suites (comma-separated names).
	MinVersion   string
	CipherSuites string
}

type fileTLS struct {
	MinVersion           *string `hcl:"tls_min_version,optional"`
	CipherSuites         *string `hcl:"tls_cipher_suites,optional"`
	HTTP                 *bool   `hcl:"http,optional"`
	RPC                  *bool   `hcl:"rpc,optional"`
	CAFile               *string `hcl:"ca_file,optional"`
	CertFile             *string `hcl:"cert_file,optional"`
	KeyFile              *string `hcl:"key_file,optional"`
	VerifyServerHostname *bool   `hcl:"verify_server_hostname,optional"`
	VerifyHTTPSClient    *bool   `hcl:"verify_https_client,optional"`
}

func (ft *fileTLS) apply(t *TLSConfig) {
	set(&t.HTTP, ft.HTTP)
	set(&t.RPC, ft.RPC)
	set(&t.CAFile, ft.CAFile)
	set(&t.CertFile, ft.CertFile)
	set(&t.KeyFile, ft.KeyFile)
	set(&t.VerifyServerHostname, ft.VerifyServerHostname)
	set(&t.VerifyHTTPSClient, ft.VerifyHTTPSClient)
	set(&t.MinVersion, ft.MinVersion)
	set(&t.CipherSuites, ft.CipherSuites)
}

func (t *TLSConfig) merge(o *TLSConfig) {
	setNZ(&t.HTTP, o.HTTP)
	setNZ(&t.RPC, o.RPC)
	setNZ(&t.CAFile, o.CAFile)
	setNZ(&t.CertFile, o.CertFile)
	setNZ(&t.KeyFile, o.KeyFile)
	setNZ(&t.VerifyServerHostname, o.VerifyServerHostname)
	setNZ(&t.VerifyHTTPSClient, o.VerifyHTTPSClient)
	setNZ(&t.MinVersion, o.MinVersion)
	setNZ(&t.CipherSuites, o.CipherSuites)
}

func (t *TLSConfig) validate(add func(string, ...any)) {
	if (t.HTTP || t.RPC) && (t.CertFile == "" || t.KeyFile == "") {
		add("tls: cert_file and key_file are required when tls.http or tls.rpc is true")
	}
	if t.RPC && t.CAFile == "" {
		add("tls: ca_file is required when tls.rpc is true (mutual TLS)")
	}
	if t.VerifyHTTPSClient && (!t.HTTP || t.CAFile == "") {
		add("tls: verify_https_client needs tls.http = true and ca_file")
	}
	if _, ok := tlsutil.TLSVersions[t.MinVersion]; t.MinVersion != "" && !ok {
		add("tls.tls_min_version = %q must be tls10, tls11, tls12 or tls13", t.MinVersion)
	}
	if _, err := tlsutil.ParseCipherSuites(t.CipherSuites); err != nil {
		add("tls.tls_cipher_suites: %v", err)
	}
}
