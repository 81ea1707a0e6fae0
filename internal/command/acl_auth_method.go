package command

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

func init() {
	register("acl auth-method create", aclAuthMethodCreateCmd)
	register("acl auth-method update", aclAuthMethodUpdateCmd)
	register("acl auth-method info", aclAuthMethodInfoCmd)
	register("acl auth-method list", aclAuthMethodListCmd)
	register("acl auth-method delete", aclAuthMethodDeleteCmd)
}

// authMethodFlags are the options of auth-method create and update
// (Nomad's names). set records which were given, for update's merge.
type authMethodFlags struct {
	name, methodType, locality, nameFormat, config string
	maxTTL                                         time.Duration
	isDefault                                      bool
	set                                            map[string]bool
}

func (f *authMethodFlags) register(fs *flag.FlagSet, withName bool) {
	if withName {
		fs.StringVar(&f.name, "name", "", "The auth method's name (letters, digits and dashes).")
	}
	fs.StringVar(&f.methodType, "type", "", "The auth method's type: JWT or OIDC.")
	fs.StringVar(&f.locality, "token-locality", "", "The kind of token minted: local or global.")
	fs.StringVar(&f.nameFormat, "token-name-format", "", "The minted tokens' name; ${auth_method_type}, ${auth_method_name} and ${value.<claim>} are interpolated.")
	fs.DurationVar(&f.maxTTL, "max-token-ttl", 0, "How long minted tokens are valid (e.g. 1h).")
	fs.BoolVar(&f.isDefault, "default", false, "Make this the method `login` uses without -method.")
	fs.StringVar(&f.config, "config", "", "The method's configuration as JSON: inline, @<file>, or - for stdin.")
}

// apply sets on m the flags that were given.
func (f *authMethodFlags) apply(m *api.ACLAuthMethod) error {
	if f.set["type"] {
		m.Type = f.methodType
	}
	if f.set["token-locality"] {
		m.TokenLocality = f.locality
	}
	if f.set["token-name-format"] {
		m.TokenNameFormat = f.nameFormat
	}
	if f.set["max-token-ttl"] {
		m.MaxTokenTTL = f.maxTTL
	}
	if f.set["default"] {
		m.Default = f.isDefault
	}
	if f.set["config"] {
		cfg, err := parseAuthMethodConfig(f.config)
		if err != nil {
			return err
		}
		m.Config = cfg
	}
	return nil
}

// parseAuthMethodConfig reads -config: inline JSON, @file or - (stdin).
// Keys that are not fields of Nomad's auth method config are refused
// (the API's decoder would drop them).
func parseAuthMethodConfig(arg string) (*api.ACLAuthMethodConfig, error) {
	raw := []byte(arg)
	switch {
	case arg == "-":
		b, err := readFileOrStdin("-")
		if err != nil {
			return nil, err
		}
		raw = b
	case strings.HasPrefix(arg, "@"):
		b, err := os.ReadFile(arg[1:])
		if err != nil {
			return nil, errorf("reading the -config file: %v", err)
		}
		raw = b
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return nil, errorf("-config: not a JSON object: %v", err)
	}
	known := map[string]bool{}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[api.ACLAuthMethodConfig]()) {
		known[f.Name] = true
	}
	for k := range keys {
		if !known[k] {
			names := make([]string, 0, len(known))
			for n := range known {
				names = append(names, n)
			}
			slices.Sort(names)
			return nil, errorf("-config: unknown key %q (keys: %s)", k, strings.Join(names, ", "))
		}
	}
	var cfg api.ACLAuthMethodConfig
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&cfg); err != nil {
		return nil, errorf("-config: %v", err)
	}
	return &cfg, nil
}

func aclAuthMethodCreateCmd() *cmd {
	f := authMethodFlags{}
	var fs0 *flag.FlagSet
	c := &cmd{
		Name: "acl auth-method create", Read: true,
		Synopsis: "Create an ACL auth method",
		Help: "Creates an auth method whose identities `login` exchanges for ACL tokens, by its\n" +
			"binding rules. -name, -type, -token-locality, -max-token-ttl and -config are\nrequired. Requires a management token.",
	}
	c.Flags = func(fs *flag.FlagSet) { fs0 = fs; f.register(fs, true) }
	c.Run = func(e *env, args []string) error {
		f.set = flagsSet(fs0)
		for _, req := range []string{"name", "type", "token-locality", "max-token-ttl", "config"} {
			if !f.set[req] {
				return errorf("acl auth-method create: -%s is required", req)
			}
		}
		m := &api.ACLAuthMethod{Name: f.name}
		if err := f.apply(m); err != nil {
			return err
		}
		cl, err := e.api()
		if err != nil {
			return err
		}
		out, _, err := cl.ACLAuthMethods().Create(m, e.write())
		if err != nil {
			return apiError("creating the ACL auth method", err)
		}
		return e.output(out, func() error { e.printAuthMethod(out); return nil })
	}
	return c
}

func flagsSet(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return set
}

func aclAuthMethodUpdateCmd() *cmd {
	f := authMethodFlags{}
	var fs0 *flag.FlagSet
	c := &cmd{
		Name: "acl auth-method update", Args: "<name>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Update an ACL auth method",
		Help:     "Changes what the flags give and keeps the rest (-config replaces the whole config).\nRequires a management token.",
	}
	c.Flags = func(fs *flag.FlagSet) { fs0 = fs; f.register(fs, false) }
	c.Run = func(e *env, args []string) error {
		f.set = flagsSet(fs0)
		cl, err := e.api()
		if err != nil {
			return err
		}
		m, _, err := cl.ACLAuthMethods().Get(args[0], e.query())
		if err != nil {
			return apiError("reading the ACL auth method", err)
		}
		if err := f.apply(m); err != nil {
			return err
		}
		out, _, err := cl.ACLAuthMethods().Update(m, e.write())
		if err != nil {
			return apiError("updating the ACL auth method", err)
		}
		return e.output(out, func() error { e.printAuthMethod(out); return nil })
	}
	return c
}

