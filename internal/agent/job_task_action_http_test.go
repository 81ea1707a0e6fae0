package agent

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
)

// actionJob is shellJob with two task actions.
func actionJob(id string) *api.Job {
	job := shellJob(id, "sleep 300")
	job.TaskGroups[0].Tasks[0].Actions = []*api.Action{
		{Name: "hello", Command: "/bin/sh", Args: []string{"-c", "echo hello from $NOMAD_TASK_NAME; echo warn >&2; exit 4"}},
		{Name: "whoami", Command: "id", Args: []string{"-u"}},
	}
	return job
}

// runAction runs an action through the official client and returns its
// stdout, stderr and exit code. The command passed is a decoy: the
// action's own command must replace it.
func runAction(t *testing.T, c *api.Client, alloc *api.Allocation, job, action string) (string, string, int, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code, err := c.Jobs().ActionExec(ctx, alloc, job, "t", false, []string{"/bin/echo", "decoy"}, action,
		strings.NewReader(""), &stdout, &stderr, nil, nil)
	return stdout.String(), stderr.String(), code, err
}

// listActions reads GET /v1/job/:id/actions (the official client of this
// version has no wrapper for it).
func listActions(c *api.Client, job string) ([]*jobActionStub, error) {
	var out []*jobActionStub
	_, err := c.Raw().Query("/v1/job/"+job+"/actions", &out, nil)
	return out, err
}

func TestJobAction_ListAndRun(t *testing.T) {
	_, c := clientTestAgent(t)
	alloc := runJob(t, c, actionJob("acts"))

	list, err := listActions(c, "acts")
	if err != nil {
		t.Fatal(err)
	}
	want := []*jobActionStub{
		{Name: "hello", Command: "/bin/sh", Args: []string{"-c", "echo hello from $NOMAD_TASK_NAME; echo warn >&2; exit 4"}, TaskName: "t", TaskGroupName: "g"},
		{Name: "whoami", Command: "id", Args: []string{"-u"}, TaskName: "t", TaskGroupName: "g"},
	}
	if !reflect.DeepEqual(list, want) {
		t.Fatalf("actions %+v, want %+v", list, want)
	}

	stdout, stderr, code, err := runAction(t, c, alloc, "acts", "hello")
	if err != nil || code != 4 || stdout != "hello from t\n" || stderr != "warn\n" {
		t.Fatalf("action hello: code %d err %v stdout %q stderr %q, want 4, hello from t, warn", code, err, stdout, stderr)
	}

	for _, tc := range []struct{ name, job, action, want string }{
		{"unknown action", "acts", "nope", "404"},
		{"other job", "other", "hello", "400"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := runAction(t, c, alloc, tc.job, tc.action)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want a %s", err, tc.want)
			}
		})
	}
	if _, err := listActions(c, "nope"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("actions of an unknown job: %v, want 404", err)
	}
}

// TestJobAction_ForwardedToClientOnlyNode: the alloc runs on a client-only
// agent, which cannot resolve actions (no server); the official client
// falls back to the server agent, which resolves the action and forwards
// the exec to the node.
func TestJobAction_ForwardedToClientOnlyNode(t *testing.T) {
	first, c := clientTestAgent(t)
	second := clientOnlyAgent(t, first.RPCAddr())
	job := actionJob("fwdacts")
	job.Constrain(api.NewConstraint("${node.unique.id}", "=", second.Client().NodeID()))
	alloc := runJob(t, c, job)

	stdout, _, code, err := runAction(t, c, alloc, "fwdacts", "hello")
	if err != nil || code != 4 || stdout != "hello from t\n" {
		t.Fatalf("forwarded action: code %d err %v stdout %q", code, err, stdout)
	}
}

// TestJobAction_ACL: running an action needs alloc-exec, listing read-job.
func TestJobAction_ACL(t *testing.T) {
	a, c := testAgent(t, func(cfg *config.Config) {
		cfg.Client.Enabled = true
		cfg.DataDir = t.TempDir()
		cfg.Server.EnabledSchedulers = nil
		cfg.ACL.Enabled = true
	})
	root, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetSecretID(root.SecretID)
	alloc := runJob(t, c, actionJob("aclacts"))

	clients := map[string]*api.Client{}
	for name, rules := range map[string]string{
		"exec": `namespace "default" { capabilities = ["alloc-exec"] }`,
		"read": `namespace "default" { policy = "read" }`,
	} {
		if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: name, Rules: rules}, nil); err != nil {
			t.Fatal(err)
		}
		tok, _, err := c.ACLTokens().Create(&api.ACLToken{Type: "client", Policies: []string{name}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		tc, err := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr(), SecretID: tok.SecretID})
		if err != nil {
			t.Fatal(err)
		}
		clients[name] = tc
	}

	if stdout, _, code, err := runAction(t, clients["exec"], alloc, "aclacts", "hello"); err != nil || code != 4 || stdout != "hello from t\n" {
		t.Fatalf("action with alloc-exec: code %d err %v stdout %q", code, err, stdout)
	}
	if _, _, _, err := runAction(t, clients["read"], alloc, "aclacts", "hello"); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("action with read only: %v, want 403", err)
	}
	if list, err := listActions(clients["read"], "aclacts"); err != nil || len(list) != 2 {
		t.Fatalf("list with read-job: %v %v", list, err)
	}
	if _, err := listActions(clients["exec"], "aclacts"); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("list with alloc-exec only: %v, want 403", err)
	}
}

// TestJobAction_RegisterValidates: a bad action is a 400 naming the field.
func TestJobAction_RegisterValidates(t *testing.T) {
	_, c := testAgent(t, nil)
	for _, tc := range []struct {
		name    string
		actions []*api.Action
		want    string
	}{
		{"no command", []*api.Action{{Name: "a"}}, "TaskGroups[0].Tasks[0].Actions[0].Command"},
		{"duplicate", []*api.Action{{Name: "a", Command: "id"}, {Name: "a", Command: "id"}}, "TaskGroups[0].Tasks[0].Actions[1].Name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := shellJob("badacts", "sleep 1")
			job.TaskGroups[0].Tasks[0].Actions = tc.actions
			_, _, err := c.Jobs().Register(job, nil)
			if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("register: %v, want a 400 naming %s", err, tc.want)
			}
		})
	}
}
