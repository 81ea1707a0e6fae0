package sim

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// The deterministic simulator runs no scheduling goroutine: the workers'
// and the leader duties' loops are never started, the simulator steps
// them. A dump of every goroutine while a simulation is live must show
// none of their loop functions.
func TestSim_StepsDutiesWithoutTheirGoroutines(t *testing.T) {
	s := newTestSim(t, 3)
	_, err := s.AddNode(NodeSpec{Name: "n1"})
	must(t, err)
	must(t, s.RegisterJob(JobSpec{Name: "web", Count: 2}))
	must(t, s.AdvanceTime(time.Minute))
	buf := make([]byte, 1<<22)
	dump := string(buf[:runtime.Stack(buf, true)])
	for _, loop := range []string{
		"server.(*Worker).run", "planapply.(*Applier).Run", "server.(*Server).reapFailedEvals",
		"server.(*Server).dequeueUndeliverable", "server.(*Server).reapCancelableEvals",
		"server.(*Server).reapDuplicateBlockedEvals", "server.(*Server).reapStoppedJobBlocked",
		"server.(*Server).periodicUnblockFailed", "server.(*Server).periodicGC",
		"server.(*Server).watchDeployments", "server.(*Server).runPeriodicDispatcher",
		"server.(*Server).runDrainer",
	} {
		if strings.Contains(dump, loop) {
			t.Errorf("goroutine running %s in a deterministic simulation", loop)
		}
	}
	h, err := s.History()
	must(t, err)
	if got := len(h.Allocs); got != 2 {
		t.Fatalf("%d allocs, want 2: the stepped worker did not schedule\n%s", got, h)
	}
}

// Every leader duty the issue names has a step the simulator drives.
func TestSim_EveryLeaderDutyHasAStep(t *testing.T) {
	s := newTestSim(t, 1)
	have := map[string]bool{}
	for _, d := range s.Server().DutySteps() {
		have[d.Name] = true
	}
	for _, want := range []string{
		"heartbeat-expiry", "stopped-job-blocked", "duplicate-blocked", "cancelable", "undeliverable",
		"failed-follow-up", "unblock-failed", "core-gc", "periodic-dispatch", "drainer",
		"deployment-watcher", "scheduler-config", "plan-applier", "worker-0",
	} {
		if !have[want] {
			t.Errorf("no step %q in %v", want, have)
		}
	}
}
