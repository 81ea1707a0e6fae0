package ui_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// cluster is one agent with the jobs the page and action tests look at.
type cluster struct {
	c     *api.Client
	base  string
	node  *api.NodeListStub
	web   *api.AllocationListStub // a running alloc of web
	shell *api.AllocationListStub // a running raw_exec alloc of shell
}

func shellJob(id, script string) *api.Job {
	job := api.NewServiceJob(id, id, "global", 50)
	job.Datacenters = []string{"*"}
	task := api.NewTask("sh", "raw_exec")
	task.Config = map[string]any{"command": "/bin/sh", "args": []any{"-c", script}}
	task.Require(&api.Resources{CPU: ptr(50), MemoryMB: ptr(32)})
	task.KillTimeout = ptr(time.Second)
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	return job
}

func register(t *testing.T, c *api.Client, job *api.Job) {
	t.Helper()
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatalf("register %s: %v", *job.ID, err)
	}
}

// startCluster starts the agent and registers: web (2 allocs, 2
// versions), run (a job named like the run page), huge (cannot be
// placed: more memory than any client), nightly (periodic), param
// (parameterized), sys (system), shell (raw_exec, for exec and signals)
// and a variable.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	a, c := startAgent(t)
	cl := &cluster{c: c, base: "http://" + a.HTTPAddr()}
	web := mockJob("web", 2, "hello from the mock task\n")
	register(t, c, web)
	waitRunning(t, c, "web", 2)
	web.TaskGroups[0].Tasks[0].Env = map[string]string{"MODE": "v2"}
	register(t, c, web)
	register(t, c, mockJob("run", 1, ""))
	huge := mockJob("huge", 1, "")
	huge.TaskGroups[0].Tasks[0].Resources.MemoryMB = ptr(1 << 22)
	register(t, c, huge)
	nightly := mockJob("nightly", 1, "")
	nightly.Type = ptr("batch")
	nightly.Periodic = &api.PeriodicConfig{Spec: ptr("0 0 1 1 *"), ProhibitOverlap: ptr(true)}
	register(t, c, nightly)
	param := mockJob("param", 1, "")
	param.Type = ptr("batch")
	param.ParameterizedJob = &api.ParameterizedJobConfig{MetaRequired: []string{"who"}, Payload: "optional"}
	register(t, c, param)
	sys := mockJob("sys", 1, "")
	sys.Type = ptr("system")
	register(t, c, sys)
	shell := shellJob("shell", "echo shell-started; trap 'echo got-hup' HUP; while true; do sleep 0.2; done")
	shell.TaskGroups[0].Services = []*api.Service{{Name: "shell-svc", Provider: "nomad", Tags: []string{"ui"}}}
	register(t, c, shell)
	if _, _, err := c.Variables().Create(&api.Variable{Path: "app/config", Items: api.VariableItems{"port": "8080"}}, nil); err != nil {
		t.Fatal(err)
	}
	tmpl := &api.Variable{Path: "nomad/job-templates/hello", Items: api.VariableItems{"description": "says hello", "template": "job \"hello\" {\n}\n"}}
	if _, _, err := c.Variables().Create(tmpl, nil); err != nil {
		t.Fatal(err)
	}
	// Version 1's allocs: version 0's are stopped as the update rolls out
	// (on a loaded machine the test could pick one that is about to stop).
	cl.web = waitRunningVersion(t, c, "web", 2, 1)[0]
	cl.shell = waitRunning(t, c, "shell", 1)[0]
	nodes, _, err := c.Nodes().List(nil)
	if err != nil || len(nodes) != 1 {
		t.Fatalf("nodes: %v %v", nodes, err)
	}
	cl.node = nodes[0]
	return cl
}

// TestBrowser_Cluster drives one agent: every page (pages), then every
// action by clicking (actions, in browser_actions_test.go).
func TestBrowser_Cluster(t *testing.T) {
	b := newBrowser(t)
	cl := startCluster(t)
	t.Run("pages", func(t *testing.T) { b.t = t; testPages(t, b, cl) })
	t.Run("actions", func(t *testing.T) { b.t = t; testActions(t, b, cl) })
}

