package agent

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
)

// identityAgent is a dev agent (server and client, raw_exec) with ACLs on,
// bootstrapped; the client holds the management token.
func identityAgent(t *testing.T) (*Agent, *api.Client) {
	t.Helper()
	a, c := testAgent(t, func(cfg *config.Config) {
		cfg.Client.Enabled = true
		cfg.DataDir = testutil.DataDir(t)
		cfg.Server.EnabledSchedulers = nil
		cfg.ACL.Enabled = true
	})
	root, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetSecretID(root.SecretID)
	return a, c
}

// taskIdentity runs job id whose task t writes its NOMAD_TOKEN to
// local/token, and returns the token as the task sees it.
func taskIdentity(t *testing.T, c *api.Client, id string) string {
	t.Helper()
	job := shellJob(id, `printf %s "$NOMAD_TOKEN" > local/token; exec sleep 600`)
	job.TaskGroups[0].Tasks[0].Identity = &api.WorkloadIdentity{Env: true}
	alloc := runJob(t, c, job)
	var token string
	testutil.WaitFor(t, 10*time.Second, "the task's token in local/token", func() (bool, string) {
		var err error
		token, err = catAllocFile(c, alloc, "t/local/token")
		return strings.Count(token, ".") == 2, fmt.Sprintf("token %q %v", token, err)
	})
	return token
}

// With ACLs on, a task's own NOMAD_TOKEN (its workload identity) reads and
// lists its job's variables over HTTP with the official client, as Nomad's
// implicit policy allows, and gets 403 for another job's variables, for
// any write, and for everything once its allocation has stopped.
func TestVariables_TaskIdentityReadsItsJobsVariablesWithACLs(t *testing.T) {
	a, c := identityAgent(t)
	for _, path := range []string{"nomad/jobs/idweb", "nomad/jobs/idweb/g/t", "nomad/jobs/other", "app/config"} {
		if _, _, err := c.Variables().Create(&api.Variable{Path: path, Items: api.VariableItems{"k": path}}, nil); err != nil {
			t.Fatalf("create %s: %v", path, err)
		}
	}
	token := taskIdentity(t, c, "idweb")
	task := withToken(t, a, token)

	for _, path := range []string{"nomad/jobs/idweb", "nomad/jobs/idweb/g/t"} {
		v, _, err := task.Variables().Read(path, nil)
		if err != nil || v.Items["k"] != path {
			t.Fatalf("the task reading %s: %v %+v", path, err, v)
		}
	}
	list, _, err := task.Variables().List(nil)
	if err != nil {
		t.Fatalf("the task listing: %v", err)
	}
	var paths []string
	for _, v := range list {
		paths = append(paths, v.Path)
	}
	if strings.Join(paths, ",") != "nomad/jobs/idweb,nomad/jobs/idweb/g/t" {
		t.Fatalf("the task lists %v, want its job's variables only", paths)
	}
	for _, path := range []string{"nomad/jobs/other", "app/config"} {
		_, _, err := task.Variables().Read(path, nil)
		wantHTTPError(t, err, "403", "Permission denied")
	}
	_, _, err = task.Variables().Create(&api.Variable{Path: "nomad/jobs/idweb", Items: api.VariableItems{"k": "x"}}, nil)
	wantHTTPError(t, err, "403", "Permission denied")

	// Once its allocation is stopped, the token reads nothing (Nomad treats
	// a terminal allocation's claims as expired).
	if _, _, err := c.Jobs().Deregister("idweb", false, nil); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "the stopped alloc's token refused", func() (bool, string) {
		_, _, err := task.Variables().Read("nomad/jobs/idweb", nil)
		return err != nil && strings.Contains(err.Error(), "403") && strings.Contains(err.Error(), "terminal"), fmt.Sprint(err)
	})
}

