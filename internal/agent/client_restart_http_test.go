package agent

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestClientAlloc_RestartBetweenRestarts: restarting a task that is
// waiting out its restart delay is the caller's mistake (409 naming the
// task), not a server error.
func TestClientAlloc_RestartBetweenRestarts(t *testing.T) {
	_, c := clientTestAgent(t)
	job := shellJob("between", `[ -f local/ran ] && exit 1; touch local/ran; while [ ! -f local/die ]; do sleep 0.1; done; exit 1`)
	job.TaskGroups[0].RestartPolicy = &api.RestartPolicy{
		Attempts: pointer(3), Interval: pointer(time.Hour), Delay: pointer(time.Hour), Mode: pointer("fail"),
	}
	alloc := runJob(t, c, job)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out bytes.Buffer
	if code, err := c.Allocations().Exec(ctx, alloc, "t", false, []string{"touch", "local/die"}, strings.NewReader(""), &out, &out, nil, nil); err != nil || code != 0 {
		t.Fatalf("touch local/die: %d %v %q", code, err, out.String())
	}
	eventually(t, 15*time.Second, func() string {
		a, _, err := c.Allocations().Info(alloc.ID, nil)
		if err != nil {
			return err.Error()
		}
		if ts := a.TaskStates["t"]; ts == nil || ts.State != "pending" {
			return "task not yet waiting to restart"
		}
		return ""
	})
	err := c.Allocations().Restart(alloc, "t", nil)
	var resp api.UnexpectedResponseError
	if !errors.As(err, &resp) || resp.StatusCode() != 409 || !strings.Contains(err.Error(), `"t"`) {
		t.Fatalf("restart between restarts: %v, want a 409 naming the task", err)
	}
}
