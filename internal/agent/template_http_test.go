package agent

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// templateJobHCL is a job file whose template uses Nomad's
// left_delimiter/right_delimiter, sprig and consul-template helpers, and
// asks for an owner (uid/gid of the agent's own user, which every user
// may give).
const templateJobHCL = `
job "tmpl" {
  datacenters = ["dc1"]
  group "g" {
    task "t" {
      driver = "mock"
      config { run_for = "1h" }
      resources {
        cpu    = 20
        memory = 16
      }
      template {
        destination     = "local/out.txt"
        left_delimiter  = "[["
        right_delimiter = "]]"
        uid             = %d
        gid             = %d
        perms           = "0640"
        data            = <<EOT
job=[[ env "NOMAD_JOB_NAME" ]] upper=[[ sprig_upper "x" ]] sum=[[ add 2 3 ]] braces={{ x }}
EOT
      }
    }
  }
}
`

// A job file's template with left_delimiter = "[[" renders through a
// real client with those delimiters (the example rendered
// "job=[[ env ... ]]" verbatim before), gets its uid/gid and perms, and
// the job read back keeps the fields.
func TestTemplate_DelimitersThroughTheClient(t *testing.T) {
	_, c := clientTestAgent(t)
	job, err := c.Jobs().ParseHCL(fmt.Sprintf(templateJobHCL, os.Getuid(), os.Getgid()), false)
	if err != nil {
		t.Fatal(err)
	}
	alloc := runJob(t, c, job)
	var got string
	testutil.WaitFor(t, 20*time.Second, "the template rendered", func() (bool, string) {
		got, err = catAllocFile(c, alloc, "t/local/out.txt")
		return err == nil, fmt.Sprint(err)
	})
	if want := "job=tmpl upper=X sum=5 braces={{ x }}\n"; got != want {
		t.Fatalf("rendered %q, want %q", got, want)
	}
	fi, _, err := c.AllocFS().Stat(alloc, "t/local/out.txt", nil)
	if err != nil || fi.FileMode != "-rw-r-----" {
		t.Fatalf("stat = %+v, %v; want mode -rw-r-----", fi, err)
	}
	stored, _, err := c.Jobs().Info("tmpl", nil)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := stored.TaskGroups[0].Tasks[0].Templates[0]
	if *tmpl.LeftDelim != "[[" || *tmpl.RightDelim != "]]" || tmpl.Uid == nil || *tmpl.Uid != os.Getuid() || tmpl.Gid == nil || *tmpl.Gid != os.Getgid() {
		t.Fatalf("stored template lost fields: %+v", tmpl)
	}
}

// once: a template that reads a variable renders it at the start, and a
// change of the variable re-renders the other template but not the once
// one (nor restarts the task for it).
func TestTemplate_OnceIsNotRerendered(t *testing.T) {
	_, c := clientTestAgent(t)
	if _, _, err := c.Variables().Create(&api.Variable{Path: "nomad/jobs/once", Items: api.VariableItems{"v": "one"}}, nil); err != nil {
		t.Fatal(err)
	}
	job := mockServiceJob("once", 1)
	read := `{{ with nomadVar "nomad/jobs/once" }}{{ .v }}{{ end }}`
	job.TaskGroups[0].Tasks[0].Templates = []*api.Template{
		{DestPath: pointer("local/once.txt"), EmbeddedTmpl: pointer(read), Once: pointer(true), ChangeMode: pointer("restart")},
		{DestPath: pointer("local/live.txt"), EmbeddedTmpl: pointer(read), ChangeMode: pointer("noop")},
	}
	alloc := runJob(t, c, job)
	v, _, err := c.Variables().Read("nomad/jobs/once", nil)
	if err != nil {
		t.Fatal(err)
	}
	v.Items["v"] = "two"
	if _, _, err := c.Variables().Update(v, nil); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 20*time.Second, "the live template re-rendered", func() (bool, string) {
		got, err := catAllocFile(c, alloc, "t/local/live.txt")
		return got == "two", fmt.Sprint(got, err)
	})
	if got, err := catAllocFile(c, alloc, "t/local/once.txt"); got != "one" {
		t.Fatalf("once template = %q, %v; want it left as first rendered", got, err)
	}
	a, _, err := c.Allocations().Info(alloc.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ts := a.TaskStates["t"]; ts == nil || ts.Restarts != 0 {
		t.Fatalf("task state %+v: the once template restarted the task", ts)
	}
}

// change_mode = "signal" with a splay: a re-rendered template sends its
// change_signal to the running task (which traps it) after up to the
// splay, without restarting it, and records a "Template Re-rendered"
// event.
func TestTemplate_ChangeSignalThroughTheClient(t *testing.T) {
	_, c := clientTestAgent(t)
	if _, _, err := c.Variables().Create(&api.Variable{Path: "nomad/jobs/sig", Items: api.VariableItems{"v": "one"}}, nil); err != nil {
		t.Fatal(err)
	}
	job := shellJob("sig", `trap 'echo "got HUP $(cat "$NOMAD_TASK_DIR/v.txt")"' HUP; echo ready; while :; do sleep 0.1; done`)
	job.TaskGroups[0].Tasks[0].Templates = []*api.Template{{
		DestPath: pointer("local/v.txt"), EmbeddedTmpl: pointer(`{{ with nomadVar "nomad/jobs/sig" }}{{ .v }}{{ end }}`),
		ChangeMode: pointer("signal"), ChangeSignal: pointer("SIGHUP"), Splay: pointer(200 * time.Millisecond),
	}}
	alloc := runJob(t, c, job)
	testutil.WaitFor(t, 20*time.Second, "the task ready", func() (bool, string) {
		out := readLogs(t, c, alloc, "stdout", api.OriginStart, 0)
		return strings.Contains(out, "ready"), out
	})
	v, _, err := c.Variables().Read("nomad/jobs/sig", nil)
	if err != nil {
		t.Fatal(err)
	}
	v.Items["v"] = "two"
	if _, _, err := c.Variables().Update(v, nil); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 20*time.Second, "the task signalled with the new file", func() (bool, string) {
		out := readLogs(t, c, alloc, "stdout", api.OriginStart, 0)
		return strings.Contains(out, "got HUP two"), out
	})
	testutil.WaitFor(t, 20*time.Second, "the re-render event reported", func() (bool, string) {
		a, _, err := c.Allocations().Info(alloc.ID, nil)
		if err != nil {
			return false, err.Error()
		}
		return slices.Contains(taskEventTypes(a, "t"), "Template Re-rendered"), fmt.Sprint(taskEventTypes(a, "t"))
	})
	a, _, err := c.Allocations().Info(alloc.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ts := a.TaskStates["t"]; ts == nil || ts.Restarts != 0 {
		t.Fatalf("task state %+v: the signal restarted the task", ts)
	}
}
