package agent

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/hashicorp/nomad/api"
)

// testIssuer signs JWTs with a key generated for the test.
type testIssuer struct {
	key    *ecdsa.PrivateKey
	signer jose.Signer
}

func newTestIssuer(t *testing.T) *testIssuer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
	if err != nil {
		t.Fatal(err)
	}
	return &testIssuer{key: key, signer: signer}
}

func (i *testIssuer) publicPEM(t *testing.T) string {
	der, err := x509.MarshalPKIXPublicKey(&i.key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// jwks serves the issuer's key set.
func (i *testIssuer) jwks(t *testing.T) *httptest.Server {
	body, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &i.key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	t.Cleanup(srv.Close)
	return srv
}

func (i *testIssuer) sign(t *testing.T, std jwt.Claims, extra map[string]any) string {
	t.Helper()
	s, err := jwt.Signed(i.signer).Claims(std).Claims(extra).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func stdClaims(iss, aud string, exp time.Time) jwt.Claims {
	return jwt.Claims{Issuer: iss, Audience: jwt.Audience{aud}, Subject: "alice",
		Expiry: jwt.NewNumericDate(exp), NotBefore: jwt.NewNumericDate(time.Now().Add(-time.Minute))}
}

// A JWT auth method and its binding rules through the official client: a
// login whose claims match a rule gets a token with the bound role and
// policy that works and carries the method's TTL; the wrong audience,
// issuer, key, an expired token or one no rule matches are 403s that
// say why.
func TestACLHTTP_AuthMethodJWTLogin(t *testing.T) {
	a, c, _ := aclAgent(t)
	iss := newTestIssuer(t)
	for _, p := range []*api.ACLPolicy{
		{Name: "eng-read", Rules: `namespace "default" { policy = "read" }`},
		{Name: "nodes", Rules: `node { policy = "read" }`},
	} {
		if _, err := c.ACLPolicies().Upsert(p, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := c.ACLRoles().Create(&api.ACLRole{Name: "engineering", Policies: []*api.ACLRolePolicyLink{{Name: "eng-read"}}}, nil); err != nil {
		t.Fatal(err)
	}
	method := &api.ACLAuthMethod{Name: "corp", Type: "JWT", TokenLocality: "global", MaxTokenTTL: time.Hour,
		TokenNameFormat: "${auth_method_name}-${value.user}", Default: true,
		Config: &api.ACLAuthMethodConfig{JWTValidationPubKeys: []string{iss.publicPEM(t)}, SigningAlgs: []string{"ES256"},
			BoundAudiences: []string{"drover"}, BoundIssuer: []string{"https://idp.test"},
			ClaimMappings: map[string]string{"sub": "user"}, ListClaimMappings: map[string]string{"groups": "groups"}}}
	created, _, err := c.ACLAuthMethods().Create(method, nil)
	if err != nil {
		t.Fatal(err)
	}
	if created.Name != "corp" || created.MaxTokenTTL != time.Hour || !created.Default || created.CreateIndex == 0 ||
		created.Config.BoundAudiences[0] != "drover" || created.Config.ClaimMappings["sub"] != "user" {
		t.Fatalf("created %+v config %+v", created, created.Config)
	}
	stubs, _, err := c.ACLAuthMethods().List(nil)
	if err != nil || len(stubs) != 1 || stubs[0].Name != "corp" || stubs[0].Type != "JWT" || !stubs[0].Default {
		t.Fatalf("list %+v %v", stubs, err)
	}
	rule, _, err := c.ACLBindingRules().Create(&api.ACLBindingRule{AuthMethod: "corp", Selector: `"eng" in list.groups`,
		BindType: "role", BindName: "engineering"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ACLBindingRules().Create(&api.ACLBindingRule{AuthMethod: "corp", Selector: `value.user == "alice"`,
		BindType: "policy", BindName: "nodes"}, nil); err != nil {
		t.Fatal(err)
	}
	got, _, err := c.ACLBindingRules().Get(rule.ID, nil)
	if err != nil || got.Selector != rule.Selector || got.BindName != "engineering" {
		t.Fatalf("get rule %+v %v", got, err)
	}

	anon := withToken(t, a, "")
	good := iss.sign(t, stdClaims("https://idp.test", "drover", time.Now().Add(time.Hour)), map[string]any{"groups": []string{"eng", "ops"}})
	tok, _, err := anon.ACLAuth().Login(&api.ACLLoginRequest{AuthMethodName: "corp", LoginToken: good}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tok.Name != "corp-alice" || tok.Type != "client" || !tok.Global || len(tok.Roles) != 1 || tok.Roles[0].Name != "engineering" ||
		len(tok.Policies) != 1 || tok.Policies[0] != "nodes" || tok.ExpirationTime == nil ||
		!tok.ExpirationTime.Equal(tok.CreateTime.Add(time.Hour)) {
		t.Fatalf("login token %+v", tok)
	}
	holder := withToken(t, a, tok.SecretID)
	if _, _, err := holder.Jobs().List(nil); err != nil {
		t.Fatalf("role's namespace read: %v", err)
	}
	if _, _, err := holder.Nodes().List(nil); err != nil {
		t.Fatalf("bound policy's node read: %v", err)
	}
	_, _, err = holder.ACLAuthMethods().Get("corp", nil)
	wantHTTPError(t, err, "403", "Permission denied")

	for _, tc := range []struct {
		name, token, want string
	}{
		{"expired", iss.sign(t, stdClaims("https://idp.test", "drover", time.Now().Add(-time.Hour)), nil), "expired"},
		{"audience", iss.sign(t, stdClaims("https://idp.test", "other", time.Now().Add(time.Hour)), nil), "audience"},
		{"issuer", iss.sign(t, stdClaims("https://evil.test", "drover", time.Now().Add(time.Hour)), nil), "issuer"},
		{"key", newTestIssuer(t).sign(t, stdClaims("https://idp.test", "drover", time.Now().Add(time.Hour)), nil), "signature"},
		{"no rule matches", iss.sign(t, jwt.Claims{Issuer: "https://idp.test", Audience: jwt.Audience{"drover"}, Subject: "bob",
			Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour))}, map[string]any{"groups": []string{"sales"}}), "no binding rule"},
		{"not a JWT", "nope", "not a JWT"},
	} {
		_, _, err := anon.ACLAuth().Login(&api.ACLLoginRequest{AuthMethodName: "corp", LoginToken: tc.token}, nil)
		if err == nil {
			t.Fatalf("%s: login succeeded", tc.name)
		}
		wantHTTPError(t, err, "403", tc.want)
	}
	_, _, err = anon.ACLAuth().Login(&api.ACLLoginRequest{AuthMethodName: "nope", LoginToken: good}, nil)
	wantHTTPError(t, err, "404", "not found")

	// Writes are management only; deleting the method deletes its rules.
	_, _, err = holder.ACLBindingRules().Create(&api.ACLBindingRule{AuthMethod: "corp", BindType: "management"}, nil)
	wantHTTPError(t, err, "403", "Permission denied")
	if _, err := c.ACLAuthMethods().Delete("corp", nil); err != nil {
		t.Fatal(err)
	}
	rules, _, err := c.ACLBindingRules().List(nil)
	if err != nil || len(rules) != 0 {
		t.Fatalf("rules after method delete: %+v %v", rules, err)
	}
}

// A JWT method reading its keys from a JWKS URL; a management binding
// mints a management token.
func TestACLHTTP_AuthMethodJWKS(t *testing.T) {
	a, c, _ := aclAgent(t)
	iss := newTestIssuer(t)
	jwks := iss.jwks(t)
	if _, _, err := c.ACLAuthMethods().Create(&api.ACLAuthMethod{Name: "jwks", Type: "JWT", TokenLocality: "local", MaxTokenTTL: 10 * time.Minute,
		Config: &api.ACLAuthMethodConfig{JWKSURL: jwks.URL, SigningAlgs: []string{"ES256"}, ClaimMappings: map[string]string{"sub": "user"}}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ACLBindingRules().Create(&api.ACLBindingRule{AuthMethod: "jwks", Selector: `value.user == "alice"`, BindType: "management"}, nil); err != nil {
		t.Fatal(err)
	}
	tok, _, err := withToken(t, a, "").ACLAuth().Login(&api.ACLLoginRequest{AuthMethodName: "jwks",
		LoginToken: iss.sign(t, stdClaims("any", "any", time.Now().Add(time.Minute)), nil)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tok.Type != "management" || tok.Global || tok.Name != "JWT-jwks" {
		t.Fatalf("token %+v", tok)
	}

	// OIDC discovery: the provider's document names its JWKS, over TLS
	// trusted through DiscoveryCaPem.
	var idp *httptest.Server
	idp = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/openid-configuration" {
			json.NewEncoder(w).Encode(map[string]string{"issuer": idp.URL, "jwks_uri": idp.URL + "/keys"})
			return
		}
		body, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &iss.key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
		w.Write(body)
	}))
	t.Cleanup(idp.Close)
	caPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: idp.Certificate().Raw}))
	if _, _, err := c.ACLAuthMethods().Create(&api.ACLAuthMethod{Name: "discovered", Type: "JWT", TokenLocality: "global", MaxTokenTTL: time.Hour,
		Config: &api.ACLAuthMethodConfig{OIDCDiscoveryURL: idp.URL, DiscoveryCaPem: []string{caPEM}, SigningAlgs: []string{"ES256"},
			BoundIssuer: []string{idp.URL}}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ACLBindingRules().Create(&api.ACLBindingRule{AuthMethod: "discovered", BindType: "management"}, nil); err != nil {
		t.Fatal(err)
	}
	tok, _, err = withToken(t, a, "").ACLAuth().Login(&api.ACLLoginRequest{AuthMethodName: "discovered",
		LoginToken: iss.sign(t, stdClaims(idp.URL, "any", time.Now().Add(time.Minute)), nil)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tok.Type != "management" || !tok.Global {
		t.Fatalf("token %+v", tok)
	}
}

// What Drover does not act on is refused with a 400 naming it.
func TestACLHTTP_AuthMethodRefusals(t *testing.T) {
	a, c, _ := aclAgent(t)
	key := newTestIssuer(t).publicPEM(t)
	ok := func() *api.ACLAuthMethod {
		return &api.ACLAuthMethod{Name: "m", Type: "JWT", TokenLocality: "local", MaxTokenTTL: time.Hour,
			Config: &api.ACLAuthMethodConfig{JWTValidationPubKeys: []string{key}}}
	}
	for _, tc := range []struct {
		mutate func(*api.ACLAuthMethod)
		want   string
	}{
		{func(m *api.ACLAuthMethod) { m.Type = "OIDC" }, "Config.JWTValidationPubKeys: not used by an OIDC auth method"},
		{func(m *api.ACLAuthMethod) { m.Config.VerboseLogging = true }, "Config.VerboseLogging"},
		{func(m *api.ACLAuthMethod) { m.Type = "LDAP" }, "Type"},
		{func(m *api.ACLAuthMethod) { m.TokenLocality = "" }, "TokenLocality"},
		{func(m *api.ACLAuthMethod) { m.MaxTokenTTL = 0 }, "MaxTokenTTL"},
		{func(m *api.ACLAuthMethod) { m.Config = nil }, "Config"},
		{func(m *api.ACLAuthMethod) { m.Config.OIDCClientID = "x" }, "Config.OIDCClientID"},
		{func(m *api.ACLAuthMethod) { m.Config.JWKSURL = "http://x" }, "exactly one of"},
		{func(m *api.ACLAuthMethod) { m.Config.JWTValidationPubKeys = []string{"junk"} }, "JWTValidationPubKeys[0]"},
		{func(m *api.ACLAuthMethod) { m.Config.SigningAlgs = []string{"HS256"} }, "SigningAlgs"},
		{func(m *api.ACLAuthMethod) { m.Config.OIDCClientAssertion = &api.OIDCClientAssertion{} }, "OIDCClientAssertion"},
	} {
		m := ok()
		tc.mutate(m)
		_, _, err := c.ACLAuthMethods().Create(m, nil)
		wantHTTPError(t, err, "400", tc.want)
	}
	if _, _, err := c.ACLAuthMethods().Create(ok(), nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rule *api.ACLBindingRule
		want string
	}{
		{&api.ACLBindingRule{AuthMethod: "nope", BindType: "management"}, `auth method "nope" does not exist`},
		{&api.ACLBindingRule{AuthMethod: "m", BindType: "group", BindName: "x"}, "BindType"},
		{&api.ACLBindingRule{AuthMethod: "m", BindType: "role"}, "BindName"},
		{&api.ACLBindingRule{AuthMethod: "m", BindType: "role", BindName: "${nope}"}, "BindName"},
		{&api.ACLBindingRule{AuthMethod: "m", BindType: "role", BindName: "x", Selector: "value.x ==="}, "Selector"},
	} {
		_, _, err := c.ACLBindingRules().Create(tc.rule, nil)
		wantHTTPError(t, err, "400", tc.want)
	}
	for body, want := range map[string]string{
		`{"Name":"m2","Description":"d"}`:        `unknown field "Description"`,
		`{"Name":"m2","Config":{"JWKSUrl":"x"}}`: `unknown field "Config.JWKSUrl"`,
	} {
		var out any
		_, err := c.Raw().Write("/v1/acl/auth-method", json.RawMessage(body), &out, nil)
		wantHTTPError(t, err, "400", want)
	}
	_, _, err := withToken(t, a, "").ACLAuth().GetAuthURL(&api.ACLOIDCAuthURLRequest{AuthMethodName: "m", RedirectURI: "http://x", ClientNonce: "n"}, nil)
	wantHTTPError(t, err, "400", `"m" is a JWT method`)
	_, _, err = withToken(t, a, "").ACLAuth().GetAuthURL(&api.ACLOIDCAuthURLRequest{AuthMethodName: "m"}, nil)
	wantHTTPError(t, err, "400", "missing")
}

// One-time tokens through the official client: made for the caller's own
// token, exchanged once for it, refused a second time and for the
// anonymous caller.
func TestACLHTTP_OneTimeToken(t *testing.T) {
	a, c, _ := aclAgent(t)
	if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "nodes", Rules: `node { policy = "read" }`}, nil); err != nil {
		t.Fatal(err)
	}
	tok, _, err := c.ACLTokens().Create(&api.ACLToken{Name: "ui", Type: "client", Policies: []string{"nodes"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ott, _, err := withToken(t, a, tok.SecretID).ACLTokens().UpsertOneTimeToken(nil)
	if err != nil {
		t.Fatal(err)
	}
	if ott.AccessorID != tok.AccessorID || ott.OneTimeSecretID == "" || ott.OneTimeSecretID == tok.SecretID ||
		time.Until(ott.ExpiresAt) > 10*time.Minute || time.Until(ott.ExpiresAt) < 9*time.Minute {
		t.Fatalf("one-time token %+v", ott)
	}
	anon := withToken(t, a, "")
	got, _, err := anon.ACLTokens().ExchangeOneTimeToken(ott.OneTimeSecretID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.AccessorID != tok.AccessorID || got.SecretID != tok.SecretID {
		t.Fatalf("exchanged %+v, want %+v", got, tok)
	}
	_, _, err = anon.ACLTokens().ExchangeOneTimeToken(ott.OneTimeSecretID, nil)
	wantHTTPError(t, err, "403", "already used")
	_, _, err = anon.ACLTokens().UpsertOneTimeToken(nil)
	wantHTTPError(t, err, "403", "Permission denied")
	// The token route no longer captures the one-time routes.
	if _, _, err := c.ACLTokens().Info(tok.AccessorID, nil); err != nil {
		t.Fatal(err)
	}
}
