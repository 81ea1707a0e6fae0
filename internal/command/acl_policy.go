package command

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/hashicorp/nomad/api"
)

func init() {
	register("acl policy apply", aclPolicyApplyCmd)
	register("acl policy info", aclPolicyInfoCmd)
	register("acl policy list", aclPolicyListCmd)
	register("acl policy delete", aclPolicyDeleteCmd)
}

func aclPolicyApplyCmd() *cmd {
	var description string
	c := &cmd{
		Name: "acl policy apply", Args: "<name> <path>", MinArgs: 2, MaxArgs: 2,
		Synopsis: "Create or update an ACL policy",
		Help:     "Writes the policy rules in <path> (HCL or JSON; - for stdin) under <name>.\nRequires a management token.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.StringVar(&description, "description", "", "A human-readable description of the policy.")
	}
	c.Run = func(e *env, args []string) error {
		rules, err := readFileOrStdin(args[1])
		if err != nil {
			return err
		}
		cl, err := e.api()
		if err != nil {
			return err
		}
		if _, err := cl.ACLPolicies().Upsert(&api.ACLPolicy{Name: args[0], Description: description, Rules: string(rules)}, e.write()); err != nil {
			return apiError("writing the ACL policy", err)
		}
		fmt.Fprintf(e.stdout, "Successfully wrote %q ACL policy!\n", args[0])
		return nil
	}
	return c
}

func aclPolicyInfoCmd() *cmd {
	c := &cmd{
		Name: "acl policy info", Args: "<name>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Display an ACL policy",
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		p, _, err := cl.ACLPolicies().Info(args[0], e.query())
		if err != nil {
			return apiError("reading the ACL policy", err)
		}
		return e.output(p, func() error {
			writeKV(e.stdout, [][2]string{
				{"Name", p.Name},
				{"Description", p.Description},
				{"CreateIndex", strconv.FormatUint(p.CreateIndex, 10)},
				{"ModifyIndex", strconv.FormatUint(p.ModifyIndex, 10)},
			})
			fmt.Fprintf(e.stdout, "\nRules\n\n%s\n", p.Rules)
			return nil
		})
	}
	return c
}

func aclPolicyListCmd() *cmd {
	return listTable(&cmd{Name: "acl policy list", Synopsis: "List ACL policies"},
		func(cl *api.Client, q *api.QueryOptions) ([]*api.ACLPolicyListStub, error) {
			list, _, err := cl.ACLPolicies().List(q)
			return list, err
		}, "listing ACL policies", "No policies found",
		[]string{"Name", "Description"},
		func(p *api.ACLPolicyListStub) []string { return []string{p.Name, p.Description} })
}

func aclPolicyDeleteCmd() *cmd {
	return deleteOne(&cmd{Name: "acl policy delete", Args: "<name>", Synopsis: "Delete an ACL policy"},
		func(cl *api.Client, name string, w *api.WriteOptions) error {
			_, err := cl.ACLPolicies().Delete(name, w)
			return err
		}, "deleting the ACL policy", "Successfully deleted %q ACL policy!\n")
}
