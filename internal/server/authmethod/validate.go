package authmethod

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/drover-project/drover/internal/server/coded"
	"github.com/drover-project/drover/internal/structs"
)

// MaxTokenTTL bounds an auth method's MaxTokenTTL (Nomad's token TTL limit).
const MaxTokenTTL = 24 * time.Hour * 365

var validName = regexp.MustCompile(`^[a-zA-Z0-9-]{1,128}$`)

// supportedAlgs are the signature algorithms a method may name; RS256 is
// the default, as Nomad's.
var supportedAlgs = []string{"RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512", "EdDSA"}

func bad(format string, args ...any) error { return coded.BadRequest(format, args...) }

// ValidateMethod checks an auth method as written by an operator. It
// refuses what Drover does not act on, naming the field.
func ValidateMethod(m *structs.ACLAuthMethod) error {
	switch {
	case m == nil:
		return bad("missing auth method")
	case !validName.MatchString(m.Name):
		return bad("Name: %q must be 1-128 letters, digits and dashes", m.Name)
	case m.Type != structs.ACLAuthMethodTypeJWT && m.Type != structs.ACLAuthMethodTypeOIDC:
		return bad("Type: %q must be JWT or OIDC", m.Type)
	case m.TokenLocality != structs.ACLAuthMethodTokenLocalityLocal && m.TokenLocality != structs.ACLAuthMethodTokenLocalityGlobal:
		return bad("TokenLocality: %q must be local or global", m.TokenLocality)
	case m.MaxTokenTTL <= 0:
		return bad("MaxTokenTTL: must be greater than zero")
	case m.MaxTokenTTL > MaxTokenTTL:
		return bad("MaxTokenTTL: %v is longer than %v", m.MaxTokenTTL, MaxTokenTTL)
	case m.Config == nil:
		return bad("Config: an auth method needs a config")
	}
	if m.TokenNameFormat != "" {
		if _, err := interpolate(m.TokenNameFormat, map[string]string{"auth_method_type": "", "auth_method_name": ""}, true); err != nil {
			return bad("TokenNameFormat: %v", err)
		}
	}
	check := validateConfig
	if m.Type == structs.ACLAuthMethodTypeOIDC {
		check = validateOIDCConfig
	}
	if err := check(m.Config); err != nil {
		return bad("Config.%v", err)
	}
	return nil
}

// validateOIDCConfig checks an OIDC method: the provider (discovery URL,
// client ID, redirect URIs) is required; the JWT-only key sources are
// refused; the rest is checked as a JWT method's.
func validateOIDCConfig(c *structs.ACLAuthMethodConfig) error {
	for field, set := range map[string]bool{
		"JWTValidationPubKeys": len(c.JWTValidationPubKeys) > 0, "JWKSURL": c.JWKSURL != "", "JWKSCACert": c.JWKSCACert != "",
	} {
		if set {
			return fmt.Errorf("%s: not used by an OIDC auth method (its keys come from OIDCDiscoveryURL)", field)
		}
	}
	switch {
	case c.OIDCDiscoveryURL == "":
		return fmt.Errorf("OIDCDiscoveryURL: an OIDC auth method needs its provider's discovery URL")
	case c.OIDCClientID == "":
		return fmt.Errorf("OIDCClientID: an OIDC auth method needs its client ID")
	case len(c.AllowedRedirectURIs) == 0:
		return fmt.Errorf("AllowedRedirectURIs: an OIDC auth method needs at least one redirect URI")
	}
	for i, u := range c.AllowedRedirectURIs {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("AllowedRedirectURIs[%d]: %q is not an http(s) URL", i, u)
		}
	}
	jwt := *c
	jwt.OIDCClientID, jwt.OIDCClientSecret, jwt.OIDCEnablePKCE, jwt.OIDCDisableUserInfo = "", "", false, false
	jwt.OIDCScopes, jwt.AllowedRedirectURIs = nil, nil
	return validateConfig(&jwt)
}

