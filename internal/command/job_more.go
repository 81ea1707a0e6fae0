package command

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

func init() {
	register("job allocs", jobAllocsCmd)
	register("job deployments", jobDeploymentsCmd)
	register("job start", jobStartCmd)
	register("job promote", jobPromoteCmd)
	register("job tag apply", jobTagApplyCmd)
	register("job tag unset", jobTagUnsetCmd)
	register("job scaling-events", jobScalingEventsCmd)
	register("job init", jobInitCmd)
	register("job restart", jobRestartCmd)
}

func jobAllocsCmd() *cmd {
	var all bool
	c := &cmd{
		Name: "job allocs", Args: "<job>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "List allocations for a job",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&all, "all", false, "Also show allocations of an earlier job with the same ID.")
	}
	c.Run = func(e *env, args []string) error {
		id, err := e.resolveJob(args[0])
		if err != nil {
			return err
		}
		cl, _ := e.api()
		allocs, _, err := cl.Jobs().Allocations(id, all, e.query())
		if err != nil {
			return apiError("listing allocations of job "+id, err)
		}
		return e.output(allocs, func() error {
			if len(allocs) == 0 {
				fmt.Fprintf(e.stdout, "No allocations found for job %q\n", id)
				return nil
			}
			e.allocTable(e.stdout, allocs)
			return nil
		})
	}
	return c
}

func jobDeploymentsCmd() *cmd {
	var latest, all bool
	c := &cmd{
		Name: "job deployments", Args: "<job>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "List deployments for a job",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&latest, "latest", false, "Show only the latest deployment.")
		fs.BoolVar(&all, "all", false, "Also show deployments of an earlier job with the same ID.")
	}
	c.Run = func(e *env, args []string) error {
		id, err := e.resolveJob(args[0])
		if err != nil {
			return err
		}
		cl, _ := e.api()
		if latest {
			d, _, err := cl.Jobs().LatestDeployment(id, e.query())
			if err != nil {
				return apiError("reading the latest deployment of job "+id, err)
			}
			return e.output(d, func() error {
				if d == nil {
					fmt.Fprintf(e.stdout, "Job %q has no deployment\n", id)
					return nil
				}
				fmt.Fprint(e.stdout, e.renderDeployment(d))
				return nil
			})
		}
		ds, _, err := cl.Jobs().Deployments(id, all, e.query())
		if err != nil {
			return apiError("listing deployments of job "+id, err)
		}
		return e.output(ds, func() error {
			if len(ds) == 0 {
				fmt.Fprintf(e.stdout, "No deployments found for job %q\n", id)
				return nil
			}
			rows := [][]string{{"ID", "Job ID", "Job Version", "Status", "Description"}}
			for _, d := range ds {
				rows = append(rows, []string{e.short(d.ID), d.JobID, fmt.Sprint(d.JobVersion), d.Status, d.StatusDescription})
			}
			writeColumns(e.stdout, rows)
			return nil
		})
	}
	return c
}

func jobStartCmd() *cmd {
	c := &cmd{
		Name: "job start", Args: "<job>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Start a stopped job",
		Help:     "Submits the stopped job's latest version again, running, and monitors its evaluation.",
	}
	return evalWrite(c, func(e *env, args []string) (string, string, error) {
		id, err := e.resolveJob(args[0])
		if err != nil {
			return "", "", err
		}
		cl, _ := e.api()
		job, _, err := cl.Jobs().Info(id, e.query())
		if err != nil {
			return "", "", apiError("reading job "+id, err)
		}
		if !derefBool(job.Stop) {
			return "", "", errorf("job %q is not stopped", id)
		}
		job.Stop = new(false)
		resp, _, err := cl.Jobs().Register(job, e.write())
		if err != nil {
			return "", "", apiError("starting job "+id, err)
		}
		return resp.EvalID, fmt.Sprintf("Job %q started", id), nil
	})
}

func jobPromoteCmd() *cmd {
	var groups strList
	var detach bool
	c := &cmd{
		Name: "job promote", Args: "<job>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Promote a job's canaries",
		Help:     "Promotes the canaries of the job's latest deployment and monitors the deployment unless -detach.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.Var(&groups, "group", "Promote only this task group's canaries. Repeatable.")
		detachFlag(fs, &detach)
	}
	c.Run = func(e *env, args []string) error {
		id, err := e.resolveJob(args[0])
		if err != nil {
			return err
		}
		cl, _ := e.api()
		d, _, err := cl.Jobs().LatestDeployment(id, e.query())
		if err != nil {
			return apiError("reading the latest deployment of job "+id, err)
		}
		if d == nil {
			return errorf("job %q has no deployment to promote", id)
		}
		return e.promote(d.ID, groups, detach)
	}
	return c
}

