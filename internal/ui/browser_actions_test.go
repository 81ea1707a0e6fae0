package ui_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// poll waits for what the API says to hold.
func poll(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	testutil.WaitFor(t, 30*time.Second, what, cond)
}

// canaryJob registers id, waits for it, then registers a second version
// with a canary, and answers the deployment waiting for promotion.
func canaryJob(t *testing.T, c *api.Client, id string) *api.Deployment {
	t.Helper()
	job := mockJob(id, 1, "")
	register(t, c, job)
	waitRunning(t, c, id, 1)
	job.TaskGroups[0].Update = &api.UpdateStrategy{Canary: ptr(1), MinHealthyTime: ptr(100 * time.Millisecond)}
	job.TaskGroups[0].Tasks[0].Env = map[string]string{"V": "2"}
	register(t, c, job)
	var dep *api.Deployment
	poll(t, id+": a healthy canary waiting for promotion", func() (bool, string) {
		var err error
		if dep, _, err = c.Jobs().LatestDeployment(id, nil); err != nil || dep == nil {
			return false, fmt.Sprint("no deployment ", err)
		}
		st := dep.TaskGroups["web"]
		return dep.JobVersion == 1 && st != nil && st.HealthyAllocs == 1 && len(st.PlacedCanaries) == 1, dep.Status
	})
	return dep
}

func taskEvents(t *testing.T, c *api.Client, allocID, task string) []string {
	a, _, err := c.Allocations().Info(allocID, nil)
	if err != nil || a.TaskStates[task] == nil {
		return nil
	}
	var out []string
	for _, e := range a.TaskStates[task].Events {
		out = append(out, e.Type)
	}
	return out
}

func hasEvent(events []string, typ string) bool {
	for _, e := range events {
		if e == typ {
			return true
		}
	}
	return false
}

