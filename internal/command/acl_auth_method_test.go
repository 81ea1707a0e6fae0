package command

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
)

// TestAuthMethodCommands drives acl auth-method and binding-rule
// create/list/info/update/delete and `login` with a JWT signed in the
// test, through the default method.
func TestAuthMethodCommands(t *testing.T) {
	addr, _ := testAgent(t, func(c *config.Config) { c.ACL.Enabled = true })
	var root api.ACLToken
	if r := run(t, "acl", "bootstrap", "-address", addr, "-json"); r.code != 0 || json.Unmarshal([]byte(r.stdout), &root) != nil {
		t.Fatalf("bootstrap: %+v", r)
	}
	as := func(args ...string) []string { return append(args, "-address", addr, "-token", root.SecretID) }
	dir := t.TempDir()
	rules := filepath.Join(dir, "nodes.hcl")
	if err := os.WriteFile(rules, []byte(`node { policy = "read" }`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := run(t, append(as("acl", "policy", "apply"), "nodes", rules)...); r.code != 0 {
		t.Fatalf("policy apply: %+v", r)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	cfg, _ := json.Marshal(map[string]any{
		"JWTValidationPubKeys": []string{string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))},
		"SigningAlgs":          []string{"ES256"}, "BoundAudiences": []string{"drover"},
		"ClaimMappings": map[string]string{"sub": "user"}, "ListClaimMappings": map[string]string{"groups": "groups"},
	})
	cfgFile := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfgFile, cfg, 0o600); err != nil {
		t.Fatal(err)
	}

	r := run(t, as("acl", "auth-method", "create", "-name", "corp", "-type", "JWT", "-token-locality", "local",
		"-max-token-ttl", "1h", "-default", "-config", "@"+cfgFile)...)
	if r.code != 0 || !strings.Contains(r.stdout, "Max Token TTL") || !strings.Contains(r.stdout, "{sub: user}") {
		t.Fatalf("auth-method create: %+v", r)
	}
	r = run(t, as("acl", "auth-method", "create", "-name", "x", "-type", "JWT", "-token-locality", "local",
		"-max-token-ttl", "1h", "-config", `{"JWKSURL":"http://x","Bogus":1}`)...)
	if r.code == 0 || !strings.Contains(r.stderr, `unknown key "Bogus"`) {
		t.Fatalf("unknown config key: %+v", r)
	}
	if r := run(t, as("acl", "auth-method", "list")...); r.code != 0 || !strings.Contains(r.stdout, "corp") || !strings.Contains(r.stdout, "true") {
		t.Fatalf("auth-method list: %+v", r)
	}
	if r := run(t, append(as("acl", "auth-method", "update", "-max-token-ttl", "2h"), "corp")...); r.code != 0 || !strings.Contains(r.stdout, "2h0m0s") {
		t.Fatalf("auth-method update: %+v", r)
	}
	r = run(t, as("acl", "binding-rule", "create", "-auth-method", "corp", "-selector", `"ops" in list.groups`,
		"-bind-type", "policy", "-bind-name", "nodes", "-json")...)
	var rule api.ACLBindingRule
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rule) != nil || rule.ID == "" {
		t.Fatalf("binding-rule create: %+v", r)
	}
	if r := run(t, append(as("acl", "binding-rule", "update", "-description", "ops read nodes"), rule.ID)...); r.code != 0 ||
		!strings.Contains(r.stdout, "ops read nodes") || !strings.Contains(r.stdout, `"\"ops\" in list.groups"`) {
		t.Fatalf("binding-rule update: %+v", r)
	}
	if r := run(t, as("acl", "binding-rule", "list")...); r.code != 0 || !strings.Contains(r.stdout, rule.ID) {
		t.Fatalf("binding-rule list: %+v", r)
	}

	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, nil)
	sign := func(groups ...string) string {
		s, err := jwt.Signed(signer).Claims(jwt.Claims{Subject: "alice", Audience: jwt.Audience{"drover"},
			Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour))}).Claims(map[string]any{"groups": groups}).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	r = run(t, "login", "-address", addr, "-login-token", sign("ops"))
	if r.code != 0 || !strings.Contains(r.stdout, "Successfully logged in via JWT and corp") || !strings.Contains(r.stdout, "[nodes]") {
		t.Fatalf("login: %+v", r)
	}
	if r := run(t, "login", "-address", addr, "-method", "corp", "-login-token", sign("sales")); r.code == 0 || !strings.Contains(r.stderr, "no binding rule") {
		t.Fatalf("login without a matching rule: %+v", r)
	}
	if r := run(t, "login", "-address", addr, "-method", "corp", "-oidc-callback-addr", "localhost:1", "-login-token", sign("ops")); r.code == 0 || !strings.Contains(r.stderr, "-oidc-callback-addr: only used with an OIDC") {
		t.Fatalf("JWT login with a callback address: %+v", r)
	}
	if r := run(t, append(as("acl", "binding-rule", "delete"), rule.ID)...); r.code != 0 || !strings.Contains(r.stdout, "successfully deleted") {
		t.Fatalf("binding-rule delete: %+v", r)
	}
	if r := run(t, append(as("acl", "auth-method", "delete"), "corp")...); r.code != 0 || !strings.Contains(r.stdout, "successfully deleted") {
		t.Fatalf("auth-method delete: %+v", r)
	}
}

