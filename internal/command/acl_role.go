package command

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/nomad/api"
)

func init() {
	register("acl role create", aclRoleCreateCmd)
	register("acl role update", aclRoleUpdateCmd)
	register("acl role info", aclRoleInfoCmd)
	register("acl role list", aclRoleListCmd)
	register("acl role delete", aclRoleDeleteCmd)
}

// roleFlags are the options of role create and update.
type roleFlags struct {
	name, description string
	policies          strList
}

func (f *roleFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.name, "name", "", "The role's name (letters, digits and dashes).")
	fs.StringVar(&f.description, "description", "", "A human-readable description of the role.")
	fs.Var(&f.policies, "policy", "A policy the role grants (repeatable).")
}

func policyLinks(names []string) []*api.ACLRolePolicyLink {
	out := make([]*api.ACLRolePolicyLink, 0, len(names))
	for _, n := range names {
		out = append(out, &api.ACLRolePolicyLink{Name: n})
	}
	return out
}

func aclRoleCreateCmd() *cmd {
	var f roleFlags
	c := &cmd{
		Name: "acl role create", Read: true,
		Synopsis: "Create an ACL role",
		Help:     "Creates a role granting the -policy policies; tokens linked to it hold them.\nRequires a management token.",
	}
	c.Flags = func(fs *flag.FlagSet) { f.register(fs) }
	c.Run = func(e *env, args []string) error {
		if f.name == "" || len(f.policies) == 0 {
			return errorf("acl role create: -name and at least one -policy are required")
		}
		cl, err := e.api()
		if err != nil {
			return err
		}
		role, _, err := cl.ACLRoles().Create(&api.ACLRole{Name: f.name, Description: f.description, Policies: policyLinks(f.policies)}, e.write())
		if err != nil {
			return apiError("creating the ACL role", err)
		}
		return e.output(role, func() error { e.printRole(role); return nil })
	}
	return c
}

func aclRoleUpdateCmd() *cmd {
	var f roleFlags
	var noMerge bool
	c := &cmd{
		Name: "acl role update", Args: "<id>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Update an ACL role's name, description or policies",
		Help:     "Changes what the flags give and keeps the rest, unless -no-merge.\nRequires a management token.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		f.register(fs)
		fs.BoolVar(&noMerge, "no-merge", false, "Replace the role with exactly what the flags give.")
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		role, _, err := cl.ACLRoles().Get(args[0], e.query())
		if err != nil {
			return apiError("reading the ACL role", err)
		}
		if noMerge {
			role = &api.ACLRole{ID: role.ID, Name: f.name, Description: f.description, Policies: policyLinks(f.policies)}
		} else {
			mergeRole(role, &f)
		}
		out, _, err := cl.ACLRoles().Update(role, e.write())
		if err != nil {
			return apiError("updating the ACL role", err)
		}
		return e.output(out, func() error { e.printRole(out); return nil })
	}
	return c
}

func mergeRole(role *api.ACLRole, f *roleFlags) {
	if f.name != "" {
		role.Name = f.name
	}
	if f.description != "" {
		role.Description = f.description
	}
	if len(f.policies) > 0 {
		role.Policies = policyLinks(f.policies)
	}
}

func aclRoleInfoCmd() *cmd {
	var byName bool
	c := &cmd{
		Name: "acl role info", Args: "<id>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Display an ACL role",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&byName, "by-name", false, "Look the role up by name instead of ID.")
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		get := cl.ACLRoles().Get
		if byName {
			get = cl.ACLRoles().GetByName
		}
		role, _, err := get(args[0], e.query())
		if err != nil {
			return apiError("reading the ACL role", err)
		}
		return e.output(role, func() error { e.printRole(role); return nil })
	}
	return c
}

func (e *env) printRole(r *api.ACLRole) {
	writeKV(e.stdout, [][2]string{
		{"ID", r.ID},
		{"Name", r.Name},
		{"Description", r.Description},
		{"Policies", strings.Join(linkNames(r.Policies), ",")},
		{"Create Index", strconv.FormatUint(r.CreateIndex, 10)},
		{"Modify Index", strconv.FormatUint(r.ModifyIndex, 10)},
	})
}

func linkNames(links []*api.ACLRolePolicyLink) []string {
	out := make([]string, 0, len(links))
	for _, l := range links {
		out = append(out, l.Name)
	}
	return out
}

func aclRoleListCmd() *cmd {
	return listTable(&cmd{Name: "acl role list", Synopsis: "List ACL roles"},
		func(cl *api.Client, q *api.QueryOptions) ([]*api.ACLRoleListStub, error) {
			list, _, err := cl.ACLRoles().List(q)
			return list, err
		}, "listing ACL roles", "No ACL roles found",
		[]string{"ID", "Name", "Description", "Policies"},
		func(r *api.ACLRoleListStub) []string {
			return []string{r.ID, r.Name, r.Description, strings.Join(linkNames(r.Policies), ",")}
		})
}

func aclRoleDeleteCmd() *cmd {
	c := &cmd{
		Name: "acl role delete", Args: "<id>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Delete an ACL role",
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		if _, err := cl.ACLRoles().Delete(args[0], e.write()); err != nil {
			return apiError("deleting the ACL role", err)
		}
		fmt.Fprintf(e.stdout, "ACL role %s successfully deleted\n", args[0])
		return nil
	}
	return c
}