// testActions performs every action by clicking, and checks its effect
// through the API.
func testActions(t *testing.T, b *browser, cl *cluster) {
	base, c := cl.base, cl.c

	// Run: HCL in the editor, plan (diff, placement failures), run.
	b.visit(base, "/ui/jobs/run", "Run a job")
	b.fill("#f-jobspec", `job "from-ui" {
  datacenters = ["*"]
  group "g" {
    task "t" {
      driver = "mock"
      config { run_for = "0s" }
      resources {
        cpu    = 100
        memory = var.mem
      }
    }
  }
}
variable "mem" { default = 64 }
`)
	b.fill("#f-vars", `mem = 1000000`)
	b.click(`form.editor-form button[type=submit]`)
	b.waitText("plan of an unplaceable job", "Plan for from-ui", `+ Job: "from-ui"`, `Task group "g" would not be placed`, "Not enough memory")
	b.fill("#f-vars", `mem = 64`)
	b.click(`form.editor-form button[type=submit]`)
	b.waitText("plan", "Every group can be placed")
	b.screenshot("/ui/jobs/run (planned)")
	b.click(`button[data-action="run"]`)
	b.waitText("job page after run", "Job from-ui", "submitted")
	poll(t, "from-ui registered with its HCL source", func() (bool, string) {
		sub, _, err := c.Jobs().Submission("from-ui", 0, nil)
		return err == nil && sub != nil && strings.Contains(sub.Source, `variable "mem"`), fmt.Sprint(err)
	})
	b.checkNoErrors("run")

	// Edit the definition: the HCL source, planned, then run.
	b.visit(base, "/ui/jobs/from-ui@default/definition", `variable "mem"`, "Edit")
	b.click(`button[data-action="edit"]`)
	b.run("edit the source", chromedp.WaitVisible("#f-jobspec", chromedp.ByQuery),
		chromedp.Evaluate(`(() => { const e = document.getElementById('f-jobspec'); e.value = e.value.replace('group "g" {', 'group "g" {\n    count = 2'); })()`, nil))
	b.click(`form.editor-form button[type=submit]`)
	b.waitText("plan of the edit", `Count: "1" => "2"`)
	b.click(`button[data-action="run"]`)
	b.waitText("edited", "Job from-ui submitted")
	poll(t, "from-ui at count 2", func() (bool, string) {
		j, _, err := c.Jobs().Info("from-ui", nil)
		return err == nil && *j.TaskGroups[0].Count == 2, fmt.Sprint(err)
	})

	// Create a namespace.
	b.visit(base, "/ui/administration/namespaces/new", "Create namespace")
	b.fill("#f-name", "ui-team")
	b.fill("#f-description", "made in the browser")
	b.click(`form[data-action="create"] button[type=submit]`)
	b.waitText("namespace", "Namespace ui-team created.")
	poll(t, "namespace ui-team", func() (bool, string) {
		ns, _, err := c.Namespaces().Info("ui-team", nil)
		return err == nil && ns.Description == "made in the browser", fmt.Sprint(err)
	})

	// Scale a group from the job page.
	b.visit(base, "/ui/jobs/web@default", "Task groups")
	b.fill("#count-web", "3")
	b.click(`form[data-action="scale"] button[type=submit]`)
	b.waitText("scaled", "Group web scaled to 3.")
	poll(t, "web scaled to 3", func() (bool, string) {
		j, _, err := c.Jobs().Info("web", nil)
		return err == nil && *j.TaskGroups[0].Count == 3, fmt.Sprint(err)
	})

	// Revert to version 0 (count 2, no MODE).
	b.visit(base, "/ui/jobs/web@default/versions", "Revert to version 0")
	b.confirm(`button[data-action="revert"][data-version="0"]`)
	b.waitText("reverted", "Reverted web to version 0.")
	poll(t, "web reverted to version 0", func() (bool, string) {
		j, _, err := c.Jobs().Info("web", nil)
		return err == nil && *j.Version > 2 && j.TaskGroups[0].Tasks[0].Env["MODE"] == "" && *j.TaskGroups[0].Count == 2, fmt.Sprint(err)
	})

	// Stop, start and purge a job.
	b.visit(base, "/ui/jobs/run@default", "Job run")
	b.confirm(`button[data-action="stop-job"]`)
	b.waitText("stopped", "Job run stopped")
	poll(t, "run stopped", func() (bool, string) { j, _, err := c.Jobs().Info("run", nil); return err == nil && *j.Stop, "" })
	b.confirm(`button[data-action="start-job"]`)
	b.waitText("started", "Job run started.")
	poll(t, "run started", func() (bool, string) { j, _, err := c.Jobs().Info("run", nil); return err == nil && !*j.Stop, "" })
	b.confirm(`button[data-action="stop-job"]`)
	b.waitText("stopped again", "Purge")
	b.confirm(`button[data-action="purge-job"]`)
	b.waitText("purged", "Job run purged.")
	poll(t, "run purged", func() (bool, string) {
		_, _, err := c.Jobs().Info("run", nil)
		return err != nil && strings.Contains(err.Error(), "404"), fmt.Sprint(err)
	})
	b.checkNoErrors("stop/start/purge")

	// Force a periodic launch; dispatch a parameterized job.
	b.visit(base, "/ui/jobs/nightly@default", "Force launch")
	b.confirm(`button[data-action="force-launch"]`)
	b.waitText("launched", "Launched a child of nightly")
	poll(t, "a child of nightly", func() (bool, string) {
		jobs, _, err := c.Jobs().PrefixList("nightly/periodic-")
		return err == nil && len(jobs) == 1, fmt.Sprint(err)
	})
	b.visit(base, "/ui/jobs/param@default/dispatch", "meta who (required)")
	b.fill(`input[name="meta.who"]`, "operator")
	b.fill(`textarea[name="payload"]`, "hello payload")
	b.click(`form[data-action="dispatch"] button[type=submit]`)
	b.waitText("dispatched", "Dispatched param/dispatch-")
	poll(t, "a dispatched child with meta and payload", func() (bool, string) {
		jobs, _, err := c.Jobs().PrefixList("param/dispatch-")
		if err != nil || len(jobs) != 1 {
			return false, fmt.Sprint(jobs, err)
		}
		j, _, err := c.Jobs().Info(jobs[0].ID, nil)
		return err == nil && j.Meta["who"] == "operator" && string(j.Payload) == "hello payload", fmt.Sprint(err)
	})
	b.checkNoErrors("force/dispatch")

	// Promote a canary; fail another deployment.
	dep := canaryJob(t, c, "canary")
	b.visit(base, "/ui/jobs/canary@default", "requires manual promotion")
	b.click(`button[data-action="promote"]`)
	b.waitText("promoted", "Canaries promoted.")
	poll(t, "canary promoted", func() (bool, string) {
		d, _, err := c.Deployments().Info(dep.ID, nil)
		return err == nil && d.TaskGroups["web"].Promoted, fmt.Sprint(err)
	})
	checkDeploymentChain(t, b, cl, dep)
	dep2 := canaryJob(t, c, "canary2")
	b.visit(base, "/ui/jobs/canary2@default/deployments", "requires manual promotion")
	b.confirm(`button[data-action="fail-deployment"]`)
	b.waitText("failed", "Deployment marked failed.")
	poll(t, "canary2 deployment failed", func() (bool, string) {
		d, _, err := c.Deployments().Info(dep2.ID, nil)
		return err == nil && d.Status == "failed", fmt.Sprint(d.Status, err)
	})
	b.checkNoErrors("deployments")

	// Allocation and task lifecycle on the raw_exec job.
	sh := cl.shell.ID
	b.visit(base, "/ui/allocations/"+sh+"/sh", "Task sh", "running")
	b.run("pick SIGHUP", chromedp.SetValue(`#sig-sh`, "SIGHUP", chromedp.ByQuery))
	b.click(`form[data-action="signal"] button[type=submit]`)
	b.waitText("signalled", "Sent SIGHUP to sh.")
	poll(t, "a Signaling event", func() (bool, string) {
		ev := taskEvents(t, c, sh, "sh")
		return hasEvent(ev, "Signaling"), fmt.Sprint(ev)
	})
	b.confirm(`button[data-action="restart-task"]`)
	b.waitText("task restarted", "Task sh restarted.")
	poll(t, "a Restart Signal event", func() (bool, string) {
		ev := taskEvents(t, c, sh, "sh")
		return hasEvent(ev, "Restart Signal"), fmt.Sprint(ev)
	})

	// Exec: type a command in the terminal and read its output.
	poll(t, "sh running again", func() (bool, string) {
		a, _, err := c.Allocations().Info(sh, nil)
		return err == nil && a.TaskStates["sh"].State == "running" && len(a.TaskStates["sh"].Events) > 0 &&
			a.TaskStates["sh"].Events[len(a.TaskStates["sh"].Events)-1].Type == "Started", ""
	})
	b.visit(base, "/ui/exec/shell@default", "Connect")
	b.click(`form[data-action="connect"] button[type=submit]`)
	b.run("terminal", chromedp.WaitVisible(`#term .xterm-helper-textarea`, chromedp.ByQuery))
	b.run("type", chromedp.SendKeys(`#term .xterm-helper-textarea`, "echo exec-$((40+2))"+kb.Enter, chromedp.ByQuery))
	testutil.WaitFor(t, 20*time.Second, "the command's output in the terminal", func() (bool, string) {
		var out string
		b.run("transcript", chromedp.Text("#transcript", &out, chromedp.ByQuery))
		return strings.Contains(out, "exec-42"), out
	})
	b.screenshot("/ui/exec/shell@default (connected)")
	b.checkNoErrors("exec")

	restarts := func() uint64 {
		a, _, err := c.Allocations().Info(sh, nil)
		if err != nil || a.TaskStates["sh"] == nil {
			return 0
		}
		return a.TaskStates["sh"].Restarts
	}
	before := restarts()
	b.visit(base, "/ui/allocations/"+sh, "Allocation")
	b.confirm(`button[data-action="restart-alloc"]`)
	b.waitText("alloc restarted", "All tasks restarted.")
	poll(t, "one more restart", func() (bool, string) { n := restarts(); return n > before, fmt.Sprint(before, " then ", n) })
	b.confirm(`button[data-action="stop-alloc"]`)
	b.waitText("alloc stopped", "Allocation stopped")
	poll(t, "alloc stopped", func() (bool, string) {
		a, _, err := c.Allocations().Info(sh, nil)
		return err == nil && a.DesiredStatus == "stop", ""
	})
	b.checkNoErrors("alloc lifecycle")

	// Variables: create, edit, delete.
	b.visit(base, "/ui/variables/new", "Create variable")
	b.fill("#f-path", "ui/made")
	b.fill("#f-items", "a=1\nb=two")
	b.click(`form[data-action="save"] button[type=submit]`)
	b.waitText("variable saved", "Variable ui/made saved.", "two")
	poll(t, "ui/made written", func() (bool, string) {
		v, _, err := c.Variables().Read("ui/made", nil)
		return err == nil && v.Items["a"] == "1" && v.Items["b"] == "two", fmt.Sprint(err)
	})
	b.visit(base, "/ui/variables/var/ui/made@default/edit", "Edit variable ui/made")
	b.fill("#f-items", "a=2")
	b.click(`form[data-action="save"] button[type=submit]`)
	b.waitText("variable edited", "Variable ui/made saved.")
	poll(t, "ui/made edited", func() (bool, string) {
		v, _, err := c.Variables().Read("ui/made", nil)
		return err == nil && v.Items["a"] == "2" && len(v.Items) == 1, fmt.Sprint(err)
	})
	b.visit(base, "/ui/variables/var/ui/made@default", "Items")
	b.confirm(`button[data-action="delete"]`)
	b.waitText("variable deleted", "Variable ui/made deleted.")
	poll(t, "ui/made deleted", func() (bool, string) {
		_, _, err := c.Variables().Read("ui/made", nil)
		return err != nil, fmt.Sprint(err)
	})
	b.checkNoErrors("variables")

	// Drain (deadline, ignore system jobs) with its progress, stop it,
	// and mark the client eligible again.
	node := cl.node.ID
	b.visit(base, "/ui/clients/"+node, "Drain")
	b.fill("#f-deadline", "1h")
	b.click("#f-ignoreSystem")
	b.click(`form[data-action="drain"] button[type=submit]`)
	b.waitText("draining", "Drain started.", "Draining", "ignoring system jobs", "allocations left to migrate")
	poll(t, "drain set", func() (bool, string) {
		n, _, err := c.Nodes().Info(node, nil)
		return err == nil && n.DrainStrategy != nil && n.DrainStrategy.IgnoreSystemJobs && n.DrainStrategy.Deadline == time.Hour, fmt.Sprint(err)
	})
	b.screenshot("/ui/clients/ID (draining)")
	b.click(`button[data-action="stop-drain"]`)
	b.waitText("drain stopped", "Drain stopped")
	poll(t, "drain off", func() (bool, string) {
		n, _, err := c.Nodes().Info(node, nil)
		return err == nil && n.DrainStrategy == nil, ""
	})
	b.click(`button[data-action="eligibility"][data-to="eligible"]`)
	b.waitText("eligible", "Client marked eligible.")
	poll(t, "eligible", func() (bool, string) {
		n, _, err := c.Nodes().Info(node, nil)
		return err == nil && n.SchedulingEligibility == "eligible", ""
	})
	b.click(`button[data-action="eligibility"][data-to="ineligible"]`)
	b.waitText("ineligible", "Client marked ineligible.")
	poll(t, "ineligible", func() (bool, string) {
		n, _, err := c.Nodes().Info(node, nil)
		return err == nil && n.SchedulingEligibility == "ineligible", ""
	})
	b.checkNoErrors("drain")
}

