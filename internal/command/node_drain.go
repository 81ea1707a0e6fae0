package command

import (
	"flag"
	"fmt"
	"time"

	"github.com/hashicorp/nomad/api"
)

func init() { register("node drain", nodeDrainCmd) }

func nodeDrainCmd() *cmd {
	var (
		enable, disable, ignoreSystem, keepIneligible, force, noDeadline, plan bool
		deadline                                                               time.Duration
	)
	c := &cmd{
		Name: "node drain", Args: "-enable|-disable <node>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Drain a node of its allocations, or stop draining it",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&enable, "enable", false, "Start draining the node.")
		fs.BoolVar(&disable, "disable", false, "Stop draining the node.")
		fs.DurationVar(&deadline, "deadline", time.Hour, "Stop remaining allocations after this long.")
		fs.BoolVar(&noDeadline, "no-deadline", false, "Never force remaining allocations to stop.")
		fs.BoolVar(&force, "force", false, "Stop every allocation now (deadline 0).")
		fs.BoolVar(&ignoreSystem, "ignore-system", false, "Leave system job allocations running.")
		fs.BoolVar(&keepIneligible, "keep-ineligible", false, "With -disable, leave the node ineligible for placements.")
		fs.BoolVar(&plan, "plan", false, "Print what the drain would move and what would not fit, and drain nothing (see operator what-if).")
	}
	c.Run = func(e *env, args []string) error {
		if enable == disable {
			return errorf("exactly one of -enable and -disable is required")
		}
		id, err := e.resolveNode(args[0])
		if err != nil {
			return err
		}
		if plan {
			if !enable {
				return errorf("-plan goes with -enable")
			}
			return e.drainPlan(id, drainDeadline(deadline, force, noDeadline), ignoreSystem)
		}
		var spec *api.DrainSpec
		if enable {
			spec = &api.DrainSpec{Deadline: drainDeadline(deadline, force, noDeadline), IgnoreSystemJobs: ignoreSystem}
		}
		cl, _ := e.api()
		_, err = cl.Nodes().UpdateDrainOpts(id, &api.DrainOptions{DrainSpec: spec, MarkEligible: disable && !keepIneligible}, e.write())
		if err != nil {
			return apiError("updating drain of node "+id, err)
		}
		state := "enabled"
		if disable {
			state = "disabled"
		}
		fmt.Fprintf(e.stdout, "Node %q drain strategy %s\n", e.short(id), state)
		return nil
	}
	return c
}

// drainDeadline maps the flags onto Nomad's encoding: 0 forces, -1 never.
func drainDeadline(d time.Duration, force, none bool) time.Duration {
	switch {
	case force:
		return 0
	case none:
		return -1
	}
	return d
}
