package command

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/hashicorp/nomad/api"
)

func init() {
	register("acl binding-rule create", aclBindingRuleCreateCmd)
	register("acl binding-rule update", aclBindingRuleUpdateCmd)
	register("acl binding-rule info", aclBindingRuleInfoCmd)
	register("acl binding-rule list", aclBindingRuleListCmd)
	register("acl binding-rule delete", aclBindingRuleDeleteCmd)
}

// bindingRuleFlags are the options of binding-rule create and update.
type bindingRuleFlags struct {
	description, authMethod, selector, bindType, bindName string
}

func (f *bindingRuleFlags) register(fs *flag.FlagSet, withMethod bool) {
	fs.StringVar(&f.description, "description", "", "A description of the rule (at most 256 characters).")
	if withMethod {
		fs.StringVar(&f.authMethod, "auth-method", "", "The auth method the rule belongs to.")
	}
	fs.StringVar(&f.selector, "selector", "", "A bexpr expression over value.<claim> and list.<claim>; empty matches every login.")
	fs.StringVar(&f.bindType, "bind-type", "", "What a match binds: role, policy or management.")
	fs.StringVar(&f.bindName, "bind-name", "", "The role or policy bound; ${value.<claim>} is interpolated. None for management.")
}

func aclBindingRuleCreateCmd() *cmd {
	var f bindingRuleFlags
	c := &cmd{
		Name: "acl binding-rule create", Read: true,
		Synopsis: "Create an ACL binding rule",
		Help:     "Creates a rule of -auth-method binding a role, a policy or management to the\nidentities its -selector matches. Requires a management token.",
	}
	c.Flags = func(fs *flag.FlagSet) { f.register(fs, true) }
	c.Run = func(e *env, args []string) error {
		if f.authMethod == "" || f.bindType == "" {
			return errorf("acl binding-rule create: -auth-method and -bind-type are required")
		}
		cl, err := e.api()
		if err != nil {
			return err
		}
		out, _, err := cl.ACLBindingRules().Create(&api.ACLBindingRule{Description: f.description, AuthMethod: f.authMethod,
			Selector: f.selector, BindType: f.bindType, BindName: f.bindName}, e.write())
		if err != nil {
			return apiError("creating the ACL binding rule", err)
		}
		return e.output(out, func() error { e.printBindingRule(out); return nil })
	}
	return c
}

func aclBindingRuleUpdateCmd() *cmd {
	var f bindingRuleFlags
	var fs0 *flag.FlagSet
	c := &cmd{
		Name: "acl binding-rule update", Args: "<id>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Update an ACL binding rule",
		Help:     "Changes what the flags give and keeps the rest. Requires a management token.",
	}
	c.Flags = func(fs *flag.FlagSet) { fs0 = fs; f.register(fs, false) }
	c.Run = func(e *env, args []string) error {
		set := flagsSet(fs0)
		cl, err := e.api()
		if err != nil {
			return err
		}
		r, _, err := cl.ACLBindingRules().Get(args[0], e.query())
		if err != nil {
			return apiError("reading the ACL binding rule", err)
		}
		if set["description"] {
			r.Description = f.description
		}
		if set["selector"] {
			r.Selector = f.selector
		}
		if set["bind-type"] {
			r.BindType = f.bindType
		}
		if set["bind-name"] {
			r.BindName = f.bindName
		}
		out, _, err := cl.ACLBindingRules().Update(r, e.write())
		if err != nil {
			return apiError("updating the ACL binding rule", err)
		}
		return e.output(out, func() error { e.printBindingRule(out); return nil })
	}
	return c
}

func aclBindingRuleInfoCmd() *cmd {
	c := &cmd{
		Name: "acl binding-rule info", Args: "<id>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Display an ACL binding rule",
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		r, _, err := cl.ACLBindingRules().Get(args[0], e.query())
		if err != nil {
			return apiError("reading the ACL binding rule", err)
		}
		return e.output(r, func() error { e.printBindingRule(r); return nil })
	}
	return c
}

// printBindingRule writes a binding rule (Nomad's layout).
func (e *env) printBindingRule(r *api.ACLBindingRule) {
	writeKV(e.stdout, [][2]string{
		{"ID", r.ID},
		{"Description", r.Description},
		{"Auth Method", r.AuthMethod},
		{"Selector", strconv.Quote(r.Selector)},
		{"Bind Type", r.BindType},
		{"Bind Name", r.BindName},
		{"Create Time", e.absTimeFmt(r.CreateTime)},
		{"Modify Time", e.absTimeFmt(r.ModifyTime)},
		{"Create Index", strconv.FormatUint(r.CreateIndex, 10)},
		{"Modify Index", strconv.FormatUint(r.ModifyIndex, 10)},
	})
}

func aclBindingRuleListCmd() *cmd {
	return listTable(&cmd{Name: "acl binding-rule list", Synopsis: "List ACL binding rules"},
		func(cl *api.Client, q *api.QueryOptions) ([]*api.ACLBindingRuleListStub, error) {
			list, _, err := cl.ACLBindingRules().List(q)
			return list, err
		}, "listing ACL binding rules", "No ACL binding rules found",
		[]string{"ID", "Description", "Auth Method"},
		func(r *api.ACLBindingRuleListStub) []string {
			return []string{r.ID, r.Description, r.AuthMethod}
		})
}

func aclBindingRuleDeleteCmd() *cmd {
	c := &cmd{
		Name: "acl binding-rule delete", Args: "<id>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Delete an ACL binding rule",
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		if _, err := cl.ACLBindingRules().Delete(args[0], e.write()); err != nil {
			return apiError("deleting the ACL binding rule", err)
		}
		fmt.Fprintf(e.stdout, "ACL binding rule %s successfully deleted\n", args[0])
		return nil
	}
	return c
}
