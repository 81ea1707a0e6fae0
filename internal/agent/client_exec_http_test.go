package agent

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
)

// TestClientAlloc_Exec drives `alloc exec` through the official client:
// output, exit codes, stdin and the task's environment.
func TestClientAlloc_Exec(t *testing.T) {
	_, c := clientTestAgent(t)
	alloc := runJob(t, c, shellJob("exec", "sleep 300"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	cases := []struct {
		name     string
		command  []string
		stdin    string
		wantOut  string
		wantErr  string
		wantCode int
	}{
		{name: "echo", command: []string{"echo", "hello"}, wantOut: "hello\n"},
		{name: "failing command", command: []string{"/bin/sh", "-c", "echo oops >&2; exit 3"}, wantErr: "oops\n", wantCode: 3},
		{name: "stdin", command: []string{"cat"}, stdin: "piped input\n", wantOut: "piped input\n"},
		{name: "task env", command: []string{"/bin/sh", "-c", "echo $NOMAD_TASK_NAME $NOMAD_ALLOC_ID"}, wantOut: "t " + alloc.ID + "\n"},
		{name: "missing command", command: []string{"/no/such/binary"}, wantCode: 127},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code, err := c.Allocations().Exec(ctx, alloc, "t", false, tc.command, strings.NewReader(tc.stdin), &stdout, &stderr, nil, nil)
			if err != nil {
				t.Fatalf("exec: %v", err)
			}
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tc.wantCode, stderr.String())
			}
			if stdout.String() != tc.wantOut {
				t.Errorf("stdout %q, want %q", stdout.String(), tc.wantOut)
			}
			if tc.wantErr != "" && stderr.String() != tc.wantErr {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.wantErr)
			}
		})
	}

	t.Run("tty", func(t *testing.T) {
		var out bytes.Buffer
		code, err := c.Allocations().Exec(ctx, alloc, "t", true, []string{"/bin/sh", "-c", "tty; echo err >&2"}, strings.NewReader(""), &out, &out, nil, nil)
		if err != nil || code != 0 || !strings.HasPrefix(out.String(), "/dev/pts/") || !strings.HasSuffix(out.String(), "err\r\n") {
			t.Fatalf("exec -t: code %d err %v out %q, want a /dev/pts terminal carrying stderr too", code, err, out.String())
		}
	})

	t.Run("unknown task", func(t *testing.T) {
		var out bytes.Buffer
		_, err := c.Allocations().Exec(ctx, alloc, "nope", false, []string{"true"}, strings.NewReader(""), &out, &out, nil, nil)
		if err == nil || !strings.Contains(err.Error(), "nope") {
			t.Fatalf("exec in unknown task: err %v, want one naming the task", err)
		}
	})
}

