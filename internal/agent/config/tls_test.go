package config

import (
	"strings"
	"testing"
)

func TestLoadTLSBlock(t *testing.T) {
	c, err := Load(write(t, "tls.hcl", `
tls {
  http = true
  rpc  = true
  ca_file   = "/etc/drover/ca.pem"
  cert_file = "/etc/drover/server.pem"
  key_file  = "/etc/drover/server-key.pem"
  verify_server_hostname = true
  verify_https_client    = true
}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := TLSConfig{HTTP: true, RPC: true, CAFile: "/etc/drover/ca.pem", CertFile: "/etc/drover/server.pem",
		KeyFile: "/etc/drover/server-key.pem", VerifyServerHostname: true, VerifyHTTPSClient: true}
	if c.TLS != want {
		t.Fatalf("tls = %+v", c.TLS)
	}
	bad := Default()
	bad.Server.Enabled = true
	bad.DataDir = "/tmp/x"
	bad.TLS = TLSConfig{RPC: true, VerifyHTTPSClient: true}
	err = bad.Validate()
	for _, w := range []string{"cert_file and key_file are required", "ca_file is required when tls.rpc", "verify_https_client needs"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("validate: %v, want %q", err, w)
		}
	}
}
