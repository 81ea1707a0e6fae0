package e2e

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
)

// The Task API: with ACLs on, a raw_exec task runs the real drover binary
// with NOMAD_ADDR=unix://$NOMAD_SECRETS_DIR/api.sock and its own
// NOMAD_TOKEN, and `drover var get` reads its job's variable through the
// socket; the same request for another job's variable, with no token, or
// with a made-up token is refused with a 403. Once the task stops, its
// socket is gone (the rest of its secrets dir stays). Both on the agent
// running server and client and on a client-only agent, whose Task API
// forwards to the server.
func TestTaskAPI_DroverVarGetThroughTheSocket(t *testing.T) {
	t.Parallel()
	bin := requireDrover(t)
	// Short data dirs: a unix socket's path must fit in 108 bytes for the
	// task's client to connect (Nomad's limit too), and test temp dirs
	// are long.
	shortDir := func() string {
		d, err := os.MkdirTemp("/tmp", "dt")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	withACL := func(cfg *config.Config) { cfg.ACL.Enabled = true; cfg.DataDir = shortDir() }
	a := startAgent(t, "first", withACL)
	c := apiClient(t, a.HTTPAddr())
	root, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetSecretID(root.SecretID)
	waitNodeStatus(t, c, a.Client().NodeID(), "ready")
	// A client-only agent: its Task API forwards to the server, which
	// checks the token.
	b := startAgent(t, "second", func(cfg *config.Config) {
		withACL(cfg)
		cfg.Server.Enabled = false
		cfg.Client.Servers = []string{a.RPCAddr()}
	})
	waitNodeStatus(t, c, b.Client().NodeID(), "ready")
	for path, v := range map[string]string{"nomad/jobs/taskapi1": "from-the-socket", "nomad/jobs/taskapi2": "from-the-socket", "nomad/jobs/other": "not-yours"} {
		if _, _, err := c.Variables().Create(&api.Variable{Path: path, Items: api.VariableItems{"k": v}}, nil); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("server and client", func(t *testing.T) { taskAPIVarGet(t, c, bin, "taskapi1", a.Client().NodeID()) })
	t.Run("client only", func(t *testing.T) { taskAPIVarGet(t, c, bin, "taskapi2", b.Client().NodeID()) })
}

// taskAPIVarGet runs job jobID on node nodeID, whose task runs drover var
// get through its api.sock, and checks what it read and that its socket
// goes away once it stops.
func taskAPIVarGet(t *testing.T, c *api.Client, bin, jobID, nodeID string) {
	t.Helper()
	script := `export NOMAD_ADDR="unix://$NOMAD_SECRETS_DIR/api.sock"; D=` + bin + `
echo "$NOMAD_SECRETS_DIR" > local/secrets-dir
$D var get -item k nomad/jobs/$NOMAD_JOB_ID > local/own.out 2>&1
$D var get -item k nomad/jobs/other > local/other.out 2>&1
NOMAD_TOKEN= $D var get -item k nomad/jobs/$NOMAD_JOB_ID > local/anon.out 2>&1
NOMAD_TOKEN=0b5bd0a2-5e47-4b8e-9d7a-3a2f4e1c9d10 $D var get -item k nomad/jobs/$NOMAD_JOB_ID > local/bogus.out 2>&1
echo done > local/done
exec sleep 600`
	task := shellTask("raw_exec", script)
	task.Identity = &api.WorkloadIdentity{Env: true, File: true}
	task.Env = map[string]string{"DROVER_ADDR": "", "DROVER_TOKEN": ""}
	register(t, c, pinTo(serviceJob(jobID, 1, task), nodeID))
	alloc := runningAllocs(t, c, jobID, 1)[0]
	waitFor(t, 60*time.Second, "the task's drover runs done", func() (bool, string) {
		got := catFile(t, c, alloc, "t/local/done")
		return strings.TrimSpace(got) == "done", got
	})
	if got := strings.TrimSpace(catFile(t, c, alloc, "t/local/own.out")); got != "from-the-socket" {
		t.Fatalf("drover var get of its own job's variable through api.sock: %q", got)
	}
	for file, want := range map[string]string{
		"other.out": "403", // another job's variable
		"anon.out":  "requires a token",
		"bogus.out": "403",
	} {
		got := catFile(t, c, alloc, "t/local/"+file)
		if !strings.Contains(got, want) || strings.Contains(got, "not-yours") || strings.Contains(got, "from-the-socket") {
			t.Errorf("%s: %q, want a refusal containing %q", file, got, want)
		}
	}

	secrets := strings.TrimSpace(catFile(t, c, alloc, "t/local/secrets-dir"))
	sock := filepath.Join(secrets, "api.sock")
	if fi, err := os.Stat(sock); err != nil || fi.Mode()&fs.ModeSocket == 0 {
		t.Fatalf("the running task's socket: %v %v", fi, err)
	}
	if _, _, err := c.Jobs().Deregister(jobID, false, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the stopped task's socket removed", func() (bool, string) {
		_, err := os.Stat(sock)
		return errors.Is(err, fs.ErrNotExist), "stat: " + errString(err)
	})
	if _, err := os.Stat(filepath.Join(secrets, "nomad_token")); err != nil {
		t.Fatalf("the secrets dir itself should stay until the alloc is collected: %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return "exists"
	}
	return err.Error()
}