// TestClientAlloc_ExecForwarded: an agent that does not run the alloc
// proxies the exec websocket to the agent that does.
func TestClientAlloc_ExecForwarded(t *testing.T) {
	first, c := clientTestAgent(t)
	second := clientOnlyAgent(t, first.RPCAddr())
	job := shellJob("fwdexec", "sleep 300")
	job.Constrain(api.NewConstraint("${node.unique.id}", "=", second.Client().NodeID()))
	alloc := runJob(t, c, job)

	q := url.Values{"task": {"t"}, "command": {`["/bin/sh","-c","echo via-proxy; exit 2"]`}}
	conn, _, err := websocket.DefaultDialer.Dial("ws://"+first.HTTPAddr()+"/v1/client/allocation/"+alloc.ID+"/exec?"+q.Encode(), nil)
	if err != nil {
		t.Fatalf("dial through the first agent: %v", err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	var stdout bytes.Buffer
	for {
		var frame api.ExecStreamingOutput
		if err := conn.ReadJSON(&frame); err != nil {
			t.Fatalf("read: %v (stdout so far %q)", err, stdout.String())
		}
		if frame.Stdout != nil {
			stdout.Write(frame.Stdout.Data)
		}
		if frame.Exited {
			if frame.Result == nil || frame.Result.ExitCode != 2 || stdout.String() != "via-proxy\n" {
				t.Fatalf("exited %+v with stdout %q, want code 2 and via-proxy", frame.Result, stdout.String())
			}
			return
		}
	}
}

// TestClientAlloc_ExecHandshake: a browser cannot set a websocket's
// headers, so with ws_handshake=true (Nomad's) the token is the socket's
// first frame: a token with alloc-exec runs the command, one without it
// (or none) gets the socket closed with "Permission denied", and a first
// frame that is not a handshake closes it naming what was expected.
func TestClientAlloc_ExecHandshake(t *testing.T) {
	a, c := testAgent(t, func(cfg *config.Config) {
		cfg.Client.Enabled = true
		cfg.DataDir = testutil.DataDir(t)
		cfg.Server.EnabledSchedulers = nil
		cfg.ACL.Enabled = true
	})
	root, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetSecretID(root.SecretID)
	alloc := runJob(t, c, shellJob("hsexec", "sleep 300"))
	for name, rules := range map[string]string{"exec": `namespace "default" { capabilities = ["alloc-exec"] }`, "read": `namespace "default" { policy = "read" }`} {
		if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: name, Rules: rules}, nil); err != nil {
			t.Fatal(err)
		}
	}
	token := func(policy string) string {
		tk, _, err := c.ACLTokens().Create(&api.ACLToken{Type: "client", Policies: []string{policy}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return tk.SecretID
	}
	// run dials with ws_handshake, sends first, and answers stdout, or the
	// close reason.
	run := func(first string) (string, string) {
		q := url.Values{"task": {"t"}, "command": {`["/bin/sh","-c","echo from-browser"]`}, "ws_handshake": {"true"}}
		conn, _, err := websocket.DefaultDialer.Dial("ws://"+a.HTTPAddr()+"/v1/client/allocation/"+alloc.ID+"/exec?"+q.Encode(), nil)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		defer conn.Close()
		if err := conn.WriteMessage(websocket.TextMessage, []byte(first)); err != nil {
			t.Fatal(err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		var stdout bytes.Buffer
		for {
			var frame api.ExecStreamingOutput
			if err := conn.ReadJSON(&frame); err != nil {
				var ce *websocket.CloseError
				if errors.As(err, &ce) {
					return stdout.String(), ce.Text
				}
				t.Fatalf("read: %v", err)
			}
			if frame.Stdout != nil {
				stdout.Write(frame.Stdout.Data)
			}
			if frame.Exited {
				return stdout.String(), ""
			}
		}
	}
	hs := func(secret string) string { return `{"version":1,"auth_token":"` + secret + `"}` }
	if out, reason := run(hs(token("exec"))); out != "from-browser\n" || reason != "" {
		t.Errorf("alloc-exec token: stdout %q, close %q; want the command's output", out, reason)
	}
	for name, first := range map[string]string{"read-only token": hs(token("read")), "no token": hs("")} {
		if out, reason := run(first); out != "" || !strings.Contains(reason, "Permission denied") {
			t.Errorf("%s: stdout %q, close %q; want Permission denied and nothing run", name, out, reason)
		}
	}
	if _, reason := run(`{"stdin":{"data":"aGkK"}}`); !strings.Contains(reason, "ws_handshake") {
		t.Errorf("no handshake frame: close %q, want one naming ws_handshake", reason)
	}
}

// TestClientExec_DisableRemoteExec: with client { disable_remote_exec =
// true } exec into the client's tasks is refused (403), naming the key.
func TestClientExec_DisableRemoteExec(t *testing.T) {
	a, c := testAgent(t, func(cfg *config.Config) {
		cfg.Client.Enabled = true
		cfg.DataDir = testutil.DataDir(t)
		cfg.Server.EnabledSchedulers = nil
		cfg.Client.DisableRemoteExec = true
	})
	alloc := runJob(t, c, shellJob("noexec", "sleep 300"))
	code, body := doRaw(t, a, "GET", "/v1/client/allocation/"+alloc.ID+"/exec?task=t&command="+url.QueryEscape(`["echo","hi"]`), "")
	if code != 403 || !strings.Contains(body, "disable_remote_exec") {
		t.Fatalf("exec with disable_remote_exec: %d %q", code, body)
	}
}
