package command

import (
	"crypto/rand"
	"encoding/base64"
	"flag"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

// `login` exchanges an identity provider's JWT for an ACL token through
// an auth method (Nomad's `nomad login`); with an OIDC method it runs the
// browser flow: a callback listener on -oidc-callback-addr, the
// provider's URL opened (and printed), the code it redirects back with
// completed into a token.
func init() { register("login", loginCmd) }

func loginCmd() *cmd {
	var method, methodType, loginToken, callback string
	var fs0 *flag.FlagSet
	c := &cmd{
		Name: "login", Read: true,
		Synopsis: "Log in through an ACL auth method",
		Help: "Exchanges -login-token (a JWT from your identity provider) for an ACL token, whose\n" +
			"policies and roles come from the auth method's binding rules. With an OIDC method\n" +
			"it opens the provider's login page in a browser and waits for its redirect to\n" +
			"http://<-oidc-callback-addr>/oidc/callback (which the method must allow). Without\n" +
			"-method, the cluster's default auth method is used. Set NOMAD_TOKEN to the Secret ID.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs0 = fs
		fs.StringVar(&method, "method", "", "The auth method to log in through (default: the cluster's default method).")
		fs.StringVar(&methodType, "type", "", "The auth method's type: JWT or OIDC (default: the method's).")
		fs.StringVar(&loginToken, "login-token", "", "The JWT to exchange (JWT methods).")
		fs.StringVar(&callback, "oidc-callback-addr", "localhost:4649", "The address the OIDC callback listener binds (OIDC methods).")
	}
	c.Run = func(e *env, args []string) error {
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
		var tok *api.ACLToken
		switch methodType = strings.ToUpper(methodType); methodType {
		case api.ACLAuthMethodTypeJWT:
			if flagsSet(fs0)["oidc-callback-addr"] {
				return errorf("login: -oidc-callback-addr: only used with an OIDC auth method")
			}
			if loginToken == "" {
				return errorf("login: -login-token is required for a JWT auth method")
			}
			tok, _, err = cl.ACLAuth().Login(&api.ACLLoginRequest{AuthMethodName: method, LoginToken: loginToken}, e.write())
		case api.ACLAuthMethodTypeOIDC:
			if loginToken != "" {
				return errorf("login: -login-token: an OIDC auth method logs in through the browser, not with a token")
			}
			tok, err = e.oidcLogin(cl, method, callback)
		default:
			return errorf("login: -type %q must be JWT or OIDC", methodType)
		}
		if err != nil {
			return apiError("logging in", err)
		}
		return e.output(tok, func() error {
			fmt.Fprintf(e.stdout, "Successfully logged in via %s and %s\n\n", methodType, method)
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

// oidcLogin runs the OIDC browser flow: it listens on addr for the
// provider's redirect, asks the cluster for the provider's URL (with a
// fresh client nonce), opens it, and completes the login with the code
// the redirect brings.
func (e *env) oidcLogin(cl *api.Client, method, addr string) (*api.ACLToken, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("-oidc-callback-addr: %v", err)
	}
	defer ln.Close()
	redirect := "http://" + addr + "/oidc/callback"
	var raw [20]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	nonce := base64.RawURLEncoding.EncodeToString(raw[:])
	type callbackResult struct{ code, state, err string }
	got := make(chan callbackResult, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/oidc/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		res := callbackResult{code: q.Get("code"), state: q.Get("state"), err: q.Get("error")}
		if d := q.Get("error_description"); d != "" {
			res.err += ": " + d
		}
		select {
		case got <- res:
		default: // a second callback: the first decides
		}
		fmt.Fprintln(w, "Signed in to the identity provider. You may close this window and return to the terminal.")
	})}
	go srv.Serve(ln)
	defer srv.Close()

	u, _, err := cl.ACLAuth().GetAuthURL(&api.ACLOIDCAuthURLRequest{AuthMethodName: method, RedirectURI: redirect, ClientNonce: nonce}, e.write())
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(e.stderr, "Complete the login via your OIDC provider. Launching browser to:\n\n    %s\n\n", u.AuthURL)
	open := e.openURL
	if open == nil {
		open = func(u string) error { return openBrowser(e, u) }
	}
	if err := open(u.AuthURL); err != nil {
		fmt.Fprintf(e.stderr, "Could not open a browser (%v): open the URL above yourself.\n", err)
	}
	var res callbackResult
	select {
	case res = <-got:
	case <-time.After(oidcLoginWait):
		return nil, fmt.Errorf("no OIDC callback on %s within %v", redirect, oidcLoginWait)
	}
	if res.err != "" {
		return nil, fmt.Errorf("the OIDC provider refused the login: %s", res.err)
	}
	tok, _, err := cl.ACLAuth().CompleteAuth(&api.ACLOIDCCompleteAuthRequest{AuthMethodName: method, ClientNonce: nonce,
		State: res.state, Code: res.code, RedirectURI: redirect}, e.write())
	return tok, err
}

// oidcLoginWait is how long `login` waits for the provider's redirect:
// the server forgets a pending login after as long.
const oidcLoginWait = 10 * time.Minute
