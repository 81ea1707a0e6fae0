package e2e

import (
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// catFile reads a file of an alloc through the client FS API.
func catFile(t *testing.T, c *api.Client, a *api.Allocation, path string) string {
	t.Helper()
	r, err := c.AllocFS().Cat(a, path, nil)
	if err != nil {
		return "error: " + err.Error()
	}
	defer r.Close()
	b, _ := io.ReadAll(r)
	return string(b)
}

// A consumer's templates follow the service catalog and a variable: the
// backends file lists both web replicas and drops one that stops; a change
// of the variable re-renders its file and restarts the task
// (change_mode = "restart"). The task reads the variable with its own
// workload identity, which it also gets as NOMAD_TOKEN and a secrets file.
func TestTemplatesFollowServicesAndVariables(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 (the test's HTTP server) not found")
	}
	_, c := startServer(t, nil)
	register(t, c, httpServiceJob("web", 2))
	webAllocs := runningAllocs(t, c, "web", 2)
	waitFor(t, 20*time.Second, "two web registrations", func() (bool, string) {
		regs, _ := webRegistrations(t, c, nil)
		return len(regs) == 2, fmt.Sprint(len(regs))
	})
	if _, _, err := c.Variables().Create(&api.Variable{Path: "nomad/jobs/consumer", Items: api.VariableItems{"greeting": "hello"}}, nil); err != nil {
		t.Fatal(err)
	}

	task := shellTask("raw_exec", `echo "greeting=$(cat "$NOMAD_TASK_DIR/greeting.txt")"; `+
		`[ -n "$NOMAD_TOKEN" ] && echo token-env; [ -s "$NOMAD_SECRETS_DIR/nomad_token" ] && echo token-file; exec sleep 1000`)
	task.Identity = &api.WorkloadIdentity{Env: true, File: true}
	task.Templates = []*api.Template{
		{DestPath: pointer("local/backends.txt"), ChangeMode: pointer("noop"),
			EmbeddedTmpl: pointer(`{{ range nomadService "web" }}{{ .Address }}:{{ .Port }} {{ .AllocID }}` + "\n" + `{{ end }}`)},
		{DestPath: pointer("local/greeting.txt"), ChangeMode: pointer("restart"),
			EmbeddedTmpl: pointer(`{{ with nomadVar "nomad/jobs/consumer" }}{{ .greeting }}{{ end }}`)},
	}
	register(t, c, serviceJob("consumer", 1, task))
	consumer := runningAllocs(t, c, "consumer", 1)[0]

	out := waitLogs(t, c, consumer, func(s string) bool { return strings.Contains(s, "token-file") })
	if !strings.Contains(out, "greeting=hello") || !strings.Contains(out, "token-env") {
		t.Fatalf("consumer output %q: want the variable's value and its identity in env and file", out)
	}
	waitFor(t, 20*time.Second, "both backends in the template", func() (bool, string) {
		got := catFile(t, c, consumer, "t/local/backends.txt")
		return strings.Count(got, "\n") == 2 && strings.Contains(got, webAllocs[0].ID) && strings.Contains(got, webAllocs[1].ID), got
	})

	// One backend stops: the template drops it, and the task keeps running
	// (noop).
	if _, err := c.Allocations().Stop(webAllocs[0], nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the stopped backend gone from the template", func() (bool, string) {
		got := catFile(t, c, consumer, "t/local/backends.txt")
		return !strings.Contains(got, webAllocs[0].ID) && strings.Contains(got, webAllocs[1].ID), got
	})

	// The variable changes: the file re-renders and the task restarts with it.
	v, _, err := c.Variables().Read("nomad/jobs/consumer", nil)
	if err != nil {
		t.Fatal(err)
	}
	v.Items["greeting"] = "bonjour"
	if _, _, err := c.Variables().Update(v, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the task restarted with the new value", func() (bool, string) {
		a, _, err := c.Allocations().Info(consumer.ID, nil)
		if err != nil {
			return false, err.Error()
		}
		ts := a.TaskStates["t"]
		logs := readLogs(t, c, a, "t", "stdout")
		return ts != nil && ts.Restarts >= 1 && strings.Contains(logs, "greeting=bonjour"), fmt.Sprintf("restarts %v, logs %q", ts.Restarts, logs)
	})
	if got := catFile(t, c, consumer, "t/local/greeting.txt"); got != "bonjour" {
		t.Fatalf("greeting.txt = %q", got)
	}
}

// change_mode = "script" runs its change_script inside the task: in an
// exec task it sees the task's chroot (/local is the task's local dir)
// and its PID namespace; the task itself keeps running.
func TestTemplateChangeScriptRunsInsideTheTask(t *testing.T) {
	t.Parallel()
	requireIsolation(t)
	_, c := startServer(t, nil)
	if _, _, err := c.Variables().Create(&api.Variable{Path: "nomad/jobs/reloader", Items: api.VariableItems{"v": "one"}}, nil); err != nil {
		t.Fatal(err)
	}
	task := shellTask("exec", `exec sleep 1000`)
	task.Templates = []*api.Template{{
		DestPath: pointer("local/v.txt"), ChangeMode: pointer("script"),
		EmbeddedTmpl: pointer(`{{ with nomadVar "nomad/jobs/reloader" }}{{ .v }}{{ end }}`),
		Wait:         &api.WaitConfig{Min: pointer(500 * time.Millisecond), Max: pointer(2 * time.Second)},
		ChangeScript: &api.ChangeScript{Command: pointer("/bin/sh"), Timeout: pointer(10 * time.Second),
			Args: []string{"-c", `echo "reloaded $(cat /local/v.txt) pids $(ls /proc | grep -c '^[0-9]*$')" > /local/reloaded.txt`}},
	}}
	register(t, c, serviceJob("reloader", 1, task))
	alloc := runningAllocs(t, c, "reloader", 1)[0]

	v, _, err := c.Variables().Read("nomad/jobs/reloader", nil)
	if err != nil {
		t.Fatal(err)
	}
	v.Items["v"] = "two"
	if _, _, err := c.Variables().Update(v, nil); err != nil {
		t.Fatal(err)
	}
	var got string
	waitFor(t, 30*time.Second, "the change script's file in the task dir", func() (bool, string) {
		got = catFile(t, c, alloc, "t/local/reloaded.txt")
		return strings.HasPrefix(got, "reloaded two pids "), got
	})
	var pids int
	if _, err := fmt.Sscanf(strings.TrimPrefix(got, "reloaded two pids "), "%d", &pids); err != nil || pids > 10 {
		t.Fatalf("the script saw %d processes (%q): not the task's PID namespace", pids, got)
	}
	a, _, err := c.Allocations().Info(alloc.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ts := a.TaskStates["t"]; ts == nil || ts.Restarts != 0 || ts.State != "running" {
		t.Fatalf("the task did not keep running: %+v", ts)
	}
}