// promote promotes a deployment's canaries (all, or the groups named),
// then follows the deployment unless detached.
func (e *env) promote(id string, groups []string, detach bool) error {
	cl, _ := e.api()
	var resp *api.DeploymentUpdateResponse
	var err error
	if len(groups) > 0 {
		resp, _, err = cl.Deployments().PromoteGroups(id, groups, e.write())
	} else {
		resp, _, err = cl.Deployments().PromoteAll(id, e.write())
	}
	if err != nil {
		return apiError("promoting deployment "+id, err)
	}
	if detach {
		fmt.Fprintf(e.stdout, "Deployment %q promoted\n", e.short(id))
		if resp.EvalID != "" {
			fmt.Fprintf(e.stdout, "Evaluation ID: %s\n", resp.EvalID)
		}
		return nil
	}
	// The promotion's eval may be canceled in favour of a newer one for
	// the job; the deployment is what tells whether the rollout ends.
	if resp.EvalID != "" {
		e.say("==> ", "Deployment %q promoted, evaluation %q", e.short(id), e.short(resp.EvalID))
	}
	return e.monitorDeployment(id)
}

func jobTagApplyCmd() *cmd {
	var name, description string
	var version optUint
	c := &cmd{
		Name: "job tag apply", Args: "<job>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Name a version of a job",
		Help:     "Tags a version of the job (the latest unless -version) with a name and description.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.StringVar(&name, "name", "", "The tag's name (required).")
		fs.StringVar(&description, "description", "", "The tag's description.")
		fs.Var(&version, "version", "The version to tag (default: the latest).")
	}
	c.Run = func(e *env, args []string) error {
		if name == "" {
			return errorf("-name is required")
		}
		id, err := e.resolveJob(args[0])
		if err != nil {
			return err
		}
		cl, _ := e.api()
		v := version.v
		if !version.set {
			job, _, err := cl.Jobs().Info(id, e.query())
			if err != nil {
				return apiError("reading job "+id, err)
			}
			v = derefUint64(job.Version)
		}
		if _, err := cl.Jobs().TagVersion(id, v, name, description, e.write()); err != nil {
			return apiError("tagging job "+id, err)
		}
		fmt.Fprintf(e.stdout, "Job version %d tagged with name %q\n", v, name)
		return nil
	}
	return c
}

func jobTagUnsetCmd() *cmd {
	var name string
	c := &cmd{
		Name: "job tag unset", Args: "<job>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Remove a version tag of a job",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.StringVar(&name, "name", "", "The tag's name (required).")
	}
	c.Run = func(e *env, args []string) error {
		if name == "" {
			return errorf("-name is required")
		}
		id, err := e.resolveJob(args[0])
		if err != nil {
			return err
		}
		cl, _ := e.api()
		if _, err := cl.Jobs().UntagVersion(id, name, e.write()); err != nil {
			return apiError("removing tag "+name+" of job "+id, err)
		}
		fmt.Fprintf(e.stdout, "Tag %q removed from job %q\n", name, id)
		return nil
	}
	return c
}

func jobScalingEventsCmd() *cmd {
	c := &cmd{
		Name: "job scaling-events", Args: "<job>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Display the most recent scaling events for a job",
	}
	c.Run = func(e *env, args []string) error {
		id, err := e.resolveJob(args[0])
		if err != nil {
			return err
		}
		cl, _ := e.api()
		st, _, err := cl.Jobs().ScaleStatus(id, e.query())
		if err != nil {
			return apiError("reading scaling status of job "+id, err)
		}
		type row struct {
			group string
			ev    api.ScalingEvent
		}
		var evs []row
		for g, s := range st.TaskGroups {
			for _, ev := range s.Events {
				evs = append(evs, row{g, ev})
			}
		}
		sort.SliceStable(evs, func(i, j int) bool { return evs[i].ev.Time > evs[j].ev.Time })
		return e.output(st, func() error {
			if len(evs) == 0 {
				fmt.Fprintln(e.stdout, "No events found")
				return nil
			}
			header := []string{"Task Group", "Count", "PrevCount", "Date"}
			if e.verbose {
				header = append(header, "Error", "Message", "Eval ID")
			}
			rows := [][]string{header}
			for _, r := range evs {
				count := ""
				if r.ev.Count != nil {
					count = fmt.Sprint(*r.ev.Count)
				}
				line := []string{r.group, count, fmt.Sprint(r.ev.PreviousCount), e.whenNanos(int64(r.ev.Time))}
				if e.verbose {
					line = append(line, fmt.Sprint(r.ev.Error), r.ev.Message, derefStr(r.ev.EvalID))
				}
				rows = append(rows, line)
			}
			writeColumns(e.stdout, rows)
			return nil
		})
	}
	return c
}

