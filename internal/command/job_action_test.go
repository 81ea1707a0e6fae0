package command

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// TestJobAction runs a task's action through the CLI, by group and task
// and by allocation, and checks it exits with the action's code.
func TestJobAction(t *testing.T) {
	addr, c := clientAgent(t)
	job, task := sleepingJob("acts")
	task.Actions = []*api.Action{{Name: "hello", Command: "/bin/sh", Args: []string{"-c", "echo hello from $NOMAD_TASK_NAME; exit 3"}}}
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	var allocID string
	testutil.WaitFor(t, 20*time.Second, "a running alloc", func() (bool, string) {
		stubs, _, _ := c.Jobs().Allocations("acts", false, nil)
		if len(stubs) == 0 {
			return false, "none yet"
		}
		allocID = stubs[0].ID
		return stubs[0].ClientStatus == api.AllocClientStatusRunning, stubs[0].ClientStatus
	})

	cases := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{"by group and task", []string{"-job", "acts", "-group", "g", "-task", "t", "hello"}, 3, "hello from t\n", ""},
		{"only the job", []string{"-job", "acts", "hello"}, 3, "hello from t\n", ""},
		{"by allocation", []string{"-job", "acts", "-allocation", allocID[:8], "hello"}, 3, "hello from t\n", ""},
		{"unknown action", []string{"-job", "acts", "nope"}, 1, "", `no task defines an action "nope"`},
		{"wrong task", []string{"-job", "acts", "-task", "x", "hello"}, 1, "", `no task (task x) defines an action "hello"`},
		{"no job", []string{"hello"}, 1, "", "-job is required"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, append([]string{"job", "action", "-address", addr}, tc.args...)...)
			if r.code != tc.wantCode || r.stdout != tc.wantOut || !strings.Contains(r.stderr, tc.wantErr) {
				t.Fatalf("job action %v: %+v, want code %d stdout %q stderr containing %q", tc.args, r, tc.wantCode, tc.wantOut, tc.wantErr)
			}
		})
	}
}
