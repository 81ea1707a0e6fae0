package command

import (
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
)

// registerExample submits the example job and returns its eval ID.
func registerExample(t *testing.T, addr string) string {
	t.Helper()
	r := run(t, "job", "run", "-address", addr, "-detach", "testdata/jobs/example.json")
	if r.code != 0 {
		t.Fatalf("job run: %+v", r)
	}
	_, id, ok := strings.Cut(strings.TrimSpace(r.stdout), "Evaluation ID: ")
	if !ok {
		t.Fatalf("no eval ID in %q", r.stdout)
	}
	return id
}

func TestEvalCommands(t *testing.T) {
	addr, _ := testAgent(t, nil)
	id := registerExample(t, addr)
	golden(t, "eval_list", run(t, "eval", "list", "-address", addr))
	golden(t, "eval_list_filtered", run(t, "eval", "list", "-address", addr, "-job", "nope"))
	golden(t, "eval_status", run(t, "eval", "status", "-address", addr, id[:6]))
	golden(t, "eval_status_json", run(t, "eval", "status", "-address", addr, "-json", id))
	golden(t, "eval_status_template", run(t, "eval", "status", "-address", addr, "-t", "{{.TriggeredBy}} {{.Status}} {{len .Timeline}}\n", id))
	golden(t, "eval_status_chain_single", run(t, "eval", "status", "-address", addr, "-chain", id))
	golden(t, "eval_status_unknown", run(t, "eval", "status", "-address", addr, "ffffffff"))
}

// TestEvalChainReal runs the real schedulers with no nodes: the
// registration eval completes and leaves a blocked eval behind.
func TestEvalChainReal(t *testing.T) {
	addr, c := testAgent(t, func(cfg *config.Config) { cfg.Server.EnabledSchedulers = nil })
	id := registerExample(t, addr)
	testutil.WaitFor(t, 10*time.Second, "the registration eval to leave a blocked eval", func() bool {
		ev, _, err := c.Evaluations().Info(id, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ev.Status != "pending" && ev.BlockedEval != ""
	})
	golden(t, "eval_status_chain_blocked", run(t, "eval", "status", "-address", addr, "-chain", id))
	golden(t, "eval_status_blocked_origin", run(t, "eval", "status", "-address", addr, id))
}

// TestJobRunMonitor watches a registration that cannot place anything (no
// nodes): the monitor reports the failure and exits 2, as Nomad's does.
func TestJobRunMonitor(t *testing.T) {
	addr, _ := testAgent(t, func(cfg *config.Config) { cfg.Server.EnabledSchedulers = nil })
	golden(t, "job_run_monitor_blocked", run(t, "job", "run", "-address", addr, "testdata/jobs/example.json"))
	golden(t, "job_status_blocked", run(t, "job", "status", "-address", addr, "example"))
}
