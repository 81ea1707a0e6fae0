package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/drover-project/drover/internal/server/authmethod"
	"github.com/drover-project/drover/internal/server/leader"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// A token minted by a JWT login expires after the method's MaxTokenTTL
// on the server's clock; the JWT's own exp is checked on that clock too.
func TestACLLogin_TokenExpiresOnServerClock(t *testing.T) {
	s, clk := aclServer(t, "")
	root := bootstrap(t, s)
	ctx := context.Background()
	w := structs.WriteRequest{AuthToken: root.SecretID}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, nil)
	if _, err := ACLUpsertPolicies.Call(ctx, s, &structs.ACLPolicyUpsertArgs{WriteRequest: w,
		Policies: []*structs.ACLPolicy{{Name: "nodes", Rules: `node { policy = "read" }`}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ACLUpsertAuthMethods.Call(ctx, s, &structs.ACLAuthMethodUpsertArgs{WriteRequest: w,
		AuthMethods: []*structs.ACLAuthMethod{{Name: "m", Type: "JWT", TokenLocality: "local", MaxTokenTTL: 30 * time.Minute,
			Config: &structs.ACLAuthMethodConfig{SigningAlgs: []string{"ES256"},
				JWTValidationPubKeys: []string{string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))}}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ACLUpsertBindingRules.Call(ctx, s, &structs.ACLBindingRuleUpsertArgs{WriteRequest: w,
		BindingRules: []*structs.ACLBindingRule{{AuthMethod: "m", BindType: "policy", BindName: "nodes"}}}); err != nil {
		t.Fatal(err)
	}
	jwtAt := func(exp time.Time) string {
		raw, err := jwt.Signed(signer).Claims(jwt.Claims{Subject: "a", Expiry: jwt.NewNumericDate(exp)}).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	login := func(raw string) (*structs.ACLToken, error) {
		reply, err := ACLLogin.Call(ctx, s, &structs.ACLLoginArgs{AuthMethodName: "m", LoginToken: raw})
		if err != nil {
			return nil, err
		}
		return reply.Tokens[0], nil
	}
	tok, err := login(jwtAt(clk.Now().Add(time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	if want := clk.Now().Add(30 * time.Minute); tok.ExpirationTime == nil || !tok.ExpirationTime.Equal(want) {
		t.Fatalf("expiration %v, want %v", tok.ExpirationTime, want)
	}
	read := func() error {
		_, err := NodeList.Call(ctx, s, &structs.NodeListRequest{QueryOptions: structs.QueryOptions{AuthToken: tok.SecretID}})
		return err
	}
	if err := read(); err != nil {
		t.Fatalf("fresh login token: %v", err)
	}
	clk.Advance(31 * time.Minute)
	if err := read(); err == nil || !strings.Contains(err.Error(), "Permission denied") {
		t.Fatalf("expired login token: %v", err)
	}
	// The JWT that was valid an hour ago (server clock) is expired now.
	if _, err := login(jwtAt(clk.Now().Add(-time.Second))); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("expired JWT: %v", err)
	}
}

// A one-time token works for ten minutes on the server's clock, then is
// refused, and the core GC frees its row.
func TestOneTimeToken_ExpiresAndIsCollected(t *testing.T) {
	s, clk := aclServer(t, "")
	root := bootstrap(t, s)
	ctx := context.Background()
	mk := func() *structs.OneTimeToken {
		reply, err := ACLUpsertOneTimeToken.Call(ctx, s, &structs.ACLOneTimeTokenUpsertArgs{WriteRequest: structs.WriteRequest{AuthToken: root.SecretID}})
		if err != nil {
			t.Fatal(err)
		}
		return reply.OneTimeToken
	}
	ott := mk()
	if !ott.ExpiresAt.Equal(clk.Now().Add(10 * time.Minute)) {
		t.Fatalf("expires %v", ott.ExpiresAt)
	}
	fresh := mk()
	clk.Advance(10 * time.Minute)
	_, err := ACLExchangeOneTimeToken.Call(ctx, s, &structs.ACLOneTimeTokenExchangeArgs{OneTimeSecretID: ott.OneTimeSecretID})
	wantCode(t, err, 403, "expired")
	later := mk()
	if err := s.WaitUntilReady(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := s.leader.CreateCoreEvals(leader.CoreJobForceGC); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "core GC to free the expired one-time tokens", func() bool {
		a, _ := s.State().OneTimeTokenBySecret(nil, ott.OneTimeSecretID)
		b, _ := s.State().OneTimeTokenBySecret(nil, fresh.OneTimeSecretID)
		return a == nil && b == nil
	})
	reply, err := ACLExchangeOneTimeToken.Call(ctx, s, &structs.ACLOneTimeTokenExchangeArgs{OneTimeSecretID: later.OneTimeSecretID})
	if err != nil || reply.Token.AccessorID != root.AccessorID {
		t.Fatalf("exchange of a live one-time token: %+v %v", reply, err)
	}
}

// A pending OIDC login expires on the server's clock: completed after
// OIDCRequestTTL it is refused (403), and the provider is not asked.
func TestACLOIDC_PendingLoginExpiresOnServerClock(t *testing.T) {
	s, clk := aclServer(t, "")
	root := bootstrap(t, s)
	ctx := context.Background()
	p := testutil.NewOIDCProvider(t, "c", "secret")
	if _, err := ACLUpsertAuthMethods.Call(ctx, s, &structs.ACLAuthMethodUpsertArgs{WriteRequest: structs.WriteRequest{AuthToken: root.SecretID},
		AuthMethods: []*structs.ACLAuthMethod{{Name: "sso", Type: "OIDC", TokenLocality: "local", MaxTokenTTL: time.Hour,
			Config: &structs.ACLAuthMethodConfig{OIDCDiscoveryURL: p.URL, OIDCClientID: "c", OIDCClientSecret: "secret",
				AllowedRedirectURIs: []string{"http://localhost:4649/oidc/callback"}, SigningAlgs: []string{"ES256"}}}}}); err != nil {
		t.Fatal(err)
	}
	reply, err := ACLOIDCAuthURL.Call(ctx, s, &structs.ACLOIDCAuthURLArgs{AuthMethodName: "sso", RedirectURI: "http://localhost:4649/oidc/callback", ClientNonce: "n"})
	if err != nil {
		t.Fatal(err)
	}
	pending, err := s.State().OIDCAuthRequests(nil)
	if err != nil || len(pending) != 1 || !strings.Contains(reply.AuthURL, "state="+pending[0].State) {
		t.Fatalf("pending %+v (%v), auth URL %s", pending, err, reply.AuthURL)
	}
	clk.Advance(authmethod.OIDCRequestTTL)
	_, err = ACLOIDCCompleteAuth.Call(ctx, s, &structs.ACLOIDCCompleteAuthArgs{AuthMethodName: "sso", ClientNonce: "n",
		State: pending[0].State, Code: "code-1", RedirectURI: "http://localhost:4649/oidc/callback"})
	if err == nil || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("completing an expired login: %v", err)
	}
	if n := p.Fetches("/token"); n != 0 {
		t.Fatalf("the token endpoint was asked %d times for an expired login", n)
	}
}