func aclAuthMethodInfoCmd() *cmd {
	c := &cmd{
		Name: "acl auth-method info", Args: "<name>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Display an ACL auth method",
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		m, _, err := cl.ACLAuthMethods().Get(args[0], e.query())
		if err != nil {
			return apiError("reading the ACL auth method", err)
		}
		return e.output(m, func() error { e.printAuthMethod(m); return nil })
	}
	return c
}

// printAuthMethod writes an auth method (Nomad's layout), then its config.
func (e *env) printAuthMethod(m *api.ACLAuthMethod) {
	writeKV(e.stdout, [][2]string{
		{"Name", m.Name},
		{"Type", m.Type},
		{"Locality", m.TokenLocality},
		{"Max Token TTL", m.MaxTokenTTL.String()},
		{"Token Name Format", m.TokenNameFormat},
		{"Default", strconv.FormatBool(m.Default)},
		{"Create Index", strconv.FormatUint(m.CreateIndex, 10)},
		{"Modify Index", strconv.FormatUint(m.ModifyIndex, 10)},
	})
	c := m.Config
	if c == nil {
		return
	}
	fmt.Fprintln(e.stdout, "\nAuth Method Config")
	orNone := func(s []string) string {
		if len(s) == 0 {
			return "<none>"
		}
		return strings.Join(s, ",")
	}
	str := func(s string) string {
		if s == "" {
			return "<none>"
		}
		return s
	}
	if m.Type == api.ACLAuthMethodTypeOIDC {
		// Nomad's layout for an OIDC method; the client secret is shown
		// as Nomad shows it (the reader holds a management token).
		writeKV(e.stdout, [][2]string{
			{"OIDC Discovery URL", str(c.OIDCDiscoveryURL)},
			{"OIDC Client ID", str(c.OIDCClientID)},
			{"OIDC Client Secret", str(c.OIDCClientSecret)},
			{"OIDC Enable PKCE", strconv.FormatBool(c.OIDCEnablePKCE)},
			{"OIDC Disable UserInfo", strconv.FormatBool(c.OIDCDisableUserInfo)},
			{"OIDC Scopes", orNone(c.OIDCScopes)},
			{"Bound audiences", orNone(c.BoundAudiences)},
			{"Bound issuers", orNone(c.BoundIssuer)},
			{"Allowed redirects URIs", orNone(c.AllowedRedirectURIs)},
			{"Discovery CA pem", orNone(pemNames(c.DiscoveryCaPem))},
			{"Signing algorithms", orNone(c.SigningAlgs)},
			{"Expiration Leeway", c.ExpirationLeeway.String()},
			{"NotBefore Leeway", c.NotBeforeLeeway.String()},
			{"ClockSkew Leeway", c.ClockSkewLeeway.String()},
			{"Claim mappings", claimMappings(c.ClaimMappings)},
			{"List claim mappings", claimMappings(c.ListClaimMappings)},
		})
		return
	}
	keys := pemNames(c.JWTValidationPubKeys)
	writeKV(e.stdout, [][2]string{
		{"JWT Validation Public Keys", orNone(keys)},
		{"JWKS URL", str(c.JWKSURL)},
		{"OIDC Discovery URL", str(c.OIDCDiscoveryURL)},
		{"Bound audiences", orNone(c.BoundAudiences)},
		{"Bound issuers", orNone(c.BoundIssuer)},
		{"Signing algorithms", orNone(c.SigningAlgs)},
		{"Expiration Leeway", c.ExpirationLeeway.String()},
		{"NotBefore Leeway", c.NotBeforeLeeway.String()},
		{"ClockSkew Leeway", c.ClockSkewLeeway.String()},
		{"Claim mappings", claimMappings(c.ClaimMappings)},
		{"List claim mappings", claimMappings(c.ListClaimMappings)},
	})
}

// pemNames stands "<PEM>" for each PEM block of a list.
func pemNames(pems []string) []string {
	out := make([]string, 0, len(pems))
	for range pems {
		out = append(out, "<PEM>")
	}
	return out
}

func claimMappings(m map[string]string) string {
	if len(m) == 0 {
		return "<none>"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("{%s: %s}", k, m[k]))
	}
	return strings.Join(parts, "; ")
}

func aclAuthMethodListCmd() *cmd {
	return listTable(&cmd{Name: "acl auth-method list", Synopsis: "List ACL auth methods"},
		func(cl *api.Client, q *api.QueryOptions) ([]*api.ACLAuthMethodListStub, error) {
			list, _, err := cl.ACLAuthMethods().List(q)
			return list, err
		}, "listing ACL auth methods", "No ACL auth methods found",
		[]string{"Name", "Type", "Default"},
		func(m *api.ACLAuthMethodListStub) []string {
			return []string{m.Name, m.Type, strconv.FormatBool(m.Default)}
		})
}

func aclAuthMethodDeleteCmd() *cmd {
	c := &cmd{
		Name: "acl auth-method delete", Args: "<name>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Delete an ACL auth method and its binding rules",
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		if _, err := cl.ACLAuthMethods().Delete(args[0], e.write()); err != nil {
			return apiError("deleting the ACL auth method", err)
		}
		fmt.Fprintf(e.stdout, "ACL auth method %s successfully deleted\n", args[0])
		return nil
	}
	return c
}
