package agent

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/client/rpcclient"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
	"github.com/drover-project/drover/internal/tlsutil"
	"github.com/drover-project/drover/internal/tlsutil/tlstest"
)

// TestTLS_HTTPSAndMutualTLSRPC runs an agent with tls { http rpc
// verify_server_hostname verify_https_client }: its own client registers
// over mutual TLS, the official client reaches the API over HTTPS with a
// client certificate, and plaintext or foreign certificates are refused.
func TestTLS_HTTPSAndMutualTLSRPC(t *testing.T) {
	ca := tlstest.NewCA(t, "cluster")
	rogue := tlstest.NewCA(t, "rogue")
	srvCert, srvKey := ca.Issue(t, "server", "server.global.nomad", "localhost")
	cliCert, cliKey := ca.Issue(t, "cli", "client.global.nomad")
	rogueCert, rogueKey := rogue.Issue(t, "rogue", "client.global.nomad")

	a, _ := testAgent(t, func(cfg *config.Config) {
		cfg.Client.Enabled = true
		cfg.DataDir = testutil.DataDir(t)
		cfg.TLS = config.TLSConfig{HTTP: true, RPC: true, CAFile: ca.File, CertFile: srvCert, KeyFile: srvKey,
			VerifyServerHostname: true, VerifyHTTPSClient: true}
	})
	c, err := api.NewClient(&api.Config{Address: "https://" + a.HTTPAddr(),
		TLSConfig: &api.TLSConfig{CACert: ca.File, ClientCert: cliCert, ClientKey: cliKey}})
	if err != nil {
		t.Fatal(err)
	}
	// The agent's own client registered over mutual TLS.
	testutil.WaitFor(t, 15*time.Second, "a ready node over TLS", func() (bool, string) {
		nodes, _, err := c.Nodes().List(nil)
		return err == nil && len(nodes) == 1 && nodes[0].Status == "ready", fmt.Sprintf("%v %v", nodes, err)
	})

	for name, cfg := range map[string]*api.Config{
		"plain http":          {Address: "http://" + a.HTTPAddr()},
		"no client cert":      {Address: "https://" + a.HTTPAddr(), TLSConfig: &api.TLSConfig{CACert: ca.File}},
		"foreign client cert": {Address: "https://" + a.HTTPAddr(), TLSConfig: &api.TLSConfig{CACert: ca.File, ClientCert: rogueCert, ClientKey: rogueKey}},
	} {
		bad, err := api.NewClient(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := bad.Agent().Self(); err == nil {
			t.Errorf("%s: the HTTPS API answered", name)
		}
	}

	// RPC: plaintext and foreign certificates are refused; the cluster's
	// certificate works.
	node := simNode(9, 1000, 1000)
	node.SecretID = "tls-node"
	args := &structs.NodeRegisterArgs{Node: node, NodeRegistrationToken: a.config.Server.NodeRegistrationToken}
	register := func(tc *tlsutil.Config) error {
		rc, err := rpcclient.New([]string{a.RPCAddr()})
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		if tc != nil {
			cfg, err := tc.RPCClient()
			if err != nil {
				t.Fatal(err)
			}
			rc.UseTLS(cfg)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err = rc.Register(ctx, args)
		return err
	}
	if err := register(nil); err == nil {
		t.Error("plaintext RPC registered a node")
	}
	if err := register(&tlsutil.Config{CAFile: ca.File, CertFile: rogueCert, KeyFile: rogueKey, VerifyServerHostname: true}); err == nil {
		t.Error("a foreign client certificate registered a node")
	}
	if err := register(&tlsutil.Config{CAFile: rogue.File, CertFile: cliCert, KeyFile: cliKey}); err == nil || !strings.Contains(err.Error(), "unknown authority") {
		t.Errorf("a client trusting another CA: %v", err)
	}
	if err := register(&tlsutil.Config{CAFile: ca.File, CertFile: cliCert, KeyFile: cliKey, VerifyServerHostname: true, Region: "global"}); err != nil {
		t.Errorf("mutual TLS register: %v", err)
	}
}

// TestTLS_ForwardedClientRequestsUseHTTPS: with tls { http rpc
// verify_https_client }, a client-only agent registers over mutual TLS,
// and a log request sent to the server agent is forwarded to it over
// HTTPS with the server agent's certificate.
func TestTLS_ForwardedClientRequestsUseHTTPS(t *testing.T) {
	ca := tlstest.NewCA(t, "cluster")
	srvCert, srvKey := ca.Issue(t, "server", "server.global.nomad", "localhost")
	cliCert, cliKey := ca.Issue(t, "client", "client.global.nomad", "localhost")
	tlsCfg := func(cert, key string) config.TLSConfig {
		return config.TLSConfig{HTTP: true, RPC: true, CAFile: ca.File, CertFile: cert, KeyFile: key,
			VerifyServerHostname: true, VerifyHTTPSClient: true}
	}
	first, _ := testAgent(t, func(cfg *config.Config) {
		cfg.Client.Enabled = true
		cfg.DataDir = testutil.DataDir(t)
		cfg.Server.EnabledSchedulers = nil
		cfg.TLS = tlsCfg(srvCert, srvKey)
	})
	second := clientOnlyAgentWith(t, func(cfg *config.Config) { cfg.TLS = tlsCfg(cliCert, cliKey) }, first.RPCAddr())
	c, err := api.NewClient(&api.Config{Address: "https://" + first.HTTPAddr(),
		TLSConfig: &api.TLSConfig{CACert: ca.File, ClientCert: cliCert, ClientKey: cliKey}})
	if err != nil {
		t.Fatal(err)
	}
	job := shellJob("tls-fwd", `echo over-https; sleep 100`)
	job.Constrain(api.NewConstraint("${node.unique.id}", "=", second.Client().NodeID()))
	alloc := runJob(t, c, job)
	eventually(t, 10*time.Second, func() string {
		if out := readLogs(t, c, alloc, "stdout", api.OriginStart, 0); out != "over-https\n" {
			return "logs: " + out
		}
		return ""
	})
	// Through the server agent, which forwards over HTTPS.
	httpsCfg, err := (tlsutil.Config{CAFile: ca.File, CertFile: cliCert, KeyFile: cliKey}).HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: httpsCfg}, Timeout: 10 * time.Second}
	resp, err := hc.Get("https://" + first.HTTPAddr() + "/v1/client/fs/logs/" + alloc.ID + "?task=t&type=stdout&plain=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != "over-https\n" {
		t.Fatalf("forwarded over HTTPS: %d %q", resp.StatusCode, body)
	}
}

