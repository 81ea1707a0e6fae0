package server

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// A deployment watcher write that fails changes no deployment, so no
// state watch wakes the watcher again. It must retry on its own (within
// deploymentRetry), not leave a finished rollout "running" until the
// minute's idle recheck.
func TestDeploymentWatcher_RetriesAFailedStatusWrite(t *testing.T) {
	var failures atomic.Int32
	s := realServer(t, func(c *Config) {
		c.RaftApplyFault = func(t structs.MessageType) error {
			if t == structs.DeploymentStatusUpdateType && failures.Add(1) == 1 {
				return errors.New("injected: raft write failed")
			}
			return nil
		}
	})
	if _, err := s.RegisterNode(e2eNode(1, 8000, 16384)); err != nil {
		t.Fatal(err)
	}
	job := e2eJob("web", 1, 500, 256)
	job.Update = structs.UpdateStrategy{MaxParallel: 1, MinHealthyTime: time.Second,
		HealthyDeadline: time.Minute, ProgressDeadline: 10 * time.Minute}
	reg, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: job})
	if err != nil {
		t.Fatal(err)
	}
	waitEval(t, s, reg.EvalID, structs.EvalStatusComplete)
	markHealthy(t, s, "web")
	waitFor(t, func() bool { return deploymentStatus(t, s, "web", 0) == structs.DeploymentStatusSuccessful })
	if n := failures.Load(); n != 2 {
		t.Fatalf("%d deployment status writes, want the failed one and its retry", n)
	}
	// The retried step asks for its eval again: the failed entry held it.
	if got := len(evalsByTrigger(t, s, "web", structs.EvalTriggerDeploymentWatcher)); got != 1 {
		t.Fatalf("%d deployment-watcher evals, want 1", got)
	}
}
