package authmethod

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/drover-project/drover/internal/server/coded"
	"github.com/drover-project/drover/internal/structs"
)

// Refused is a 403 login refusal that says why.
func Refused(format string, args ...any) error {
	return coded.New(http.StatusForbidden, "login refused: "+format, args...)
}

// maxFetch bounds a JWKS or discovery document.
const maxFetch = 1 << 20

// Claims are a verified token's mapped claims: Value from ClaimMappings,
// List from ListClaimMappings. Selectors see them as value.<name> and
// list.<name>.
type Claims struct {
	Value map[string]string   `bexpr:"value"`
	List  map[string][]string `bexpr:"list"`
}

// Verify checks a login JWT against the method: signature by one of its
// keys (static, JWKS or discovered, through the cache), exp and nbf with
// the leeways, the bound issuers and audiences; and returns its mapped
// claims.
func (k *Keys) Verify(ctx context.Context, m *structs.ACLAuthMethod, raw string, now time.Time) (*Claims, error) {
	_, all, err := k.verifyJWT(ctx, m.Config, raw, now)
	if err != nil {
		return nil, err
	}
	return MapClaims(m.Config, all)
}

// verifyJWT checks a JWT's signature, times, issuer and audience against
// the method's config and answers its registered and all its claims.
func (k *Keys) verifyJWT(ctx context.Context, c *structs.ACLAuthMethodConfig, raw string, now time.Time) (*jwt.Claims, map[string]any, error) {
	tok, err := jwt.ParseSigned(strings.TrimSpace(raw), keyAlgs(c))
	if err != nil {
		return nil, nil, Refused("the token is not a JWT signed with one of %v: %v", keyAlgs(c), err)
	}
	kid := ""
	if len(tok.Headers) > 0 {
		kid = tok.Headers[0].KeyID
	}
	keys, err := k.methodKeys(ctx, c, kid)
	if err != nil {
		return nil, nil, err
	}
	var std jwt.Claims
	all := map[string]any{}
	verified := false
	for _, key := range keys {
		if err := tok.Claims(key, &std, &all); err == nil {
			verified = true
			break
		}
	}
	if !verified {
		return nil, nil, Refused("the token's signature does not verify with the auth method's keys")
	}
	if err := checkTimes(c, &std, now); err != nil {
		return nil, nil, err
	}
	if len(c.BoundIssuer) > 0 && !slices.Contains(c.BoundIssuer, std.Issuer) {
		return nil, nil, Refused("issuer %q is not one of the bound issuers %v", std.Issuer, c.BoundIssuer)
	}
	if len(c.BoundAudiences) > 0 && !slices.ContainsFunc(c.BoundAudiences, std.Audience.Contains) {
		return nil, nil, Refused("audience %v matches none of the bound audiences %v", []string(std.Audience), c.BoundAudiences)
	}
	return &std, all, nil
}

func checkTimes(c *structs.ACLAuthMethodConfig, std *jwt.Claims, now time.Time) error {
	if std.Expiry == nil {
		return Refused("the login token has no exp claim")
	}
	if exp := std.Expiry.Time(); now.After(exp.Add(c.ExpirationLeeway + c.ClockSkewLeeway)) {
		return Refused("the login token expired at %s", exp.UTC().Format(time.RFC3339))
	}
	if std.NotBefore != nil {
		if nbf := std.NotBefore.Time(); now.Add(c.NotBeforeLeeway + c.ClockSkewLeeway).Before(nbf) {
			return Refused("the login token is not valid before %s", nbf.UTC().Format(time.RFC3339))
		}
	}
	return nil
}

// MapClaims picks the mapped claims of a verified token. A claim is named
// by its key or by a JSON pointer (/a/b) into nested objects; a value
// claim must be a string, number or bool, a list claim a list of them.
// Claims not mapped are not seen.
func MapClaims(c *structs.ACLAuthMethodConfig, all map[string]any) (*Claims, error) {
	out := &Claims{Value: map[string]string{}, List: map[string][]string{}}
	for claim, name := range c.ClaimMappings {
		v, ok := lookup(all, claim)
		if !ok {
			continue
		}
		s, ok := scalar(v)
		if !ok {
			return nil, Refused("claim %q is not a string, number or bool", claim)
		}
		out.Value[name] = s
	}
	for claim, name := range c.ListClaimMappings {
		v, ok := lookup(all, claim)
		if !ok {
			continue
		}
		list, ok := v.([]any)
		if !ok {
			list = []any{v}
		}
		for _, item := range list {
			s, ok := scalar(item)
			if !ok {
				return nil, Refused("claim %q holds a value that is not a string, number or bool", claim)
			}
			out.List[name] = append(out.List[name], s)
		}
	}
	return out, nil
}

func lookup(all map[string]any, claim string) (any, bool) {
	if !strings.HasPrefix(claim, "/") {
		v, ok := all[claim]
		return v, ok
	}
	var cur any = all
	for _, part := range strings.Split(claim[1:], "/") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		if cur, ok = obj[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return fmt.Sprint(x), true
	case float64:
		return fmt.Sprint(x), true
	case json.Number:
		return x.String(), true
	}
	return "", false
}

func staticKeys(c *structs.ACLAuthMethodConfig) ([]any, error) {
	out := make([]any, 0, len(c.JWTValidationPubKeys))
	for _, s := range c.JWTValidationPubKeys {
		k, err := ParsePublicKey(s)
		if err != nil {
			return nil, coded.BadRequest("Config.JWTValidationPubKeys: %v", err)
		}
		out = append(out, k)
	}
	return out, nil
}

// httpClient is the client for a provider's URLs: the system roots, or
// the given PEM CAs.
func httpClient(cas []string) *http.Client {
	var pems []string
	for _, p := range cas {
		if p != "" {
			pems = append(pems, p)
		}
	}
	if len(pems) == 0 {
		return http.DefaultClient
	}
	pool := x509.NewCertPool()
	for _, p := range pems {
		pool.AppendCertsFromPEM([]byte(p))
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
}

func fetchJSON(ctx context.Context, u string, cas []string, into any) error {
	client := httpClient(cas)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Refused("fetching %s: %v", u, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return Refused("fetching %s: %v", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Refused("fetching %s: %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxFetch))
	if err != nil {
		return Refused("reading %s: %v", u, err)
	}
	if err := json.Unmarshal(body, into); err != nil {
		return Refused("decoding %s: %v", u, err)
	}
	return nil
}
