package command

import (
	"flag"
	"fmt"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// `login` exchanges an identity provider's JWT for an ACL token through
// an auth method (Nomad's `nomad login`). OIDC methods are refused until
// Drover supports them.
func init() { register("login", loginCmd) }

func loginCmd() *cmd {
	var method, methodType, loginToken, callback string
	var fs0 *flag.FlagSet
	c := &cmd{
		Name: "login", Read: true,
		Synopsis: "Log in through an ACL auth method",
		Help: "Exchanges -login-token (a JWT from your identity provider) for an ACL token, whose\n" +
			"policies and roles come from the auth method's binding rules. Without -method,\n" +
			"the cluster's default auth method is used. Set NOMAD_TOKEN to the Secret ID.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs0 = fs
		fs.StringVar(&method, "method", "", "The auth method to log in through (default: the cluster's default method).")
		fs.StringVar(&methodType, "type", "", "The auth method's type: JWT (default: the method's).")
		fs.StringVar(&loginToken, "login-token", "", "The JWT to exchange (JWT methods).")
		fs.StringVar(&callback, "oidc-callback-addr", "localhost:4649", "The OIDC callback address (OIDC is not supported yet).")
	}
	c.Run = func(e *env, args []string) error {
		if flagsSet(fs0)["oidc-callback-addr"] {
			return errorf("login: -oidc-callback-addr: OIDC login is not supported by Drover yet; use a JWT auth method with -login-token")
		}
		cl, err := e.api()
		if err != nil {
			return err
		}
		if method == "" || methodType == "" {
			stubs, _, err := cl.ACLAuthMethods().List(e.query())
			if err != nil {
				return apiError("listing the ACL auth methods", err)
			}
			m := findMethod(stubs, method)
			if m == nil {
				if method == "" {
					return errorf("login: no -method given and the cluster has no default auth method")
				}
				return errorf("login: auth method %q not found", method)
			}
			method = m.Name
			if methodType == "" {
				methodType = m.Type
			}
		}
		switch strings.ToUpper(methodType) {
		case api.ACLAuthMethodTypeJWT:
		case api.ACLAuthMethodTypeOIDC:
			return errorf("login: OIDC login is not supported by Drover yet; use a JWT auth method with -login-token")
		default:
			return errorf("login: -type %q must be JWT", methodType)
		}
		if loginToken == "" {
			return errorf("login: -login-token is required for a JWT auth method")
		}
		tok, _, err := cl.ACLAuth().Login(&api.ACLLoginRequest{AuthMethodName: method, LoginToken: loginToken}, e.write())
		if err != nil {
			return apiError("logging in", err)
		}
		return e.output(tok, func() error {
			fmt.Fprintf(e.stdout, "Successfully logged in via %s and %s\n\n", api.ACLAuthMethodTypeJWT, method)
			e.printToken(tok)
			return nil
		})
	}
	return c
}

// findMethod is the named method, or the default one when name is "".
func findMethod(stubs []*api.ACLAuthMethodListStub, name string) *api.ACLAuthMethodListStub {
	for _, m := range stubs {
		if name == "" && m.Default || name != "" && m.Name == name {
			return m
		}
	}
	return nil
}
