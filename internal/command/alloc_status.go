package command

import (
	"flag"
	"fmt"

	"github.com/hashicorp/nomad/api"
)

func init() { register("alloc status", allocStatusCmd) }

func allocStatusCmd() *cmd {
	var stats bool
	c := &cmd{
		Name: "alloc status", Args: "<alloc>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Display the status of an allocation and its tasks",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&stats, "stats", false, "Also show the tasks' resource usage, as the node's client measures it.")
	}
	c.Run = func(e *env, args []string) error {
		a, err := e.fetchAlloc(args[0])
		if err != nil {
			return err
		}
		// Usage belongs to the human view: -json and -t print the
		// allocation alone, as their callers expect one document.
		return e.output(a, func() error {
			e.printAlloc(a)
			if stats {
				return e.printAllocStats(a)
			}
			return nil
		})
	}
	return c
}

// printAllocStats shows the resource usage the node's client reports for
// each task (the client endpoint /v1/client/allocation/:id/stats).
func (e *env) printAllocStats(a *api.Allocation) error {
	cl, _ := e.api()
	usage, err := cl.Allocations().Stats(a, e.query())
	if err != nil {
		return apiError("reading resource usage of allocation "+a.ID, err)
	}
	heading(e.stdout, "Resource Usage")
	rows := [][]string{{"Task", "CPU (MHz)", "Memory (RSS)"}}
	for _, task := range sortedKeys(usage.Tasks) {
		ru := usage.Tasks[task].ResourceUsage
		if ru == nil || ru.CpuStats == nil || ru.MemoryStats == nil {
			rows = append(rows, []string{task, "<none>", "<none>"})
			continue
		}
		rows = append(rows, []string{task, fmt.Sprintf("%.0f", ru.CpuStats.TotalTicks),
			fmt.Sprintf("%d MiB", ru.MemoryStats.RSS/(1<<20))})
	}
	writeColumns(e.stdout, rows)
	return nil
}

func (e *env) printAlloc(a *api.Allocation) {
	kv := [][2]string{
		{"ID", e.short(a.ID)}, {"Eval ID", e.short(a.EvalID)}, {"Name", a.Name},
		{"Node ID", e.short(a.NodeID)}, {"Node Name", orNone(a.NodeName)}, {"Job ID", a.JobID},
		{"Job Version", fmt.Sprint(derefUint64(a.Job.Version))},
		{"Client Status", a.ClientStatus}, {"Client Description", orNone(a.ClientDescription)},
		{"Desired Status", a.DesiredStatus}, {"Desired Description", orNone(a.DesiredDescription)},
		{"Created", e.whenNanos(a.CreateTime)}, {"Modified", e.whenNanos(a.ModifyTime)},
	}
	if a.DeploymentID != "" {
		kv = append(kv, [2]string{"Deployment ID", e.short(a.DeploymentID)})
	}
	if a.NextAllocation != "" {
		kv = append(kv, [2]string{"Replacement Alloc ID", e.short(a.NextAllocation)})
	}
	writeKV(e.stdout, kv)
	for _, task := range sortedKeys(a.TaskStates) {
		e.printTaskState(task, a.TaskStates[task])
	}
	if e.verbose && a.Metrics != nil {
		heading(e.stdout, "Placement Metrics")
		writeKV(e.stdout, [][2]string{
			{"Nodes Evaluated", itoa(a.Metrics.NodesEvaluated)}, {"Nodes Filtered", itoa(a.Metrics.NodesFiltered)},
			{"Nodes Exhausted", itoa(a.Metrics.NodesExhausted)}, {"Allocation Time", a.Metrics.AllocationTime.String()},
		})
	}
}

func (e *env) printTaskState(task string, s *api.TaskState) {
	heading(e.stdout, fmt.Sprintf("Task %q is %q", task, s.State))
	writeKV(e.stdout, [][2]string{
		{"Started", e.when(s.StartedAt)}, {"Finished", e.when(s.FinishedAt)},
		{"Restarts", fmt.Sprint(s.Restarts)}, {"Failed", fmt.Sprint(s.Failed)},
	})
	heading(e.stdout, "Recent Events:")
	rows := [][]string{{"Time", "Type", "Description"}}
	for i := len(s.Events) - 1; i >= 0; i-- { // newest first
		ev := s.Events[i]
		rows = append(rows, []string{e.whenNanos(ev.Time), ev.Type, eventText(ev)})
	}
	writeColumns(e.stdout, rows)
}

func eventText(ev *api.TaskEvent) string {
	if ev.DisplayMessage != "" {
		return ev.DisplayMessage
	}
	return ev.Message
}
