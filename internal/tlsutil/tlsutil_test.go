package tlsutil_test

import (
	"crypto/tls"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/tlsutil"
	"github.com/drover-project/drover/internal/tlsutil/tlstest"
)

// handshake runs one TLS exchange between an RPC server and client
// configuration over loopback TCP and returns the client's error: from
// its handshake, or from reading the server's answer (in TLS 1.3 the
// server rejects a client certificate after the client's handshake).
func handshake(t *testing.T, srv, cli *tls.Config) error {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		if err := conn.(*tls.Conn).Handshake(); err == nil {
			_, _ = conn.Write([]byte{1})
		}
	}()
	conn, err := tls.Dial("tcp", ln.Addr().String(), cli)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = conn.Read(make([]byte, 1))
	return err
}

func TestRPCTLS_MutualAndServerNames(t *testing.T) {
	ca := tlstest.NewCA(t, "cluster")
	rogue := tlstest.NewCA(t, "rogue")
	srvCert, srvKey := ca.Issue(t, "server", "server.global.nomad")
	otherCert, otherKey := ca.Issue(t, "other", "server.europe.nomad")
	cliCert, cliKey := ca.Issue(t, "client", "client.global.nomad")
	rogueCert, rogueKey := rogue.Issue(t, "rogue", "server.global.nomad")

	cfg := func(caFile, cert, key string, verify bool) tlsutil.Config {
		return tlsutil.Config{CAFile: caFile, CertFile: cert, KeyFile: key, VerifyServerHostname: verify, Region: "global"}
	}
	mustServer := func(c tlsutil.Config) *tls.Config {
		s, err := c.RPCServer()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	mustClient := func(c tlsutil.Config) *tls.Config {
		s, err := c.RPCClient()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		name     string
		srv, cli tlsutil.Config
		wantErr  string
	}{
		{"mutual, name checked", cfg(ca.File, srvCert, srvKey, false), cfg(ca.File, cliCert, cliKey, true), ""},
		{"wrong region's server refused with verify_server_hostname", cfg(ca.File, otherCert, otherKey, false), cfg(ca.File, cliCert, cliKey, true), "server.global.nomad"},
		{"wrong region's server accepted without it", cfg(ca.File, otherCert, otherKey, false), cfg(ca.File, cliCert, cliKey, false), ""},
		{"server from another CA refused", cfg(rogue.File, rogueCert, rogueKey, false), cfg(ca.File, cliCert, cliKey, false), "certificate signed by unknown authority"},
		{"server from another CA refused (names checked)", cfg(rogue.File, rogueCert, rogueKey, false), cfg(ca.File, cliCert, cliKey, true), "certificate signed by unknown authority"},
		{"client from another CA refused", cfg(ca.File, srvCert, srvKey, false), cfg(ca.File, rogueCert, rogueKey, true), "remote error: tls: certificate required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := handshake(t, mustServer(tc.srv), mustClient(tc.cli))
			if tc.wantErr == "" && err != nil {
				t.Fatalf("handshake: %v", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("handshake err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestConfig_MissingFilesAreErrors(t *testing.T) {
	if _, err := (tlsutil.Config{}).HTTPServer(); err == nil || !strings.Contains(err.Error(), "cert_file") {
		t.Fatalf("no cert: %v", err)
	}
	ca := tlstest.NewCA(t, "c")
	cert, key := ca.Issue(t, "s", "localhost")
	if _, err := (tlsutil.Config{CertFile: cert, KeyFile: key}).RPCServer(); err == nil || !strings.Contains(err.Error(), "ca_file") {
		t.Fatalf("no CA: %v", err)
	}
	if _, err := (tlsutil.Config{CAFile: cert + ".missing", CertFile: cert, KeyFile: key}).RPCClient(); err == nil {
		t.Fatal("missing CA file accepted")
	}
	if tlsutil.ServerName("") != "server.global.nomad" || tlsutil.ServerName("eu") != "server.eu.nomad" {
		t.Fatal("server names")
	}
}