func jobInitCmd() *cmd {
	var short bool
	c := &cmd{
		Name: "job init", Args: "[<file>]", MinArgs: 0, MaxArgs: 1,
		Synopsis: "Create an example job file",
		Help:     "Writes an example job (a docker service with a check) to example.nomad.hcl, or the file named.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&short, "short", false, "Write the job without comments.")
	}
	c.Run = func(e *env, args []string) error {
		file := "example.nomad.hcl"
		if len(args) == 1 {
			file = args[0]
		}
		body := exampleJob
		if short {
			body = stripHCLComments(body)
		}
		return writeNewFile(e, file, body, "Example job file written to %s\n", "Job '%s' already exists")
	}
	return c
}

// writeNewFile writes body to a file that must not exist yet.
func writeNewFile(e *env, file, body, done, exists string) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return errorf(exists, file)
	}
	if err != nil {
		return err
	}
	if _, err := f.WriteString(body); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, done, file)
	return nil
}

func stripHCLComments(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

const exampleJob = `# An example service: one group of one docker task, registered as a
# Nomad service with an HTTP check. "drover job run example.nomad.hcl".
job "example" {
  # The datacenters the job may run in.
  datacenters = ["*"]

  group "cache" {
    count = 1

    network {
      port "db" {
        to = 6379
      }
    }

    # Replace one allocation at a time, healthy for 10s before the next.
    update {
      max_parallel     = 1
      min_healthy_time = "10s"
      healthy_deadline = "3m"
    }

    service {
      name     = "redis-cache"
      provider = "nomad"
      port     = "db"

      check {
        type     = "tcp"
        interval = "10s"
        timeout  = "2s"
      }
    }

    task "redis" {
      driver = "docker"

      config {
        image = "redis:7"
        ports = ["db"]
      }

      resources {
        cpu    = 500
        memory = 256
      }
    }
  }
}
`

func jobRestartCmd() *cmd {
	var (
		allTasks, yes, reschedule, noShutdownDelay bool
		batchSize, batchWait, onError              string
		groups, tasks                              strList
	)
	c := &cmd{
		Name: "job restart", Args: "<job>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Restart or reschedule allocations for a job",
		Help: "Restarts the running tasks of the job's running allocations (or, with -reschedule, stops them " +
			"so the scheduler places replacements), -batch-size at a time (a number or a percentage of the " +
			"allocations), waiting -batch-wait between batches (a duration, or \"ask\" to ask before each). " +
			"-on-error=ask asks whether to go on after a failed restart; fail stops. Exit 0 when every " +
			"allocation restarted, 1 otherwise.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&allTasks, "all-tasks", false, "Restart every task, including finished lifecycle tasks.")
		fs.StringVar(&batchSize, "batch-size", "1", "How many allocations to restart at once (N or N%).")
		fs.StringVar(&batchWait, "batch-wait", "0s", "How long to wait between batches, or \"ask\".")
		fs.Var(&groups, "group", "Restart only allocations of this task group. Repeatable.")
		fs.Var(&tasks, "task", "Restart only this task. Repeatable.")
		fs.BoolVar(&noShutdownDelay, "no-shutdown-delay", false, "With -reschedule, skip the groups' shutdown delay.")
		fs.StringVar(&onError, "on-error", "ask", "What to do when a restart fails: ask or fail.")
		fs.BoolVar(&reschedule, "reschedule", false, "Stop the allocations so they are rescheduled instead of restarted in place.")
		fs.BoolVar(&yes, "yes", false, "Answer yes to every question.")
		fs.BoolVar(&yes, "y", false, "Short for -yes.")
	}
	c.Run = func(e *env, args []string) error {
		if allTasks && len(tasks) > 0 {
			return errorf("-all-tasks and -task are mutually exclusive")
		}
		if reschedule && (allTasks || len(tasks) > 0) {
			return errorf("-reschedule restarts whole allocations: it takes neither -all-tasks nor -task")
		}
		if onError != "ask" && onError != "fail" {
			return errorf("-on-error must be ask or fail, not %q", onError)
		}
		var wait time.Duration
		askWait := batchWait == "ask"
		if !askWait {
			var err error
			if wait, err = time.ParseDuration(batchWait); err != nil || wait < 0 {
				return errorf("-batch-wait %q is not a duration or \"ask\"", batchWait)
			}
		}
		id, err := e.resolveJob(args[0])
		if err != nil {
			return err
		}
		cl, _ := e.api()
		stubs, _, err := cl.Jobs().Allocations(id, false, e.query())
		if err != nil {
			return apiError("listing allocations of job "+id, err)
		}
		var targets []*api.AllocationListStub
		for _, s := range stubs {
			if s.ClientStatus != api.AllocClientStatusRunning || s.DesiredStatus != api.AllocDesiredStatusRun {
				continue
			}
			if len(groups) > 0 && !contains(groups, s.TaskGroup) {
				continue
			}
			targets = append(targets, s)
		}
		sort.Slice(targets, func(i, j int) bool { return targets[i].CreateIndex < targets[j].CreateIndex })
		size, err := parseBatchSize(batchSize, len(targets))
		if err != nil {
			return err
		}
		in := bufio.NewReader(e.stdin)
		e.say("==> ", "Restarting %d allocation%s", len(targets), plural(len(targets)))
		failed := 0
		for start := 0; start < len(targets); start += size {
			if start > 0 {
				if askWait && !yes {
					if !ask(e, in, "Proceed with the next batch? [Y/n/<duration>]") {
						return exitCode(1)
					}
				} else if wait > 0 {
					e.say("==> ", "Waiting %s before restarting the next batch", wait)
					time.Sleep(wait) // the operator asked for this pause between batches
				}
			}
			for _, s := range targets[start:min(start+size, len(targets))] {
				err := e.restartOne(s, reschedule, allTasks, noShutdownDelay, tasks)
				if err == nil {
					continue
				}
				failed++
				e.say("    ", "Error: %v", err)
				if onError == "fail" || (!yes && !ask(e, in, "Continue with the other allocations? [y/N]")) {
					e.say("==> ", "Job restart stopped after an error")
					return exitCode(1)
				}
			}
		}
		e.say("==> ", "Finished job restart")
		if failed > 0 {
			fmt.Fprintf(e.stdout, "\n%d allocation%s failed to restart\n", failed, plural(failed))
			return exitCode(1)
		}
		fmt.Fprintln(e.stdout, "\nAll allocations restarted successfully!")
		return nil
	}
	return c
}

func (e *env) restartOne(s *api.AllocationListStub, reschedule, allTasks, noDelay bool, tasks []string) error {
	cl, _ := e.api()
	a, err := e.fetchAlloc(s.ID)
	if err != nil {
		return err
	}
	if reschedule {
		e.say("    ", "Rescheduling allocation %q for group %q", e.short(s.ID), s.TaskGroup)
		_, err := cl.Allocations().Stop(a, &api.QueryOptions{Namespace: e.namespace, Region: e.region,
			Params: map[string]string{"no_shutdown_delay": strconv.FormatBool(noDelay)}})
		return err
	}
	switch {
	case allTasks:
		e.say("    ", "Restarting all tasks in allocation %q for group %q", e.short(s.ID), s.TaskGroup)
		return cl.Allocations().RestartAllTasks(a, e.query())
	case len(tasks) > 0:
		for _, t := range tasks {
			if _, ok := a.TaskStates[t]; !ok {
				continue
			}
			e.say("    ", "Restarting task %q in allocation %q for group %q", t, e.short(s.ID), s.TaskGroup)
			if err := cl.Allocations().Restart(a, t, e.query()); err != nil {
				return err
			}
		}
		return nil
	}
	e.say("    ", "Restarting running tasks in allocation %q for group %q", e.short(s.ID), s.TaskGroup)
	return cl.Allocations().Restart(a, "", e.query())
}

// parseBatchSize reads -batch-size: N, or N% of total (at least 1).
func parseBatchSize(s string, total int) (int, error) {
	if p, ok := strings.CutSuffix(s, "%"); ok {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || n > 100 {
			return 0, errorf("-batch-size %q is not a percentage between 1%% and 100%%", s)
		}
		return max(1, total*n/100), nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, errorf("-batch-size %q is not a positive number or a percentage", s)
	}
	return n, nil
}

// ask prints a question and reads a line: empty or y/yes is yes (for
// questions whose default is yes, marked [Y/n]); a duration waits that long
// and then is yes.
func ask(e *env, in *bufio.Reader, q string) bool {
	fmt.Fprintf(e.stdout, "%s ", q)
	line, err := in.ReadString('\n')
	if err != nil && line == "" {
		return false
	}
	line = strings.ToLower(strings.TrimSpace(line))
	if d, err := time.ParseDuration(line); err == nil {
		time.Sleep(d) // the operator asked to wait this long
		return true
	}
	switch line {
	case "y", "yes":
		return true
	case "":
		return strings.Contains(q, "[Y/")
	}
	return false
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