// testPages renders every page at Nomad's URL, with no console error,
// and saves a screenshot of each.
func testPages(t *testing.T, b *browser, cl *cluster) {
	base, c := cl.base, cl.c
	evals, _, err := c.Jobs().Evaluations("web", nil)
	if err != nil || len(evals) == 0 {
		t.Fatalf("evals: %v", err)
	}
	register := evals[0]
	for _, e := range evals {
		if e.TriggeredBy == "job-register" {
			register = e
			break
		}
	}
	members, err := c.Agent().Members()
	if err != nil || len(members.Members) == 0 {
		t.Fatalf("members: %v", err)
	}
	server := members.Members[0].Name
	alloc := cl.web.ID

	b.visit(base, "/ui/jobs", "web", "huge", "nightly", "service", "running", "Page 1")
	// Live: a job registered while the page is open appears without a reload.
	late := mockJob("late-arrival", 1, "")
	if _, _, err := c.Jobs().Register(late, nil); err != nil {
		t.Fatal(err)
	}
	b.waitText("/ui/jobs (live)", "late-arrival")
	var live string
	b.run("live badge", chromedp.Text("#live", &live, chromedp.ByQuery))
	if live != "live" {
		t.Errorf("event stream badge shows %q, want live", live)
	}
	if text := b.visit(base, "/ui/jobs?type=batch", "nightly", "param"); strings.Contains(text, "late-arrival") {
		t.Errorf("type=batch shows a service job:\n%s", text)
	}
	// Search by typing (the server filters: ID contains).
	b.visit(base, "/ui/jobs", "web")
	b.run("type a search", chromedp.SendKeys("#f-search", "ghtl", chromedp.ByQuery))
	testutil.WaitFor(t, 10*time.Second, "search results", func() (bool, string) {
		text := b.text()
		return strings.Contains(text, "nightly") && !strings.Contains(text, "late-arrival"), text
	})
	b.checkNoErrors("search")
	// Paging: 3 a page, the next page brings others, back returns.
	first := b.visit(base, "/ui/jobs?per_page=3", "Page 1", "huge") // sorted by namespace.id: huge, late-arrival, nightly
	b.click(`button[data-page="next"]`)
	second := b.waitText("page 2", "Page 2", "param")
	if strings.Contains(second, "huge") || !strings.Contains(first, "huge") {
		t.Errorf("page 1:\n%s\npage 2:\n%s", first, second)
	}
	b.click(`button[data-page="prev"]`)
	b.waitText("page 1 again", "Page 1", "huge")
	b.visit(base, "/ui/jobs/run", "Run a job", "Job specification")
	b.visit(base, "/ui/jobs/run/templates", "Job templates", "hello")
	b.visit(base, "/ui/jobs/run/templates/hello", "Run a job from template hello", "says hello")
	var spec string
	b.run("template in the editor", chromedp.Value("#f-jobspec", &spec, chromedp.ByQuery))
	if spec != "job \"hello\" {\n}\n" {
		t.Errorf("editor holds %q, want the template", spec)
	}
	b.visit(base, "/ui/jobs/run@default", "Job run", "Task groups")
	b.visit(base, "/ui/jobs/web@default", "Job web", "Task groups", "Recent allocations", "Overview", "Versions")
	b.visit(base, "/ui/jobs/web@default/definition", `"MODE"`, "Edit")
	b.visit(base, "/ui/jobs/web@default/versions", "Version 1", "Version 0", "MODE", "Revert to version 0")
	b.visit(base, "/ui/jobs/web@default/deployments", "Deployment completed successfully", "Cancelled due to newer version")
	b.visit(base, "/ui/jobs/web@default/allocations", "running", cl.node.Name)
	b.visit(base, "/ui/jobs/web@default/evaluations", "job-register", "complete")
	b.visit(base, "/ui/jobs/web@default/services", "declares no service")
	b.visit(base, "/ui/jobs/shell@default/services", "shell-svc", "nomad")
	b.visit(base, "/ui/jobs/shell@default/services/shell-svc", "Service shell-svc", cl.shell.ID[:8])
	b.visit(base, "/ui/allocations/"+cl.shell.ID, "Services", "shell-svc")
	b.visit(base, "/ui/jobs/web@default/web", "Task group web", "Scaling", "Reschedule events")
	b.visit(base, "/ui/jobs/huge@default", "Placement failures", `Task group "web" could not be placed`, "Not enough memory on 1 client",
		"Why not placed", "0 of 1 client fit one more", "memory; the largest free is")
	b.visit(base, "/ui/jobs/huge@default/web", `Task group "web" could not be placed`)
	b.visit(base, "/ui/jobs/nightly@default", "Force launch")
	b.visit(base, "/ui/jobs/param@default/dispatch", "meta who (required)", "Payload")
	b.visit(base, "/ui/jobs/sys@default/clients", cl.node.Name)
	b.visit(base, "/ui/allocations/"+alloc, "Task server", "Started", "hello from the mock task", "Resource use")
	b.waitText("alloc charts", "CPU:", "Memory:")
	b.visit(base, "/ui/allocations/"+alloc+"/server", "Task server", "Restart task")
	b.visit(base, "/ui/allocations/"+alloc+"/server/logs", "hello from the mock task")
	b.visit(base, "/ui/allocations/"+alloc+"/fs", "alloc/", "server/")
	b.visit(base, "/ui/allocations/"+alloc+"/server/fs", "local/")
	b.visit(base, "/ui/exec/shell@default", "Exec into shell", "Connect")
	b.visit(base, "/ui/clients", cl.node.Name, "ready", "eligible")
	b.visit(base, "/ui/clients/"+cl.node.ID, "Drivers", "mock", "Allocations", "web", "Drain", "CPU:", "Memory:")
	b.visit(base, "/ui/clients/"+cl.node.ID+"/monitor", "Monitor client")
	b.visit(base, "/ui/servers", "Leader", "voter", "Members", "alive")
	b.visit(base, "/ui/servers/"+server, "Server "+server, "Raft role")
	b.visit(base, "/ui/servers/"+server+"/monitor", "Monitor server")
	b.visit(base, "/ui/topology", cl.node.Name, "CPU", "Memory", "web/web")
	b.visit(base, "/ui/csi/volumes", "does not implement CSI")
	b.visit(base, "/ui/csi/plugins", "does not implement CSI")
	b.visit(base, "/ui/evaluations", "job-register", "complete", "Not enough memory")
	b.visit(base, "/ui/evaluations?status=blocked", "queued-allocs", "huge")
	var rows string
	b.run("eval rows", chromedp.Text("main table tbody", &rows, chromedp.ByQuery))
	if strings.Contains(rows, "job-register") || strings.Contains(rows, "complete") {
		t.Errorf("status=blocked shows other evals:\n%s", rows)
	}
	for _, search := range []string{"huge", hugeFirst(t, c)[:6]} {
		b.visit(base, "/ui/evaluations?search="+search, "huge")
		b.run("eval rows", chromedp.Text("main table tbody", &rows, chromedp.ByQuery))
		if strings.Contains(rows, "shell") || strings.Contains(rows, "nightly") {
			t.Errorf("search %q shows other jobs' evals:\n%s", search, rows)
		}
	}
	b.visit(base, "/ui/evaluations?per_page=2", "Page 1")
	b.click(`button[data-action="next"]`)
	b.waitText("evals page 2", "Page 2")
	hugeEvals, _, err := c.Jobs().Evaluations("huge", nil)
	if err != nil || len(hugeEvals) == 0 {
		t.Fatalf("evals of huge: %v", err)
	}
	// The chain of a blocked job says, on the graph, why each step blocked.
	b.visit(base, "/ui/evaluations/"+hugeEvals[0].ID, "Placement failures", "Not enough memory", "Why not placed", "memory; the largest free is")
	var why []string
	b.run("why lines", chromedp.Evaluate(`[...document.querySelectorAll('svg.chain text.why')].map(t => t.textContent)`, &why))
	if len(why) == 0 || !strings.Contains(strings.Join(why, " "), "blocked web: ") {
		t.Errorf("the graph says nothing of why huge's evals blocked: %q", why)
	}
	b.visit(base, "/ui/evaluations/"+register.ID, "Chain", "job endpoint (register)", "Timelines", "scheduling")
	b.visit(base, "/ui/variables", "app/")
	b.visit(base, "/ui/variables/path/app", "config")
	b.visit(base, "/ui/variables/var/app/config@default", "Items", "port", "8080", "Not locked")
	b.visit(base, "/ui/variables/var/app/config@default/edit", "Edit variable app/config")
	b.visit(base, "/ui/variables/new", "Create variable")
	b.visit(base, "/ui/node-pools", "default", "all")
	b.visit(base, "/ui/node-pools/default", cl.node.Name, "web")
	b.visit(base, "/ui/administration", "ACLs are disabled")
	b.visit(base, "/ui/administration/namespaces", "default")
	b.visit(base, "/ui/administration/namespaces/default", "Namespace default")
	b.visit(base, "/ui/settings/tokens", "ACLs are disabled")
	b.visit(base, "/ui/settings/user-settings", "Wrap long log lines")
	b.visit(base, "/ui/no-such-page", "Not found", "No page at /ui/no-such-page.")
	b.visit(base, "/ui/jobs/web@default/no-such-group", "Not found", `has no task group "no-such-group"`)
	b.mu.Lock()
	b.allow404 = true // the page asks for the job; the API's 404 is the point
	b.mu.Unlock()
	b.visit(base, "/ui/jobs/no-such-job@default", "Not found", "no-such-job")
	b.mu.Lock()
	b.allow404 = false
	b.mu.Unlock()

	// Navigation by link stays in the page (no reload) and lands.
	b.run("jobs", chromedp.Navigate(base+"/ui/jobs"))
	b.waitText("/ui/jobs", "late-arrival")
	b.click(`a[href="/ui/jobs/late-arrival@default"]`)
	b.waitText("job page via link", "Job late-arrival")
	b.checkNoErrors("link navigation")
}

// hugeFirst is the ID of an eval of huge.
func hugeFirst(t *testing.T, c *api.Client) string {
	evals, _, err := c.Jobs().Evaluations("huge", nil)
	if err != nil || len(evals) == 0 {
		t.Fatalf("evals of huge: %v", err)
	}
	return evals[0].ID
}