// TestTLS_MinVersionAndCipherSuites: tls_min_version refuses older
// clients; tls_cipher_suites refuses a TLS 1.2 client offering none of
// the listed suites.
func TestTLS_MinVersionAndCipherSuites(t *testing.T) {
	ca := tlstest.NewCA(t, "cluster")
	cert, key := ca.Issue(t, "server", "server.global.nomad", "localhost")
	dial := func(a *Agent, c *tls.Config) error {
		c.InsecureSkipVerify = true
		conn, err := tls.Dial("tcp", a.HTTPAddr(), c)
		if err == nil {
			conn.Close()
		}
		return err
	}
	v13, _ := testAgent(t, func(c *config.Config) {
		c.TLS = config.TLSConfig{HTTP: true, CertFile: cert, KeyFile: key, MinVersion: "tls13"}
	})
	if err := dial(v13, &tls.Config{MaxVersion: tls.VersionTLS12}); err == nil {
		t.Error("tls_min_version tls13: a TLS 1.2 client connected")
	}
	if err := dial(v13, &tls.Config{}); err != nil {
		t.Errorf("tls_min_version tls13: a TLS 1.3 client: %v", err)
	}
	suites, _ := testAgent(t, func(c *config.Config) {
		c.TLS = config.TLSConfig{HTTP: true, CertFile: cert, KeyFile: key, MinVersion: "tls12",
			CipherSuites: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"}
	})
	other := []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}
	if err := dial(suites, &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: other}); err == nil {
		t.Error("tls_cipher_suites: a client offering other suites connected")
	}
	listed := []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384}
	if err := dial(suites, &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: listed}); err != nil {
		t.Errorf("tls_cipher_suites: a client offering a listed suite: %v", err)
	}
	bad := config.DevConfig()
	bad.TLS = config.TLSConfig{HTTP: true, CertFile: cert, KeyFile: key, MinVersion: "ssl3", CipherSuites: "TLS_RSA_WITH_RC4_128_SHA"}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "tls_min_version") || !strings.Contains(err.Error(), "insecure") {
		t.Errorf("bad tls values: %v", err)
	}
}