func validateConfig(c *structs.ACLAuthMethodConfig) error {
	// VerboseLogging would log the provider's claims; Drover has no such
	// logging.
	if c.VerboseLogging {
		return fmt.Errorf("VerboseLogging: not supported by Drover")
	}
	// OIDC-flow fields: a JWT method does not act on them.
	for field, set := range map[string]bool{
		"OIDCClientID": c.OIDCClientID != "", "OIDCClientSecret": c.OIDCClientSecret != "",
		"OIDCEnablePKCE": c.OIDCEnablePKCE, "OIDCDisableUserInfo": c.OIDCDisableUserInfo,
		"OIDCScopes": len(c.OIDCScopes) > 0, "AllowedRedirectURIs": len(c.AllowedRedirectURIs) > 0,
	} {
		if set {
			return fmt.Errorf("%s: only used by an OIDC auth method", field)
		}
	}
	sources := 0
	for _, set := range []bool{len(c.JWTValidationPubKeys) > 0, c.JWKSURL != "", c.OIDCDiscoveryURL != ""} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return fmt.Errorf("JWTValidationPubKeys: exactly one of JWTValidationPubKeys, JWKSURL and OIDCDiscoveryURL must be set")
	}
	for i, k := range c.JWTValidationPubKeys {
		if _, err := ParsePublicKey(k); err != nil {
			return fmt.Errorf("JWTValidationPubKeys[%d]: %v", i, err)
		}
	}
	for field, u := range map[string]string{"JWKSURL": c.JWKSURL, "OIDCDiscoveryURL": c.OIDCDiscoveryURL} {
		if u == "" {
			continue
		}
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("%s: %q is not an http(s) URL", field, u)
		}
	}
	if c.JWKSCACert != "" {
		if c.JWKSURL == "" {
			return fmt.Errorf("JWKSCACert: only used with JWKSURL")
		}
		if _, err := certPool([]string{c.JWKSCACert}); err != nil {
			return fmt.Errorf("JWKSCACert: %v", err)
		}
	}
	if len(c.DiscoveryCaPem) > 0 {
		if c.OIDCDiscoveryURL == "" {
			return fmt.Errorf("DiscoveryCaPem: only used with OIDCDiscoveryURL")
		}
		if _, err := certPool(c.DiscoveryCaPem); err != nil {
			return fmt.Errorf("DiscoveryCaPem: %v", err)
		}
	}
	for _, a := range c.SigningAlgs {
		if !slices.Contains(supportedAlgs, a) {
			return fmt.Errorf("SigningAlgs: %q is not one of %s", a, strings.Join(supportedAlgs, ", "))
		}
	}
	for field, d := range map[string]time.Duration{"ExpirationLeeway": c.ExpirationLeeway, "NotBeforeLeeway": c.NotBeforeLeeway, "ClockSkewLeeway": c.ClockSkewLeeway} {
		if d < 0 {
			return fmt.Errorf("%s: must not be negative", field)
		}
	}
	seen := map[string]string{}
	for field, m := range map[string]map[string]string{"ClaimMappings": c.ClaimMappings, "ListClaimMappings": c.ListClaimMappings} {
		for claim, name := range m {
			if claim == "" || !validName.MatchString(strings.ReplaceAll(name, "_", "-")) {
				return fmt.Errorf("%s: %q -> %q: claim and name must be non-empty; names letters, digits, '-' and '_'", field, claim, name)
			}
			if other, dup := seen[name]; dup && other != field {
				return fmt.Errorf("%s: name %q is also mapped in %s", field, name, other)
			}
			seen[name] = field
		}
	}
	return nil
}

// ParsePublicKey reads a PEM public key (PKIX) or certificate.
func ParsePublicKey(s string) (crypto.PublicKey, error) {
	block, _ := pem.Decode([]byte(s))
	if block == nil {
		return nil, fmt.Errorf("not a PEM block")
	}
	if block.Type == "CERTIFICATE" {
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, err
		}
		return cert.PublicKey, nil
	}
	if k, err := x509.ParsePKIXPublicKey(block.Bytes); err == nil {
		return k, nil
	}
	return x509.ParsePKCS1PublicKey(block.Bytes)
}

func certPool(pems []string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	for _, p := range pems {
		if !pool.AppendCertsFromPEM([]byte(p)) {
			return nil, fmt.Errorf("no PEM certificate found")
		}
	}
	return pool, nil
}

// ValidateRule checks a binding rule as written by an operator.
func ValidateRule(r *structs.ACLBindingRule) error {
	switch {
	case r == nil:
		return bad("missing binding rule")
	case r.AuthMethod == "":
		return bad("AuthMethod: a binding rule needs its auth method")
	case len(r.Description) > 256:
		return bad("Description: longer than 256 characters")
	}
	switch r.BindType {
	case structs.ACLBindingRuleBindTypeRole, structs.ACLBindingRuleBindTypePolicy:
		if r.BindName == "" {
			return bad("BindName: a %s binding needs a name", r.BindType)
		}
		if _, err := interpolate(r.BindName, nil, true); err != nil {
			return bad("BindName: %v", err)
		}
	case structs.ACLBindingRuleBindTypeManagement:
		if r.BindName != "" {
			return bad("BindName: a management binding takes no name")
		}
	default:
		return bad("BindType: %q must be role, policy or management", r.BindType)
	}
	if r.Selector != "" {
		if _, err := newSelector(r.Selector); err != nil {
			return bad("Selector: %v", err)
		}
	}
	return nil
}

// keyAlgs are the algorithms a method accepts.
func keyAlgs(c *structs.ACLAuthMethodConfig) []jose.SignatureAlgorithm {
	names := c.SigningAlgs
	if len(names) == 0 {
		names = []string{"RS256"}
	}
	out := make([]jose.SignatureAlgorithm, 0, len(names))
	for _, n := range names {
		out = append(out, jose.SignatureAlgorithm(n))
	}
	return out
}
