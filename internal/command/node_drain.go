package command

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/hashicorp/nomad/api"
)

func init() { register("node drain", nodeDrainCmd) }

func nodeDrainCmd() *cmd {
	var (
		enable, disable, ignoreSystem, keepIneligible, force, noDeadline, plan bool
		self, detach, monitorOnly, yes                                         bool
		deadline                                                               time.Duration
	)
	c := &cmd{
		Name: "node drain", Args: "-enable|-disable [-self | <node>]", MinArgs: 0, MaxArgs: 1,
		Synopsis: "Drain a node of its allocations, or stop draining it",
		Help: "With -enable, marks the node draining and follows the drain until every allocation has left " +
			"(\"Alloc ... marked for migration\", \"Drain complete for node ...\") unless -detach; interrupting " +
			"the command does not cancel the drain (-disable does). -monitor only follows a drain already " +
			"under way.",
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
		fs.BoolVar(&self, "self", false, "Drain the node of the agent addressed.")
		fs.BoolVar(&detach, "detach", false, "Return once the drain is set, without following it.")
		fs.BoolVar(&monitorOnly, "monitor", false, "Only follow the node's drain.")
		fs.BoolVar(&yes, "yes", false, "Answer yes to the confirmation (drover never asks; accepted for Nomad's scripts).")
	}
	c.Run = func(e *env, args []string) error {
		if monitorOnly && (enable || disable || detach) {
			return errorf("-monitor takes none of -enable, -disable and -detach")
		}
		if !monitorOnly && enable == disable {
			return errorf("exactly one of -enable and -disable is required")
		}
		id, err := e.nodeArg(self, args)
		if err != nil {
			return err
		}
		if plan {
			if !enable {
				return errorf("-plan goes with -enable")
			}
			return e.drainPlan(id, drainDeadline(deadline, force, noDeadline), ignoreSystem)
		}
		if monitorOnly {
			return e.monitorDrain(id, 0, ignoreSystem)
		}
		var spec *api.DrainSpec
		if enable {
			spec = &api.DrainSpec{Deadline: drainDeadline(deadline, force, noDeadline), IgnoreSystemJobs: ignoreSystem}
		}
		cl, _ := e.api()
		resp, err := cl.Nodes().UpdateDrainOpts(id, &api.DrainOptions{DrainSpec: spec, MarkEligible: disable && !keepIneligible}, e.write())
		if err != nil {
			return apiError("updating drain of node "+id, err)
		}
		state := "enabled"
		if disable {
			state = "disabled"
		}
		fmt.Fprintf(e.stdout, "%s: Node %q drain strategy %s\n", now().Format(time.RFC3339), e.short(id), state)
		if disable || detach {
			return nil
		}
		return e.monitorDrain(id, resp.NodeModifyIndex, ignoreSystem)
	}
	return c
}

// drainDeadline maps the flags onto Nomad's encoding (DrainSpec.Deadline):
// a negative deadline forces the allocations off now, 0 means none.
func drainDeadline(d time.Duration, force, none bool) time.Duration {
	switch {
	case force:
		return -1 * time.Second
	case none:
		return 0
	}
	return d
}

// monitorDrain follows a node's drain to completion with the official
// client's drain monitor (Nomad's own messages), each line timestamped.
func (e *env) monitorDrain(id string, index uint64, ignoreSystem bool) error {
	cl, _ := e.api()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Fprintf(e.stdout, "%s: Ctrl-C to stop monitoring: will not cancel the node drain\n", now().Format(time.RFC3339))
	failed := false
	for msg := range cl.Nodes().MonitorDrain(ctx, id, index, ignoreSystem) {
		fmt.Fprintf(e.stdout, "%s: %s\n", now().Format(time.RFC3339), msg.Message)
		failed = failed || msg.Level == api.MonitorMsgLevelError
	}
	if failed {
		return exitCode(1)
	}
	return nil
}
