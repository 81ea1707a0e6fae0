package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
)

// dayJob is the service the operator runs: a raw_exec task that prints a
// line and sleeps, rolled out one allocation at a time, with canaries
// when canary > 0. marker changes the task (a destructive update).
func dayJob(count, canary int, marker string) string {
	return `job "web" {
  datacenters = ["*"]
  node_pool   = "default"

  group "web" {
    count = ` + itoa(count) + `

    update {
      max_parallel      = 1
      canary            = ` + itoa(canary) + `
      min_healthy_time  = "1s"
      healthy_deadline  = "30s"
      progress_deadline = "1m"
    }

    task "t" {
      driver = "raw_exec"

      config {
        command = "/bin/sh"
        args    = ["-c", "echo started ` + marker + `; exec sleep 600"]
      }

      kill_timeout = "1s"

      resources {
        cpu    = 50
        memory = 32
      }
    }
  }
}
`
}

// TestOperatorDay drives a day of operator work with drover alone against
// a real agent (server and client, ACLs on): bootstrap ACLs, a node pool,
// plan, run, status, logs, exec, fs, checks, scale, a canary rollout and
// its promotion, revert, restart, tags, variables, a token with less
// rights, a snapshot, and a drain of the node. Each output is checked.
func TestOperatorDay(t *testing.T) {
	addr, _ := testAgent(t, func(cfg *config.Config) {
		cfg.Client.Enabled = true
		cfg.DataDir = testutil.DataDir(t)
		cfg.Server.EnabledSchedulers = nil
		cfg.ACL.Enabled = true
	})
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	token := ""
	// do runs `drover <name> <global flags> <args>` and checks its exit code
	// and that stdout+stderr hold each of want.
	do := func(code int, name string, args []string, want ...string) result {
		t.Helper()
		full := append(strings.Fields(name), "-address", addr)
		if token != "" {
			full = append(full, "-token", token)
		}
		r := run(t, append(full, args...)...)
		out := r.stdout + r.stderr
		if r.code != code {
			t.Fatalf("drover %s %v: exit %d, want %d\n%s", name, args, r.code, code, out)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Fatalf("drover %s %v: output lacks %q:\n%s", name, args, w, out)
			}
		}
		return r
	}

	// ACL bootstrap: the management token runs the rest of the day.
	r := do(0, "acl bootstrap", nil, "Secret ID")
	token = regexp.MustCompile(`Secret ID\s+=\s+(\S+)`).FindStringSubmatch(r.stdout)[1]

	// The node has registered; its pool is "default".
	testutil.WaitFor(t, 20*time.Second, "the node to be ready", func() bool {
		return strings.Contains(run(t, "node", "status", "-address", addr, "-token", token).stdout, "ready")
	})
	do(0, "node status", []string{"-self"}, "Node Pool", "ready")
	do(0, "node pool apply", []string{file("pool.hcl", "node_pool \"batch\" {\n  description = \"for batch work\"\n}\n")},
		`Successfully applied node pool "batch"!`)
	do(0, "node pool list", nil, "batch", "for batch work", "default")
	do(0, "node pool info", []string{"batch"}, "Description = for batch work")
	do(0, "node pool nodes", []string{"default"}, "ready")

	// Plan a new job: Nomad's short form, exit 1 (changes).
	v0 := file("web.nomad.hcl", dayJob(1, 0, "v0"))
	r = do(1, "job plan", []string{v0}, `+ Job: "web"`, `+ Task Group: "web" (1 create)`, `+ Task: "t" (forces create)`)
	if strings.Contains(r.stdout, "Datacenters") {
		t.Errorf("plan of a new job shows fields without -verbose:\n%s", r.stdout)
	}
	do(0, "job run", []string{v0}, "successful")
	do(0, "job status", []string{"web"}, "Status        = running", "Allocations")
	r = do(0, "job allocs", []string{"-json", "web"})
	var allocs []*api.AllocationListStub
	if err := json.Unmarshal([]byte(r.stdout), &allocs); err != nil || len(allocs) != 1 {
		t.Fatalf("job allocs -json: %v %s", err, r.stdout)
	}
	alloc := allocs[0].ID

	// Logs, exec, fs, checks.
	testutil.WaitFor(t, 10*time.Second, "the task's output", func() bool {
		return strings.Contains(run(t, "alloc", "logs", "-address", addr, "-token", token, alloc).stdout, "started v0")
	})
	do(0, "alloc logs", []string{"-tail", "-n", "1", alloc, "t"}, "started v0")
	r = do(0, "alloc exec", []string{"-task", "t", alloc, "/bin/sh", "-c", "echo from-exec; exit 0"}, "from-exec")
	do(3, "alloc exec", []string{alloc, "/bin/sh", "-c", "exit 3"})
	do(0, "alloc fs", []string{alloc, "alloc/logs"}, "Mode", "t.stdout.0")
	do(0, "alloc fs", []string{"-stat", alloc, "alloc/logs/t.stdout.0"}, "t.stdout.0")
	do(0, "alloc fs", []string{alloc, "alloc/logs/t.stdout.0"}, "started v0")
	do(0, "alloc fs", []string{"-tail", "-c", "3", alloc, "alloc/logs/t.stdout.0"}, "v0")
	do(0, "alloc checks", []string{alloc}, "Status of 0 Nomad Service Checks")

	// Scale up: follows the deployment to its end.
	do(0, "job scale", []string{"web", "2"}, `Job "web" group "web" scaled to 2`, "successful")
	do(0, "job scaling-events", []string{"web"}, "Task Group", "2")

	// A canary rollout: run stops at the promotion, promote finishes it.
	v1 := file("web-v1.nomad.hcl", dayJob(2, 1, "v1"))
	do(0, "job run", []string{v1}, "needs promotion")
	do(0, "job deployments", []string{"web"}, "Job Version", "requires manual promotion")
	do(0, "job promote", []string{"web"}, "successful")
	do(0, "job tag apply", []string{"-name", "canaried", "web"}, `tagged with name "canaried"`)
	do(0, "job history", []string{"web"}, "canaried")
	do(0, "job tag unset", []string{"-name", "canaried", "web"}, `Tag "canaried" removed`)
	do(0, "job deployments", []string{"-latest", "web"}, "successful")
	do(0, "node pool jobs", []string{"default"}, "web", "service")

	// Revert to the first version: follows the deployment.
	do(0, "job revert", []string{"web", "0"}, `reverted to version 0`, "successful")
	do(0, "job history", []string{"web"}, "Version")

	// Restart every allocation, one at a time.
	do(0, "job restart", []string{"-batch-size", "1", "-yes", "web"}, "Restarting 1 allocation", "All allocations restarted successfully!")

	// Stop and start again.
	do(0, "job stop", []string{"web"})
	do(0, "job status", []string{"web"}, "Status        = dead")
	do(0, "job start", []string{"web"}, `finished with status "complete"`)
	do(1, "job start", []string{"web"}, "is not stopped")

	// Node metadata and the client's servers.
	do(0, "node meta apply", []string{"rack=r1"})
	do(0, "node meta read", nil, "rack", "r1")
	do(0, "node config", []string{"-servers"}, "127.0.0.1:")

	// Variables.
	do(0, "var put", []string{"nomad/jobs/web", "user=alice"}, "")
	do(0, "var get", []string{"nomad/jobs/web"}, "alice")
	do(0, "var list", nil, "nomad/jobs/web")

	// A token that may read jobs but not manage node pools.
	do(0, "acl policy apply", []string{"reader", file("reader.hcl", "namespace \"default\" {\n  policy = \"read\"\n}\n")})
	r = do(0, "acl token create", []string{"-name", "ops-reader", "-policy", "reader"}, "Secret ID")
	root := token
	token = regexp.MustCompile(`Secret ID\s+=\s+(\S+)`).FindStringSubmatch(r.stdout)[1]
	do(0, "job status", []string{"web"}, "running")
	do(1, "node pool delete", []string{"batch"}, "Permission denied")
	token = root

	// Snapshot and its inspection.
	snap := filepath.Join(dir, "backup.snap")
	do(0, "operator snapshot save", []string{snap})
	do(0, "operator snapshot inspect", []string{snap}, "Index", "Term", "drover-snapshot-v1")

	// Drain the node: the monitor follows until the drain completes.
	do(0, "node drain", []string{"-enable", "-force", "-self", "-yes"}, "drain strategy enabled", "Drain complete for node")
	do(0, "node drain", []string{"-disable", "-self"}, "drain strategy disabled")
	do(0, "node eligibility", []string{"-enable", "-self"}, "eligible")
	do(0, "node pool delete", []string{"batch"}, `Successfully deleted node pool "batch"!`)
}
