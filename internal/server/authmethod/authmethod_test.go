package authmethod

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/drover-project/drover/internal/structs"
)

func TestBind(t *testing.T) {
	claims := &Claims{Value: map[string]string{"user": "alice", "team": "web"}, List: map[string][]string{"groups": {"eng", "ops"}}}
	for _, tc := range []struct {
		name  string
		rules []*structs.ACLBindingRule
		want  Bindings
	}{
		{"empty selector binds", []*structs.ACLBindingRule{{BindType: "policy", BindName: "p"}}, Bindings{Policies: []string{"p"}}},
		{"list selector", []*structs.ACLBindingRule{{Selector: `"eng" in list.groups`, BindType: "role", BindName: "r"}}, Bindings{Roles: []string{"r"}}},
		{"selector misses", []*structs.ACLBindingRule{{Selector: `"sales" in list.groups`, BindType: "role", BindName: "r"}}, Bindings{}},
		{"unknown claim misses", []*structs.ACLBindingRule{{Selector: `value.nope == "x"`, BindType: "role", BindName: "r"}}, Bindings{}},
		{"interpolated name", []*structs.ACLBindingRule{{Selector: `value.user == "alice"`, BindType: "policy", BindName: "team-${value.team}"}}, Bindings{Policies: []string{"team-web"}}},
		{"name of a missing claim skipped", []*structs.ACLBindingRule{{BindType: "policy", BindName: "x-${value.nope}"}}, Bindings{}},
		{"management", []*structs.ACLBindingRule{{Selector: `value.user == "alice"`, BindType: "management"}}, Bindings{Management: true}},
		{"deduplicated", []*structs.ACLBindingRule{{BindType: "role", BindName: "r"}, {BindType: "role", BindName: "r"}}, Bindings{Roles: []string{"r"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Bind(tc.rules, claims)
			if got.Management != tc.want.Management || strings.Join(got.Roles, ",") != strings.Join(tc.want.Roles, ",") ||
				strings.Join(got.Policies, ",") != strings.Join(tc.want.Policies, ",") {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestMapClaims(t *testing.T) {
	var all map[string]any
	if err := json.Unmarshal([]byte(`{"sub":"alice","n":3,"admin":true,"org":{"unit":"web"},"groups":["a","b"],"one":"solo"}`), &all); err != nil {
		t.Fatal(err)
	}
	c := &structs.ACLAuthMethodConfig{
		ClaimMappings:     map[string]string{"sub": "user", "n": "n", "admin": "admin", "/org/unit": "unit", "missing": "m"},
		ListClaimMappings: map[string]string{"groups": "groups", "one": "one"},
	}
	got, err := MapClaims(c, all)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"user": "alice", "n": "3", "admin": "true", "unit": "web"}
	for k, v := range want {
		if got.Value[k] != v {
			t.Errorf("value.%s = %q, want %q", k, got.Value[k], v)
		}
	}
	if _, ok := got.Value["m"]; ok {
		t.Error("a missing claim was mapped")
	}
	if strings.Join(got.List["groups"], ",") != "a,b" || strings.Join(got.List["one"], ",") != "solo" {
		t.Errorf("lists %v", got.List)
	}
	if _, err := MapClaims(&structs.ACLAuthMethodConfig{ClaimMappings: map[string]string{"org": "o"}}, all); err == nil {
		t.Error("an object claim mapped to a value")
	}
}

func TestVerify_TimesAndLeeways(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, nil)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sign := func(exp, nbf time.Time) string {
		s, err := jwt.Signed(signer).Claims(jwt.Claims{Expiry: jwt.NewNumericDate(exp), NotBefore: jwt.NewNumericDate(nbf), Audience: jwt.Audience{"a"}}).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		name     string
		exp, nbf time.Time
		cfg      func(*structs.ACLAuthMethodConfig)
		want     string // "" = accepted
	}{
		{"valid", now.Add(time.Minute), now.Add(-time.Minute), nil, ""},
		{"expired", now.Add(-time.Second), now.Add(-time.Hour), nil, "expired"},
		{"expired within leeway", now.Add(-time.Second), now.Add(-time.Hour), func(c *structs.ACLAuthMethodConfig) { c.ExpirationLeeway = time.Minute }, ""},
		{"expired within clock skew", now.Add(-time.Second), now.Add(-time.Hour), func(c *structs.ACLAuthMethodConfig) { c.ClockSkewLeeway = time.Minute }, ""},
		{"not yet valid", now.Add(time.Hour), now.Add(time.Minute), nil, "not valid before"},
		{"nbf within leeway", now.Add(time.Hour), now.Add(time.Second), func(c *structs.ACLAuthMethodConfig) { c.NotBeforeLeeway = time.Minute }, ""},
		{"bound audience", now.Add(time.Hour), now, func(c *structs.ACLAuthMethodConfig) { c.BoundAudiences = []string{"b"} }, "audience"},
		{"wrong alg", now.Add(time.Hour), now, func(c *structs.ACLAuthMethodConfig) { c.SigningAlgs = []string{"RS256"} }, "not a JWT signed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &structs.ACLAuthMethodConfig{JWTValidationPubKeys: []string{string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))},
				SigningAlgs: []string{"ES256"}}
			if tc.cfg != nil {
				tc.cfg(cfg)
			}
			_, err := NewKeys(time.Now).Verify(context.Background(), &structs.ACLAuthMethod{Name: "m", Type: "JWT", Config: cfg}, sign(tc.exp, tc.nbf), now)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestInterpolate(t *testing.T) {
	vars := map[string]string{"value.a": "x", "auth_method_name": "m"}
	for _, tc := range []struct{ in, want, err string }{
		{"plain", "plain", ""},
		{"${value.a}-${auth_method_name}", "x-m", ""},
		{"${value.b}", "", "no such value"},
		{"${value.a", "", "unterminated"},
	} {
		got, err := interpolate(tc.in, vars, false)
		if got != tc.want || (tc.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("interpolate(%q) = %q, %v; want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}
