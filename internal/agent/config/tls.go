package config

// TLSConfig is the tls { } block (Nomad's keys).
type TLSConfig struct {
	HTTP                 bool
	RPC                  bool
	CAFile               string
	CertFile             string
	KeyFile              string
	VerifyServerHostname bool
	VerifyHTTPSClient    bool
}

type fileTLS struct {
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
}

func (t *TLSConfig) merge(o *TLSConfig) {
	setNZ(&t.HTTP, o.HTTP)
	setNZ(&t.RPC, o.RPC)
	setNZ(&t.CAFile, o.CAFile)
	setNZ(&t.CertFile, o.CertFile)
	setNZ(&t.KeyFile, o.KeyFile)
	setNZ(&t.VerifyServerHostname, o.VerifyServerHostname)
	setNZ(&t.VerifyHTTPSClient, o.VerifyHTTPSClient)
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
}
