package command

import (
	"flag"
	"fmt"
	"time"
)

func init() { register("eval status", evalStatusCmd) }

func evalStatusCmd() *cmd {
	var chain bool
	c := &cmd{
		Name: "eval status", Args: "<eval>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Display the status of an evaluation",
		Help: "Accepts a full ID or a unique prefix. Shows the eval, its lifecycle\n" +
			"timeline (Drover's quasi-statuses included), placements and failures.\n\n" +
			"-chain draws the eval and every eval linked to it through PreviousEval,\n" +
			"NextEval and BlockedEval as a tree: trigger, status and timeline of each,\n" +
			"so the cause of a long run of evaluations is visible at a glance.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&chain, "chain", false, "Draw the tree of linked evaluations.")
	}
	c.Run = func(e *env, args []string) error {
		id, err := e.resolveEval(args[0])
		if err != nil {
			return err
		}
		if chain {
			return e.evalChain(id)
		}
		return e.evalStatus(id)
	}
	return c
}

func (e *env) evalStatus(id string) error {
	ev, err := e.fetchEval(id, e.verbose)
	if err != nil {
		return err
	}
	return e.output(ev, func() error { return e.printEval(ev) })
}

func (e *env) printEval(ev *evalView) error {
	writeKV(e.stdout, e.evalKV(ev))
	if len(ev.Timeline) > 0 {
		heading(e.stdout, "Timeline")
		e.timelineTable(ev.Timeline)
	}
	if err := e.evalPlacements(ev); err != nil {
		return err
	}
	if len(ev.FailedTGAllocs) > 0 {
		heading(e.stdout, "Failed Placements")
		failedAllocs(e.stdout, ev.FailedTGAllocs, "")
		e.evalExplain(e.stdout, ev.ID)
	}
	if e.verbose && len(ev.RelatedEvals) > 0 {
		heading(e.stdout, "Related Evaluations")
		rows := [][]string{{"ID", "Triggered By", "Status", "Created"}}
		for _, r := range ev.RelatedEvals {
			rows = append(rows, []string{e.short(r.ID), r.TriggeredBy, r.Status, e.whenNanos(r.CreateTime)})
		}
		writeColumns(e.stdout, rows)
	}
	return nil
}

func (e *env) evalKV(ev *evalView) [][2]string {
	kv := [][2]string{
		{"ID", e.short(ev.ID)},
		{"Create Time", e.whenNanos(ev.CreateTime)},
		{"Modify Time", e.whenNanos(ev.ModifyTime)},
		{"Status", ev.Status},
		{"Status Description", orNone(ev.StatusDescription)},
		{"Type", ev.Type},
		{"TriggeredBy", ev.TriggeredBy},
		{"Job ID", orNone(ev.JobID)},
	}
	if ev.NodeID != "" {
		kv = append(kv, [2]string{"Node ID", e.short(ev.NodeID)})
	}
	if ev.DeploymentID != "" {
		kv = append(kv, [2]string{"Deployment ID", e.short(ev.DeploymentID)})
	}
	if !ev.WaitUntil.IsZero() {
		kv = append(kv, [2]string{"Wait Until", e.when(ev.WaitUntil)})
	}
	return append(kv,
		[2]string{"Namespace", ev.Namespace},
		[2]string{"Priority", fmt.Sprint(ev.Priority)},
		[2]string{"Placement Failures", fmt.Sprint(len(ev.FailedTGAllocs) > 0)},
		[2]string{"Previous Eval", orNone(e.short(ev.PreviousEval))},
		[2]string{"Next Eval", orNone(e.short(ev.NextEval))},
		[2]string{"Blocked Eval", orNone(e.short(ev.BlockedEval))},
	)
}

// timelineTable lists each step with when it started and how long the
// eval spent in it.
func (e *env) timelineTable(steps []*timelineStep) {
	rows := [][]string{{"Step", "Worker", "At", "Took", "Note"}}
	for i, s := range steps {
		took := ""
		if i+1 < len(steps) {
			took = e.dur(time.Duration(steps[i+1].Time - s.Time))
		}
		rows = append(rows, []string{s.Status, s.Worker, e.whenNanos(s.Time), took, s.Note})
	}
	writeColumns(e.stdout, rows)
}

// evalPlacements lists the allocations the eval placed, if any.
func (e *env) evalPlacements(ev *evalView) error {
	cl, _ := e.api()
	allocs, _, err := cl.Evaluations().Allocations(ev.ID, e.query())
	if err != nil {
		return apiError("listing allocations of evaluation "+ev.ID, err)
	}
	if len(allocs) > 0 {
		heading(e.stdout, "Placed Allocations")
		e.allocTable(e.stdout, allocs)
	}
	return nil
}
