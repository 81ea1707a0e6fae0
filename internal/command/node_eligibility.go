package command

import (
	"flag"
	"fmt"
)

func init() { register("node eligibility", nodeEligibilityCmd) }

func nodeEligibilityCmd() *cmd {
	var enable, disable bool
	c := &cmd{
		Name: "node eligibility", Args: "-enable|-disable <node>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Toggle whether new allocations may be placed on a node",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&enable, "enable", false, "Mark the node eligible.")
		fs.BoolVar(&disable, "disable", false, "Mark the node ineligible.")
	}
	c.Run = func(e *env, args []string) error {
		if enable == disable {
			return errorf("exactly one of -enable and -disable is required")
		}
		id, err := e.resolveNode(args[0])
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
