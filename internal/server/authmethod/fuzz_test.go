package authmethod

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/drover-project/drover/internal/server/coded"
	"github.com/drover-project/drover/internal/structs"
)

// FuzzValidateMethod: an auth method decoded from any JSON body is
// validated without panicking.
func FuzzValidateMethod(f *testing.F) {
	f.Add(`{"Name":"m","Type":"JWT","TokenLocality":"local","MaxTokenTTL":3600000000000,"Config":{"JWKSURL":"https://x/jwks"}}`)
	f.Add(`{"Name":"m","Type":"JWT","TokenLocality":"global","MaxTokenTTL":1,"TokenNameFormat":"${value.x}-${","Config":{"JWTValidationPubKeys":["-----BEGIN PUBLIC KEY-----\nAA==\n-----END PUBLIC KEY-----"],"ClaimMappings":{"/a/b":"x"}}}`)
	f.Add(`{"Type":"OIDC"}`)
	f.Fuzz(func(t *testing.T, body string) {
		var m structs.ACLAuthMethod
		if json.Unmarshal([]byte(body), &m) != nil {
			return
		}
		_ = ValidateMethod(&m)
	})
}

// FuzzValidateRule: binding rules (selector, bind name) from any input.
func FuzzValidateRule(f *testing.F) {
	f.Add("value.user == \"a\"", "role", "r-${value.user}")
	f.Add("\"eng\" in list.groups", "policy", "${")
	f.Add("", "management", "")
	f.Fuzz(func(t *testing.T, selector, bindType, bindName string) {
		r := &structs.ACLBindingRule{AuthMethod: "m", Selector: selector, BindType: bindType, BindName: bindName}
		if ValidateRule(r) == nil {
			Bind([]*structs.ACLBindingRule{r}, &Claims{Value: map[string]string{"user": "u"}, List: map[string][]string{"groups": {"eng"}}})
		}
	})
}

// FuzzVerify: any login token is refused or verified without panicking.
func FuzzVerify(f *testing.F) {
	f.Add("eyJhbGciOiJFUzI1NiJ9.eyJleHAiOjF9.AAAA")
	f.Add("a.b.c")
	f.Add("")
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		f.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, nil)
	valid, _ := jwt.Signed(signer).Claims(map[string]any{"exp": 100, "sub": "x", "aud": []string{"a"}}).Serialize()
	f.Add(valid)
	m := &structs.ACLAuthMethod{Name: "m", Type: "JWT", Config: &structs.ACLAuthMethodConfig{
		JWTValidationPubKeys: []string{string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))},
		SigningAlgs:          []string{"ES256", "RS256"}, ClaimMappings: map[string]string{"sub": "u"},
		ListClaimMappings: map[string]string{"aud": "aud"}, BoundAudiences: []string{"a"}}}
	f.Fuzz(func(t *testing.T, token string) {
		_, _ = NewKeys(time.Now).Verify(context.Background(), m, token, time.Unix(0, 0))
	})
}

// FuzzComplete: whatever a provider answers at its token and userinfo
// endpoints, Complete refuses (a coded 400/403, never an uncoded error
// that would be a 500) or maps claims, without panicking.
func FuzzComplete(f *testing.F) {
	f.Add(`{"access_token":"a","token_type":"Bearer","id_token":"x.y.z"}`, `{"sub":"alice"}`)
	f.Add(`{"access_token":"a","token_type":"Bearer"}`, `[]`)
	f.Add(`{"error":"invalid_grant"}`, `{"sub":1}`)
	f.Add(`not json`, `{"sub":"alice","groups":["a",{"b":1}]}`)
	var tokenBody, infoBody atomic.Value
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			json.NewEncoder(w).Encode(Discovery{Issuer: srv.URL, AuthorizationEndpoint: srv.URL + "/auth", TokenEndpoint: srv.URL + "/token",
				UserinfoEndpoint: srv.URL + "/userinfo", JWKSURI: srv.URL + "/keys"})
		case "/keys":
			w.Write([]byte(`{"keys":[]}`))
		case "/token":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(tokenBody.Load().(string)))
		case "/userinfo":
			w.Write([]byte(infoBody.Load().(string)))
		}
	}))
	f.Cleanup(srv.Close)
	m := &structs.ACLAuthMethod{Name: "m", Type: "OIDC", Config: &structs.ACLAuthMethodConfig{OIDCDiscoveryURL: srv.URL, OIDCClientID: "c",
		AllowedRedirectURIs: []string{"http://localhost/cb"}, ListClaimMappings: map[string]string{"groups": "groups"}}}
	keys := NewKeys(time.Now)
	f.Fuzz(func(t *testing.T, token, info string) {
		tokenBody.Store(token)
		infoBody.Store(info)
		_, err := keys.Complete(context.Background(), m, &structs.OIDCAuthRequest{State: "s", ClientNonce: "n", RedirectURI: "http://localhost/cb"}, "code", "", time.Now())
		var c *coded.Error
		if err != nil && !errors.As(err, &c) {
			t.Fatalf("uncoded error: %v", err)
		}
	})
}
