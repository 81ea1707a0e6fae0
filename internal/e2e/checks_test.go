package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// A script check of an exec task runs inside the task's chroot: it sees
// the task's /local and not the host's tree, and passes only there.
func TestScriptCheckRunsInsideTheExecTask(t *testing.T) {
	t.Parallel()
	requireIsolation(t)
	_, c := startServer(t, nil)
	task := shellTask("exec", `exec sleep 1000`)
	task.Services = []*api.Service{{Name: "chrooted", Provider: "nomad", PortLabel: "7000",
		Checks: []api.ServiceCheck{{Name: "inside", Type: "script", Command: "/bin/sh",
			Args:     []string{"-c", `[ -d /local ] && [ ! -e /work/wt ] && echo inside`},
			Interval: time.Second, Timeout: 5 * time.Second}}}}
	job := serviceJob("chrooted", 1, task)
	job.TaskGroups[0].Update = &api.UpdateStrategy{HealthCheck: pointer("task_states")}
	register(t, c, job)
	alloc := runningAllocs(t, c, "chrooted", 1)[0]
	waitFor(t, 20*time.Second, "the script check passing inside the chroot", func() (bool, string) {
		got, err := c.Allocations().Checks(alloc.ID, nil)
		if err != nil {
			return false, err.Error()
		}
		r := got["task/t/chrooted/inside"]
		return r.Status == "success" && r.Output == "inside", fmt.Sprintf("%+v", r)
	})
}
