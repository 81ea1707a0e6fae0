package command

import (
	"flag"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

func init() { register("job status", jobStatusCmd) }

func jobStatusCmd() *cmd {
	var all bool
	c := &cmd{
		Name: "job status", Args: "[job]", MaxArgs: 1, Read: true,
		Synopsis: "Display the status of a job",
		Help: "Shows the job, its task-group summary, latest deployment, placement\n" +
			"failures and allocations. Without a job lists every job.\n" +
			"With -verbose also its evaluations, and full IDs.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&all, "all-allocs", false, "Show allocations of every job version, not just the current one.")
	}
	c.Run = func(e *env, args []string) error {
		if len(args) == 0 {
			return e.jobList()
		}
		return e.jobStatus(args[0], all)
	}
	return c
}

// jobStatusView is what -json and -t see for one job.
type jobStatusView struct {
	Job         *api.Job
	Summary     *api.JobSummary
	Deployment  *api.Deployment
	Evaluations []*api.Evaluation
	Allocations []*api.AllocationListStub
	// Children are the launched or dispatched jobs of a periodic or
	// parameterized job.
	Children []*api.JobListStub `json:",omitempty"`
}

func (e *env) jobStatus(prefix string, allAllocs bool) error {
	v, err := e.fetchJobStatus(prefix, allAllocs)
	if err != nil {
		return err
	}
	return e.output(v, func() error { e.printJobStatus(v); return nil })
}

func (e *env) fetchJobStatus(prefix string, allAllocs bool) (*jobStatusView, error) {
	id, err := e.resolveJob(prefix)
	if err != nil {
		return nil, err
	}
	c, _ := e.api()
	v := &jobStatusView{}
	if v.Job, _, err = c.Jobs().Info(id, e.query()); err != nil {
		return nil, apiError("reading job "+id, err)
	}
	if v.Allocations, _, err = c.Jobs().Allocations(id, allAllocs, e.query()); err != nil {
		return nil, apiError("listing allocations of job "+id, err)
	}
	if v.Evaluations, _, err = c.Jobs().Evaluations(id, e.query()); err != nil {
		return nil, apiError("listing evaluations of job "+id, err)
	}
	// Summary and deployments are optional: agents without those endpoints
	// still get a useful view (the summary is then counted from allocs).
	v.Summary, _, _ = c.Jobs().Summary(id, e.query())
	v.Deployment, _, _ = c.Jobs().LatestDeployment(id, e.query())
	if v.Job.IsPeriodic() || v.Job.IsParameterized() {
		kids, _, err := c.Jobs().PrefixList(id + "/")
		if err != nil {
			return nil, apiError("listing the children of job "+id, err)
		}
		for _, k := range kids {
			if k.ParentID == id {
				v.Children = append(v.Children, k)
			}
		}
	}
	return v, nil
}

func (e *env) printJobStatus(v *jobStatusView) {
	j := v.Job
	kv := jobKV(e, j)
	if j.IsPeriodic() && !derefBool(j.Stop) {
		next := "none"
		if t, err := j.Periodic.Next(now().In(periodicLocation(j.Periodic))); err == nil && !t.IsZero() {
			next = fmt.Sprintf("%s (%s from now)", t.UTC().Format(time.RFC3339), e.dur(t.Sub(now()).Round(time.Second)))
		}
		kv = append(kv, [2]string{"Next Periodic Launch", next})
	}
	writeKV(e.stdout, kv)
	if j.IsPeriodic() || j.IsParameterized() {
		e.printParentStatus(v)
		return
	}
	e.printSummary(v)
	e.printDeployment(v.Deployment)
	e.printPlacementFailures(v.Evaluations)
	if e.verbose {
		heading(e.stdout, "Evaluations")
		e.evalTable(e.stdout, v.Evaluations)
	}
	heading(e.stdout, "Allocations")
	e.allocTable(e.stdout, v.Allocations)
}

func jobKV(e *env, j *api.Job) [][2]string {
	kv := [][2]string{
		{"ID", derefStr(j.ID)},
		{"Name", derefStr(j.Name)},
		{"Submit Date", e.when(time.Unix(0, derefInt64(j.SubmitTime)))},
		{"Type", derefStr(j.Type)},
		{"Priority", fmt.Sprint(derefInt(j.Priority))},
		{"Datacenters", strings.Join(j.Datacenters, ",")},
		{"Namespace", derefStr(j.Namespace)},
		{"Node Pool", derefStr(j.NodePool)},
		{"Status", jobStatusLabel(derefStr(j.Status), derefBool(j.Stop))},
		{"Periodic", fmt.Sprint(j.IsPeriodic())},
		{"Parameterized", fmt.Sprint(j.IsParameterized())},
	}
	if e.verbose {
		kv = append(kv, [2]string{"Version", fmt.Sprint(derefUint64(j.Version))})
	}
	return kv
}

// printSummary shows per-group counts from the summary endpoint, or
// counted from the allocations when the agent has no summary.
func (e *env) printSummary(v *jobStatusView) {
	heading(e.stdout, "Summary")
	sum := v.Summary
	if sum == nil {
		sum = summaryFromAllocs(v.Job, v.Allocations, v.Evaluations)
	}
	rows := [][]string{{"Task Group", "Queued", "Starting", "Running", "Failed", "Complete", "Lost", "Unknown"}}
	for _, g := range sortedKeys(sum.Summary) {
		s := sum.Summary[g]
		rows = append(rows, []string{g, itoa(s.Queued), itoa(s.Starting), itoa(s.Running),
			itoa(s.Failed), itoa(s.Complete), itoa(s.Lost), itoa(s.Unknown)})
	}
	writeColumns(e.stdout, rows)
}

// summaryFromAllocs stands in for the summary endpoint: client statuses
// counted from the allocations, queued counts from the newest eval that
// reports them.
func summaryFromAllocs(j *api.Job, allocs []*api.AllocationListStub, evals []*api.Evaluation) *api.JobSummary {
	sum := &api.JobSummary{Summary: map[string]api.TaskGroupSummary{}}
	queued := latestQueued(evals)
	for _, tg := range j.TaskGroups {
		name := derefStr(tg.Name)
		sum.Summary[name] = api.TaskGroupSummary{Queued: queued[name]}
	}
	for _, a := range allocs {
		s := sum.Summary[a.TaskGroup]
		switch a.ClientStatus {
		case "pending":
			s.Starting++
		case "running":
			s.Running++
		case "failed":
			s.Failed++
		case "complete":
			s.Complete++
		case "lost":
			s.Lost++
		case "unknown":
			s.Unknown++
		}
		sum.Summary[a.TaskGroup] = s
	}
	return sum
}

func (e *env) printDeployment(d *api.Deployment) {
	if d == nil {
		return
	}
	heading(e.stdout, "Latest Deployment")
	writeKV(e.stdout, [][2]string{
		{"ID", e.short(d.ID)}, {"Status", d.Status}, {"Description", d.StatusDescription},
	})
	deploymentGroups(e.stdout, d)
}

// printPlacementFailures shows why the job's blocked eval is waiting.
func (e *env) printPlacementFailures(evals []*api.Evaluation) {
	sort.Slice(evals, func(i, j int) bool { return evals[i].CreateIndex > evals[j].CreateIndex })
	for _, ev := range evals {
		if ev.Status == "blocked" && len(ev.FailedTGAllocs) > 0 {
			heading(e.stdout, "Placement Failure")
			failedAllocs(e.stdout, ev.FailedTGAllocs, "")
			return
		}
	}
}

func itoa(n int) string { return fmt.Sprint(n) }

func derefInt64(i *int64) int64 {
	if i == nil {
		return 0
	}
	return *i
}

func derefUint64(i *uint64) uint64 {
	if i == nil {
		return 0
	}
	return *i
}

func latestQueued(evals []*api.Evaluation) map[string]int {
	var newest *api.Evaluation
	for _, ev := range evals {
		if ev.QueuedAllocations != nil && (newest == nil || ev.CreateIndex > newest.CreateIndex) {
			newest = ev
		}
	}
	if newest == nil {
		return nil
	}
	return newest.QueuedAllocations
}

// periodicLocation is the periodic block's time_zone (UTC if unset or
// unknown).
func periodicLocation(p *api.PeriodicConfig) *time.Location {
	if p != nil && p.TimeZone != nil {
		if loc, err := time.LoadLocation(*p.TimeZone); err == nil {
			return loc
		}
	}
	return time.UTC
}

// printParentStatus is the rest of a periodic or parameterized job's
// status, as Nomad shows it: the parameters, the children's summary and
// the children launched (or dispatched).
func (e *env) printParentStatus(v *jobStatusView) {
	j := v.Job
	if j.IsParameterized() {
		heading(e.stdout, "Parameterized Job")
		p := j.ParameterizedJob
		payload := p.Payload
		if payload == "" {
			payload = "optional"
		}
		kv := [][2]string{{"Payload", payload}}
		if len(p.MetaRequired) > 0 {
			kv = append(kv, [2]string{"Required Metadata", strings.Join(p.MetaRequired, ", ")})
		}
		if len(p.MetaOptional) > 0 {
			kv = append(kv, [2]string{"Optional Metadata", strings.Join(p.MetaOptional, ", ")})
		}
		writeKV(e.stdout, kv)
	}
	title, listTitle := "Children Job Summary", "Previously Launched Jobs"
	if j.IsParameterized() {
		title, listTitle = "Parameterized Job Summary", "Dispatched Jobs"
	}
	heading(e.stdout, title)
	var c api.JobChildrenSummary
	if v.Summary != nil && v.Summary.Children != nil {
		c = *v.Summary.Children
	}
	writeColumns(e.stdout, [][]string{{"Pending", "Running", "Dead"}, {fmt.Sprint(c.Pending), fmt.Sprint(c.Running), fmt.Sprint(c.Dead)}})
	heading(e.stdout, listTitle)
	if len(v.Children) == 0 {
		fmt.Fprintf(e.stdout, "No %s\n", strings.ToLower(listTitle))
		return
	}
	rows := [][]string{{"ID", "Status"}}
	for _, k := range v.Children {
		rows = append(rows, []string{k.ID, k.Status})
	}
	writeColumns(e.stdout, rows)
}