// A namespace's policy grants no variable: Nomad gives variables only
// through a variables { path } block. A token with namespace read or
// write reads, lists, writes and deletes no variable; path rules grant
// exactly their capabilities (read implies list, delete needs destroy).
func TestVariables_NamespacePolicyGrantsNoVariables(t *testing.T) {
	a, c, _ := aclAgent(t)
	for _, path := range []string{"app/config", "app/db", "logs/x"} {
		if _, _, err := c.Variables().Create(&api.Variable{Path: path, Items: api.VariableItems{"k": "v"}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	clients := map[string]*api.Client{}
	for name, rules := range map[string]string{
		"ns-read":  `namespace "default" { policy = "read" }`,
		"ns-write": `namespace "*" { policy = "write" }`,
		"app-read": `namespace "default" {
  variables {
    path "app/*" { capabilities = ["read"] }
  }
}`,
		"app-write": `namespace "default" {
  variables {
    path "app/*" { capabilities = ["write"] }
  }
}`,
		"logs-list": `namespace "default" {
  variables {
    path "logs/*" { capabilities = ["list"] }
  }
}`,
	} {
		if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: name, Rules: rules}, nil); err != nil {
			t.Fatal(err)
		}
		tok, _, err := c.ACLTokens().Create(&api.ACLToken{Type: "client", Policies: []string{name}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		clients[name] = withToken(t, a, tok.SecretID)
	}
	listed := func(name string) string {
		list, _, err := clients[name].Variables().List(nil)
		if err != nil {
			t.Fatalf("%s lists: %v", name, err)
		}
		var paths []string
		for _, v := range list {
			paths = append(paths, v.Path)
		}
		return strings.Join(paths, ",")
	}
	for _, name := range []string{"ns-read", "ns-write"} {
		_, _, err := clients[name].Variables().Read("app/config", nil)
		wantHTTPError(t, err, "403", "Permission denied")
		if got := listed(name); got != "" {
			t.Fatalf("%s lists %q, want nothing", name, got)
		}
		_, _, err = clients[name].Variables().Create(&api.Variable{Path: "app/new", Items: api.VariableItems{"k": "v"}}, nil)
		wantHTTPError(t, err, "403", "Permission denied")
		_, err = clients[name].Variables().Delete("app/db", nil)
		wantHTTPError(t, err, "403", "Permission denied")
	}

	if v, _, err := clients["app-read"].Variables().Read("app/config", nil); err != nil || v.Items["k"] != "v" {
		t.Fatalf("app-read reads app/config: %v %+v", err, v)
	}
	if got := listed("app-read"); got != "app/config,app/db" {
		t.Fatalf("app-read lists %q, want app/config,app/db (read implies list)", got)
	}
	_, _, err := clients["app-read"].Variables().Read("logs/x", nil)
	wantHTTPError(t, err, "403", "Permission denied")

	if got := listed("logs-list"); got != "logs/x" {
		t.Fatalf("logs-list lists %q, want logs/x", got)
	}
	_, _, err = clients["logs-list"].Variables().Read("logs/x", nil)
	wantHTTPError(t, err, "403", "Permission denied")

	if _, _, err := clients["app-write"].Variables().Create(&api.Variable{Path: "app/new", Items: api.VariableItems{"k": "v"}}, nil); err != nil {
		t.Fatalf("app-write writes app/new: %v", err)
	}
	_, err = clients["app-write"].Variables().Delete("app/new", nil)
	wantHTTPError(t, err, "403", "Permission denied")
}

// With ACLs off Nomad allows every request, a task's identity included: a
// template reads a variable outside nomad/jobs/<job>, and the task's own
// token reads and writes any variable over HTTP.
func TestVariables_ACLsOffIdentityReadsAnyVariable(t *testing.T) {
	a, c := clientTestAgent(t)
	if _, _, err := c.Variables().Create(&api.Variable{Path: "app/config", Items: api.VariableItems{"k": "shared"}}, nil); err != nil {
		t.Fatal(err)
	}
	job := shellJob("cons", `printf %s "$NOMAD_TOKEN" > local/token; exec sleep 600`)
	task := job.TaskGroups[0].Tasks[0]
	task.Identity = &api.WorkloadIdentity{Env: true}
	task.Templates = []*api.Template{{DestPath: pointer("local/config.txt"), ChangeMode: pointer("noop"),
		EmbeddedTmpl: pointer(`{{ with nomadVar "app/config" }}{{ .k }}{{ end }}`)}}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	var alloc *api.Allocation
	testutil.WaitFor(t, 20*time.Second, "the template rendering app/config", func() (bool, string) {
		stubs, _, err := c.Jobs().Allocations("cons", false, nil)
		if err != nil || len(stubs) == 0 {
			return false, "no alloc"
		}
		if alloc, _, err = c.Allocations().Info(stubs[0].ID, nil); err != nil {
			return false, err.Error()
		}
		got, err := catAllocFile(c, alloc, "t/local/config.txt")
		return got == "shared", fmt.Sprintf("%q %v; %s", got, err, allocProgress(stubs))
	})
	var token string
	testutil.WaitFor(t, 10*time.Second, "the task's token in local/token", func() (bool, string) {
		var err error
		token, err = catAllocFile(c, alloc, "t/local/token")
		return strings.Count(token, ".") == 2, fmt.Sprintf("token %q %v", token, err)
	})
	task2 := withToken(t, a, token)
	if v, _, err := task2.Variables().Read("app/config", nil); err != nil || v.Items["k"] != "shared" {
		t.Fatalf("the task's token reading app/config: %v %+v", err, v)
	}
	if _, _, err := task2.Variables().Create(&api.Variable{Path: "app/other", Items: api.VariableItems{"k": "v"}}, nil); err != nil {
		t.Fatalf("the task's token writing app/other: %v", err)
	}
}

// catAllocFile reads a file of an alloc through the client FS API.
func catAllocFile(c *api.Client, alloc *api.Allocation, path string) (string, error) {
	rc, err := c.AllocFS().Cat(alloc, path, nil)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	return string(b), err
}
