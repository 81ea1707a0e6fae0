package command

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil/agenttest"
	"github.com/drover-project/drover/internal/tlsutil/tlstest"
)

// runWithEnv is run with an environment.
func runWithEnv(t *testing.T, environ map[string]string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	e := newEnv(&out, &errb, func(k string) string { return environ[k] })
	code := e.dispatch(args)
	return result{out.String(), errb.String(), code}
}

// The global TLS flags reach an agent serving HTTPS with
// verify_https_client: each case is a command line, and whether the agent
// answers it.
func TestGlobalTLSFlags(t *testing.T) {
	ca := tlstest.NewCA(t, "cluster")
	rogue := tlstest.NewCA(t, "rogue")
	// The server's certificate names server.global.nomad (and 127.0.0.1),
	// not localhost.
	srvCert, srvKey := ca.Issue(t, "server", "server.global.nomad")
	cliCert, cliKey := ca.Issue(t, "cli", "cli.global.nomad")
	a := agenttest.Start(t, nil, func(cfg *config.Config) {
		cfg.Client.Enabled = false
		cfg.TLS = config.TLSConfig{HTTP: true, CAFile: ca.File, CertFile: srvCert, KeyFile: srvKey, VerifyHTTPSClient: true}
	})
	_, port, _ := strings.Cut(a.HTTPAddr(), ":")
	byIP, byName := "https://"+a.HTTPAddr(), "https://localhost:"+port
	caDir := t.TempDir()
	caPEM, err := os.ReadFile(ca.File)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(caDir, "ca.pem"), caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	mutual := []string{"-client-cert", cliCert, "-client-key", cliKey}
	cases := []struct {
		name    string
		environ map[string]string
		args    []string
		ok      bool
	}{
		{"ca cert and client cert", nil, append([]string{"-address", byIP, "-ca-cert", ca.File}, mutual...), true},
		{"ca path", nil, append([]string{"-address", byIP, "-ca-path", caDir}, mutual...), true},
		{"no ca", nil, append([]string{"-address", byIP}, mutual...), false},
		{"another ca", nil, append([]string{"-address", byIP, "-ca-cert", rogue.File}, mutual...), false},
		{"skip verify", nil, append([]string{"-address", byIP, "-tls-skip-verify"}, mutual...), true},
		{"no client cert", nil, []string{"-address", byIP, "-ca-cert", ca.File}, false},
		{"name not in the certificate", nil, append([]string{"-address", byName, "-ca-cert", ca.File}, mutual...), false},
		{"tls server name", nil, append([]string{"-address", byName, "-ca-cert", ca.File, "-tls-server-name", "server.global.nomad"}, mutual...), true},
		{"environment", map[string]string{"NOMAD_ADDR": byName, "NOMAD_CACERT": ca.File, "NOMAD_CLIENT_CERT": cliCert,
			"NOMAD_CLIENT_KEY": cliKey, "NOMAD_TLS_SERVER_NAME": "server.global.nomad"}, nil, true},
		{"environment, skip verify", map[string]string{"DROVER_ADDR": byIP, "DROVER_SKIP_VERIFY": "true",
			"DROVER_CLIENT_CERT": cliCert, "DROVER_CLIENT_KEY": cliKey}, nil, true},
		{"flag over environment", map[string]string{"NOMAD_CACERT": rogue.File},
			append([]string{"-address", byIP, "-ca-cert", ca.File}, mutual...), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := runWithEnv(t, tc.environ, append([]string{"namespace", "list"}, tc.args...)...)
			if ok := res.code == 0; ok != tc.ok {
				t.Fatalf("exit %d, want success %v\nstdout: %s\nstderr: %s", res.code, tc.ok, res.stdout, res.stderr)
			}
			if tc.ok && !strings.Contains(res.stdout, "default") {
				t.Fatalf("namespace list: %q", res.stdout)
			}
		})
	}
}

// Every command takes Nomad's global flags (and none of them clashes
// with a command's own: flag would panic on the redefinition).
func TestEveryCommandTakesTheGlobalFlags(t *testing.T) {
	global := []string{"address", "region", "namespace", "token", "ca-cert", "ca-path",
		"client-cert", "client-key", "tls-server-name", "tls-skip-verify"}
	for name, ctor := range registry {
		fs := newEnv(&bytes.Buffer{}, &bytes.Buffer{}, func(string) string { return "" }).flagSet(ctor())
		for _, g := range global {
			if fs.Lookup(g) == nil {
				t.Errorf("drover %s has no -%s", name, g)
			}
		}
	}
}
