package command

import (
	"flag"
	"fmt"

	"github.com/hashicorp/nomad/api"
)

func init() { register("namespace apply", namespaceApplyCmd) }

func namespaceApplyCmd() *cmd {
	var description string
	c := &cmd{
		Name: "namespace apply", Args: "<namespace>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Create or update a namespace",
		Help:     "Creates the namespace, or updates an existing one's description\n(kept when -description is not given).",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.StringVar(&description, "description", "", "A human-readable description of the namespace.")
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		ns := &api.Namespace{Name: args[0], Description: description}
		if description == "" {
			if existing, _, err := cl.Namespaces().Info(args[0], e.query()); err == nil {
				ns.Description, ns.Meta = existing.Description, existing.Meta
			}
		}
		if _, err := cl.Namespaces().Register(ns, e.write()); err != nil {
			return apiError("applying namespace", err)
		}
		fmt.Fprintf(e.stdout, "Successfully applied namespace %q!\n", args[0])
		return nil
	}
	return c
}
