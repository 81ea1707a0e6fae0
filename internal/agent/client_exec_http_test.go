package agent

import (
	"bytes"
	"context"
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
