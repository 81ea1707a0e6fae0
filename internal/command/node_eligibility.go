package command

import (
	"flag"
	"fmt"
)

func init() { register("node eligibility", nodeEligibilityCmd) }

func nodeEligibilityCmd() *cmd {
	var enable, disable, self bool
	c := &cmd{
		Name: "node eligibility", Args: "-enable|-disable [-self | <node>]", MinArgs: 0, MaxArgs: 1,
		Synopsis: "Toggle whether new allocations may be placed on a node",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&enable, "enable", false, "Mark the node eligible.")
		fs.BoolVar(&disable, "disable", false, "Mark the node ineligible.")
		fs.BoolVar(&self, "self", false, "The node of the agent addressed.")
	}
	c.Run = func(e *env, args []string) error {
		if enable == disable {
			return errorf("exactly one of -enable and -disable is required")
		}
		id, err := e.nodeArg(self, args)
		if err != nil {
			return err
		}
		cl, _ := e.api()
		if _, err := cl.Nodes().ToggleEligibility(id, enable, e.write()); err != nil {
			return apiError("updating eligibility of node "+id, err)
		}
		state := "eligible"
		if disable {
			state = "ineligible"
		}
		fmt.Fprintf(e.stdout, "Node %q scheduling eligibility set: %s for scheduling\n", e.short(id), state)
		return nil
	}
	return c
}

// nodeArg is the node a command addresses: -self's, or the argument's.
func (e *env) nodeArg(self bool, args []string) (string, error) {
	switch {
	case self && len(args) > 0:
		return "", errorf("-self and a node ID are mutually exclusive")
	case self:
		return e.selfNode()
	case len(args) == 0:
		return "", errorf("name a node, or give -self")
	}
	return e.resolveNode(args[0])
}