// checkDeploymentChain opens the eval page of one of dep's
// deployment-watcher evals: the graph holds the watcher evals of dep
// only (grouped by deployment ID, not job version) and the register
// eval that wrote the version dep rolls out.
func checkDeploymentChain(t *testing.T, b *browser, cl *cluster, dep *api.Deployment) {
	t.Helper()
	var watcher, reg *api.Evaluation
	poll(t, "a watcher eval of the deployment and its register eval", func() (bool, string) {
		evals, _, err := cl.c.Jobs().Evaluations(dep.JobID, nil)
		watcher, reg = nil, nil
		for _, e := range evals {
			if e.TriggeredBy == "deployment-watcher" && e.DeploymentID == dep.ID {
				watcher = e
			}
			if e.TriggeredBy == "job-register" && e.JobModifyIndex == dep.JobModifyIndex {
				reg = e
			}
		}
		return err == nil && watcher != nil && reg != nil, fmt.Sprint(err)
	})
	b.visit(cl.base, "/ui/evaluations/"+watcher.ID, "Chain", "Deployments in the chain", dep.ID[:8])
	var nodes []map[string]string
	b.run("graph nodes", chromedp.Evaluate(`[...document.querySelectorAll('svg.chain g.eval-node[data-eval]')].map(g => ({id: g.dataset.eval, trigger: g.dataset.trigger, deployment: g.dataset.deployment}))`, &nodes))
	sawRegister := false
	for _, n := range nodes {
		if n["trigger"] == "deployment-watcher" && n["deployment"] != dep.ID {
			t.Errorf("graph of deployment %s holds watcher eval %s of deployment %s", dep.ID, n["id"], n["deployment"])
		}
		sawRegister = sawRegister || n["id"] == reg.ID
	}
	if !sawRegister {
		t.Errorf("graph %v leaves out the register eval %s of version %d", nodes, reg.ID, dep.JobVersion)
	}
	var edges []string
	b.run("edges", chromedp.Evaluate(`[...document.querySelectorAll('svg.chain path.edge')].map(p => p.dataset.kinds)`, &edges))
	if len(nodes) > 1 && !strings.Contains(strings.Join(edges, " "), "deployment") {
		t.Errorf("no deployment link among %v", edges)
	}
}
