package command

import (
	"flag"
	"fmt"
	"time"

	"github.com/hashicorp/nomad/api"
)

// exitPlacementFailure is the exit code of a monitored eval that could not
// place everything (0 is success, 1 an error), as Nomad's.
const exitPlacementFailure = 2

// monitorWait bounds each blocking query, so a quiet eval still lets the
// monitor notice a dropped connection.
const monitorWait = 30 * time.Second

// monitor follows an evaluation until it is terminal, printing each status
// change, the allocations it placed and the groups it could not place; it
// follows NextEval (rolling updates, failed follow-ups). It returns an
// exitError with 2 when something could not be placed or the eval failed.
func (e *env) monitor(evalID string) error {
	_, err := e.monitorEval(evalID)
	return err
}

// monitorEval is monitor returning the last eval of the chain, whose
// DeploymentID tells `job run` which rollout to follow next.
func (e *env) monitorEval(evalID string) (*api.Evaluation, error) {
	e.say("==> ", "Monitoring evaluation %q", e.short(evalID))
	for {
		ev, err := e.watchEval(evalID)
		if err != nil {
			return nil, err
		}
		next, err := e.reportFinished(ev)
		if err != nil || next == "" {
			return ev, err
		}
		e.say("==> ", "Monitoring next evaluation %q", e.short(next))
		evalID = next
	}
}

// say prints one timestamped monitor line.
func (e *env) say(prefix, format string, args ...any) {
	fmt.Fprintf(e.stdout, "%s%s: %s\n", prefix, e.absTimeFmt(now()), fmt.Sprintf(format, args...))
}

// watchEval blocks on the eval until it is terminal, printing transitions.
func (e *env) watchEval(id string) (*api.Evaluation, error) {
	c, err := e.api()
	if err != nil {
		return nil, err
	}
	var index uint64
	// Every eval the monitor follows is written pending, so a first read
	// that already sees it finished still reports the change: output does
	// not depend on how fast the scheduler was.
	last, first := "pending", true
	for {
		q := e.query()
		q.WaitIndex, q.WaitTime = index, monitorWait
		ev, meta, err := c.Evaluations().Info(id, q)
		if err != nil {
			return nil, apiError("reading evaluation "+id, err)
		}
		if first {
			e.describeTrigger(ev)
			first = false
		}
		if ev.Status != last {
			e.say("    ", "Evaluation status changed: %q -> %q", last, ev.Status)
			last = ev.Status
		}
		if ev.Status != "pending" {
			// Said once the eval is done, when it always has its
			// deployment, so the output does not depend on timing.
			if ev.DeploymentID != "" {
				e.say("    ", "Evaluation within deployment: %q", e.short(ev.DeploymentID))
			}
			return ev, nil
		}
		index = meta.LastIndex
	}
}

func (e *env) describeTrigger(ev *api.Evaluation) {
	switch {
	case ev.NodeID != "":
		e.say("    ", "Evaluation triggered by node %q (%s)", e.short(ev.NodeID), ev.TriggeredBy)
	case ev.JobID != "":
		e.say("    ", "Evaluation triggered by job %q (%s)", ev.JobID, ev.TriggeredBy)
	default:
		e.say("    ", "Evaluation triggered by %s", ev.TriggeredBy)
	}
}

// reportFinished prints what a non-pending eval did and returns the next
// eval to follow, if any.
func (e *env) reportFinished(ev *api.Evaluation) (string, error) {
	if err := e.reportPlacements(ev.ID); err != nil {
		return "", err
	}
	if ev.Status == "complete" && ev.NextEval != "" {
		return ev.NextEval, nil
	}
	e.say("==> ", "Evaluation %q finished with status %q", e.short(ev.ID), ev.Status)
	failed := len(ev.FailedTGAllocs) > 0
	if failed {
		fmt.Fprintln(e.stdout, "\n==> Failed to place all allocations:")
		failedAllocs(e.stdout, ev.FailedTGAllocs, "    ")
	}
	if ev.BlockedEval != "" {
		e.say("    ", "Evaluation %q waiting for additional capacity to place remainder", e.short(ev.BlockedEval))
	}
	// A canceled eval was superseded by a newer one for the same job (the
	// broker keeps the newest), which does its work: not a failure, as in
	// Nomad, and the deployment still tells how the rollout ends.
	if failed || ev.BlockedEval != "" || (ev.Status != "complete" && ev.Status != "canceled") {
		return "", exitCode(exitPlacementFailure)
	}
	return "", nil
}

func (e *env) reportPlacements(evalID string) error {
	c, _ := e.api()
	allocs, _, err := c.Evaluations().Allocations(evalID, e.query())
	if err != nil {
		return apiError("listing allocations of evaluation "+evalID, err)
	}
	for _, a := range allocs {
		e.say("    ", "Allocation %q created: node %q, group %q", e.short(a.ID), e.short(a.NodeID), a.TaskGroup)
	}
	return nil
}

// followEval follows evalID to its end like monitor; with detach (or when
// the change wrote no eval) it prints what happened and the eval ID
// instead.
func (e *env) followEval(detach bool, evalID, what string) error {
	if detach || evalID == "" {
		fmt.Fprintf(e.stdout, "%s\nEvaluation ID: %s\n", what, orNone(evalID))
		return nil
	}
	return e.monitor(evalID)
}

// detachFlag declares -detach, which makes followEval return at once.
func detachFlag(fs *flag.FlagSet, detach *bool) {
	fs.BoolVar(detach, "detach", false, "Return right away with the evaluation ID.")
}
