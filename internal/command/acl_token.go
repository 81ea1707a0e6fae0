package command

import (
	"flag"
	"sort"
	"strconv"
	"time"

	"github.com/hashicorp/nomad/api"
)

func init() {
	register("acl token create", aclTokenCreateCmd)
	register("acl token update", aclTokenUpdateCmd)
	register("acl token info", aclTokenInfoCmd)
	register("acl token self", aclTokenSelfCmd)
	register("acl token list", aclTokenListCmd)
	register("acl token delete", aclTokenDeleteCmd)
}

// tokenFlags are the options of token create and update.
type tokenFlags struct {
	name, typ          string
	policies           strList
	roleIDs, roleNames strList
	global             bool
	ttl                time.Duration
}

func (f *tokenFlags) register(fs *flag.FlagSet, create bool) {
	fs.StringVar(&f.name, "name", "", "A human-readable name for the token.")
	fs.StringVar(&f.typ, "type", "", `The token type: "client" or "management" (create: default client).`)
	fs.Var(&f.policies, "policy", "A policy to attach (repeatable).")
	fs.Var(&f.roleIDs, "role-id", "The ID of a role to link (repeatable).")
	fs.Var(&f.roleNames, "role-name", "The name of a role to link (repeatable).")
	if create {
		fs.BoolVar(&f.global, "global", false, "Replicate the token to every region.")
		fs.DurationVar(&f.ttl, "ttl", 0, `How long the token lives ("1h"); default forever.`)
	}
}

// roleLinks are the -role-id and -role-name flags as links.
func (f *tokenFlags) roleLinks() []*api.ACLTokenRoleLink {
	var out []*api.ACLTokenRoleLink
	for _, id := range f.roleIDs {
		out = append(out, &api.ACLTokenRoleLink{ID: id})
	}
	for _, name := range f.roleNames {
		out = append(out, &api.ACLTokenRoleLink{Name: name})
	}
	return out
}

func aclTokenCreateCmd() *cmd {
	var f tokenFlags
	c := &cmd{
		Name: "acl token create", Read: true,
		Synopsis: "Create an ACL token",
	}
	c.Flags = func(fs *flag.FlagSet) { f.register(fs, true) }
	c.Run = func(e *env, args []string) error {
		if f.typ == "" {
			f.typ = "client"
		}
		cl, err := e.api()
		if err != nil {
			return err
		}
		tok, _, err := cl.ACLTokens().Create(&api.ACLToken{Name: f.name, Type: f.typ, Policies: f.policies, Roles: f.roleLinks(),
			Global: f.global, ExpirationTTL: f.ttl}, e.write())
		if err != nil {
			return apiError("creating the ACL token", err)
		}
		return e.output(tok, func() error { e.printToken(tok); return nil })
	}
	return c
}

func aclTokenUpdateCmd() *cmd {
	var f tokenFlags
	c := &cmd{
		Name: "acl token update", Args: "<accessor>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Update an ACL token's name, type, policies or roles",
	}
	c.Flags = func(fs *flag.FlagSet) { f.register(fs, false) }
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		tok, _, err := cl.ACLTokens().Info(args[0], e.query())
		if err != nil {
			return apiError("reading the ACL token", err)
		}
		if f.name != "" {
			tok.Name = f.name
		}
		if f.typ != "" {
			tok.Type = f.typ
		}
		if len(f.policies) > 0 {
			tok.Policies = f.policies
		}
		if links := f.roleLinks(); len(links) > 0 {
			tok.Roles = links
		}
		if tok.Type == "management" {
			tok.Policies, tok.Roles = nil, nil
		}
		// Expiration cannot change; send the token as it is otherwise.
		tok.ExpirationTTL, tok.ExpirationTime = 0, nil
		out, _, err := cl.ACLTokens().Update(tok, e.write())
		if err != nil {
			return apiError("updating the ACL token", err)
		}
		return e.output(out, func() error { e.printToken(out); return nil })
	}
	return c
}

func aclTokenInfoCmd() *cmd {
	c := &cmd{
		Name: "acl token info", Args: "<accessor>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Display an ACL token",
	}
	c.Run = func(e *env, args []string) error {
		return e.showToken(func(t *api.ACLTokens) (*api.ACLToken, *api.QueryMeta, error) { return t.Info(args[0], e.query()) })
	}
	return c
}

func aclTokenSelfCmd() *cmd {
	c := &cmd{
		Name: "acl token self", Read: true,
		Synopsis: "Display the token in use",
	}
	c.Run = func(e *env, args []string) error {
		return e.showToken(func(t *api.ACLTokens) (*api.ACLToken, *api.QueryMeta, error) { return t.Self(e.query()) })
	}
	return c
}

// showToken reads one token with fetch and prints it.
func (e *env) showToken(fetch func(*api.ACLTokens) (*api.ACLToken, *api.QueryMeta, error)) error {
	cl, err := e.api()
	if err != nil {
		return err
	}
	tok, _, err := fetch(cl.ACLTokens())
	if err != nil {
		return apiError("reading the ACL token", err)
	}
	return e.output(tok, func() error { e.printToken(tok); return nil })
}

func aclTokenListCmd() *cmd {
	c := &cmd{
		Name: "acl token list", Read: true,
		Synopsis: "List ACL tokens",
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		list, _, err := cl.ACLTokens().List(e.query())
		if err != nil {
			return apiError("listing ACL tokens", err)
		}
		return e.output(list, func() error {
			sort.Slice(list, func(i, j int) bool { return list[i].CreateIndex < list[j].CreateIndex })
			rows := [][]string{{"Name", "Type", "Global", "Accessor ID", "Expired"}}
			now := time.Now()
			for _, t := range list {
				expired := t.ExpirationTime != nil && !now.Before(*t.ExpirationTime)
				rows = append(rows, []string{t.Name, t.Type, strconv.FormatBool(t.Global), t.AccessorID, strconv.FormatBool(expired)})
			}
			writeColumns(e.stdout, rows)
			return nil
		})
	}
	return c
}

func aclTokenDeleteCmd() *cmd {
	return deleteOne(&cmd{Name: "acl token delete", Args: "<accessor>", Synopsis: "Delete an ACL token"},
		func(cl *api.Client, accessor string, w *api.WriteOptions) error {
			_, err := cl.ACLTokens().Delete(accessor, w)
			return err
		}, "deleting the ACL token", "Token %s successfully deleted\n")
}