// `login` with an OIDC method: the command listens for the callback,
// prints the provider's URL and "opens" it (the test is the browser: it
// follows the URL, the provider redirects to the command's listener),
// completes the login and prints the token.
func TestLoginOIDC(t *testing.T) {
	addr, _ := testAgent(t, func(c *config.Config) { c.ACL.Enabled = true })
	var root api.ACLToken
	if r := run(t, "acl", "bootstrap", "-address", addr, "-json"); r.code != 0 || json.Unmarshal([]byte(r.stdout), &root) != nil {
		t.Fatalf("bootstrap: %+v", r)
	}
	p := testutil.NewOIDCProvider(t, "drover-cli", "s3cret")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	callback := ln.Addr().String()
	ln.Close()
	c, err := api.NewClient(&api.Config{Address: addr, SecretID: root.SecretID})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ACLAuthMethods().Create(&api.ACLAuthMethod{Name: "sso", Type: "OIDC", TokenLocality: "local", MaxTokenTTL: time.Hour, Default: true,
		Config: &api.ACLAuthMethodConfig{OIDCDiscoveryURL: p.URL, OIDCClientID: "drover-cli", OIDCClientSecret: "s3cret", OIDCEnablePKCE: true,
			AllowedRedirectURIs: []string{"http://" + callback + "/oidc/callback"}, SigningAlgs: []string{"ES256"}}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ACLBindingRules().Create(&api.ACLBindingRule{AuthMethod: "sso", BindType: "management"}, nil); err != nil {
		t.Fatal(err)
	}
	if r := run(t, "acl", "auth-method", "info", "-address", addr, "-token", root.SecretID, "sso"); r.code != 0 ||
		!strings.Contains(r.stdout, "OIDC Client ID") || !strings.Contains(r.stdout, "drover-cli") || !strings.Contains(r.stdout, "/oidc/callback") {
		t.Fatalf("auth-method info: %+v", r)
	}
	var out, errb bytes.Buffer
	e := newEnv(&out, &errb, func(string) string { return "" })
	var opened string
	e.openURL = func(u string) error {
		opened = u
		resp, err := http.Get(u) // follows the provider's redirect to the command's callback
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("callback answered %s", resp.Status)
		}
		return nil
	}
	code := e.dispatch([]string{"login", "-address", addr, "-oidc-callback-addr", callback})
	if code != 0 || !strings.Contains(out.String(), "Successfully logged in via OIDC and sso") || !strings.Contains(out.String(), "management") {
		t.Fatalf("login: code %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
	}
	if !strings.HasPrefix(opened, p.URL+"/authorize?") || !strings.Contains(errb.String(), opened) || !strings.Contains(opened, "code_challenge_method=S256") {
		t.Fatalf("opened %q; stderr %s", opened, errb.String())
	}
	if r := run(t, "login", "-address", addr, "-login-token", "x"); r.code == 0 || !strings.Contains(r.stderr, "-login-token: an OIDC auth method") {
		t.Fatalf("OIDC login with a token: %+v", r)
	}
}
