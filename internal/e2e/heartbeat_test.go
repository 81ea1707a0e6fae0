package e2e

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
)

// TestSilentNodeGoesDownAndItsAllocsMove: a client whose heartbeats stop
// (its client shut down, tasks left running) is marked down after TTL +
// grace; the down transition writes one node-update eval per job with
// allocs on it and per system job covering it; its service alloc is lost
// and replaced on the other node.
func TestSilentNodeGoesDownAndItsAllocsMove(t *testing.T) {
	t.Parallel()
	srv, c := startServer(t, func(cfg *config.Config) {
		cfg.Client.Enabled = false
		cfg.Server.MinHeartbeatTTL = time.Second
		cfg.Server.HeartbeatGrace = time.Second
	})
	quiet := startClient(t, "quiet", srv.RPCAddr(), c)
	quietID := quiet.Client().NodeID()

	// Both jobs land on the only node, "quiet"; the other node joins after.
	register(t, c, serviceJob("svc", 1, shellTask("raw_exec", `echo pids $$; exec sleep 120`)))
	sys := serviceJob("sys", 1, shellTask("raw_exec", `echo pids $$; exec sleep 120`))
	sys.Type = pointer("system")
	register(t, c, sys)
	var leftovers []int // tasks of the silenced client outlive it
	for _, job := range []string{"svc", "sys"} {
		a := runningAllocs(t, c, job, 1)[0]
		leftovers = append(leftovers, pidsLine(waitLogs(t, c, a, func(s string) bool { return len(pidsLine(s)) == 1 }))...)
	}
	t.Cleanup(func() {
		for _, pid := range leftovers {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	other := startClient(t, "other", srv.RPCAddr(), c)
	runningAllocs(t, c, "sys", 2)
	seen := map[string]bool{}
	for _, job := range []string{"svc", "sys"} {
		for _, e := range evalsOf(t, c, job) {
			seen[e.ID] = true
		}
	}

	silenced := time.Now()
	if err := quiet.Client().Shutdown(); err != nil {
		t.Fatal(err)
	}
	waitNodeStatus(t, c, quietID, "down")
	t.Logf("node down %s after its last heartbeat could have been sent", time.Since(silenced).Round(100*time.Millisecond))

	for _, job := range []string{"svc", "sys"} {
		var n int
		for _, e := range evalsOf(t, c, job) {
			if !seen[e.ID] && e.TriggeredBy == "node-update" && e.NodeID == quietID {
				n++
			}
		}
		if n != 1 {
			t.Errorf("job %s: %d node-update evals for the down node, want 1", job, n)
		}
	}
	waitFor(t, 20*time.Second, "svc replaced on the other node", func() (bool, string) {
		var lost, moved bool
		var states []string
		for _, a := range jobAllocs(t, c, "svc") {
			states = append(states, fmt.Sprintf("%s on %s", a.ClientStatus, a.NodeName))
			lost = lost || (a.NodeID == quietID && a.ClientStatus == api.AllocClientStatusLost)
			moved = moved || (a.NodeID == other.Client().NodeID() && a.ClientStatus == api.AllocClientStatusRunning)
		}
		return lost && moved, fmt.Sprint(states)
	})
}
