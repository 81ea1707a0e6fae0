package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/client"
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/server"
)

// execUpgrader accepts Nomad's exec websocket. Origins are not checked:
// the API has no cookies to ride on, and the CLI sends none.
var execUpgrader = websocket.Upgrader{
	ReadBufferSize:  4 << 10,
	WriteBufferSize: 32 << 10,
	CheckOrigin:     func(*http.Request) bool { return true },
}

// execWriteTimeout bounds one frame write to a stalled peer.
const execWriteTimeout = 10 * time.Second

func (h *HTTPServer) clientExecRoutes() {
	h.allocHandler("GET /v1/client/allocation/{id}/exec", h.allocExec)
}

// allocExec runs a command in a task's environment over Nomad's exec
// protocol: JSON frames on a websocket, stdin and tty_size in, stdout,
// stderr and finally {"exited":true,"result":{"exit_code":N}} out.
// Errors once the socket is open end it with a close frame carrying the
// message, which the official client returns as the error.
func (h *HTTPServer) allocExec(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string) (any, error) {
	q := r.URL.Query()
	task := q.Get("task")
	var command []string
	if err := json.Unmarshal([]byte(q.Get("command")), &command); err != nil || len(command) == 0 {
		return nil, server.BadRequest("command: a JSON array of strings is required, got %q", q.Get("command"))
	}
	tty, err := boolParam(r, "tty")
	if err != nil {
		return nil, err
	}
	if task == "" {
		return nil, server.BadRequest("task: a task name is required")
	}
	if h.remoteExecOff {
		return nil, errRemoteExecOff
	}
	h.serveExec(w, r, c, allocID, task, command, tty)
	return nil, nil
}

// errRemoteExecOff answers exec (and task actions) on a client with
// client { disable_remote_exec = true }.
var errRemoteExecOff = server.NewCodedError(http.StatusForbidden, "exec is disabled on this client (client.disable_remote_exec = true)")

// serveExec upgrades r to the exec websocket and runs command in the
// alloc's task until it exits or the caller goes away. It answers the
// request itself (HTTP errors before the upgrade, close frames after).
func (h *HTTPServer) serveExec(w http.ResponseWriter, r *http.Request, c *client.Client, allocID, task string, command []string, tty bool) {
	conn, err := execUpgrader.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade answered the HTTP error itself
	}
	defer conn.Close()
	s := &execSession{conn: conn}
	if auth, ok := r.Context().Value(deferredAuthKey{}).(deferredAuth); ok {
		if err := execHandshake(conn, r, auth); err != nil {
			s.close(websocket.ClosePolicyViolation, err.Error())
			return
		}
	}
	stdin, stdinW := io.Pipe()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	resize := make(chan drivers.TerminalSize, 8)
	go s.readInput(stdinW, resize, cancel)
	code, err := c.AllocExec(ctx, allocID, task, &drivers.ExecRequest{
		Command: command, TTY: tty, Stdin: stdin, Resize: resize,
		Stdout: s.stream(func(op *api.ExecStreamingIOOperation) *api.ExecStreamingOutput {
			return &api.ExecStreamingOutput{Stdout: op}
		}),
		Stderr: s.stream(func(op *api.ExecStreamingIOOperation) *api.ExecStreamingOutput {
			return &api.ExecStreamingOutput{Stderr: op}
		}),
	})
	stdin.Close()
	if err != nil {
		s.close(websocket.CloseInternalServerErr, clientError(err).Error())
		return
	}
	if err := s.send(&api.ExecStreamingOutput{Exited: true, Result: &api.ExecStreamingExitResult{ExitCode: code}}); err != nil {
		h.log.Debug("http: exec result", "alloc", allocID, "error", err)
	}
	s.close(websocket.CloseNormalClosure, "")
}

// execHandshake reads Nomad's ws_handshake frame ({"version":1,
// "auth_token":"..."}), the first a browser sends, and makes the request's
// ACL check with its token (else the header's).
func execHandshake(conn *websocket.Conn, r *http.Request, auth deferredAuth) error {
	var hs struct {
		Version   int    `json:"version"`
		AuthToken string `json:"auth_token"`
	}
	_ = conn.SetReadDeadline(time.Now().Add(execWriteTimeout))
	if err := conn.ReadJSON(&hs); err != nil || hs.Version != 1 {
		return fmt.Errorf(`ws_handshake: the first frame must be {"version":1,"auth_token":"<secret>"}`)
	}
	_ = conn.SetReadDeadline(time.Time{})
	secret := hs.AuthToken
	if secret == "" {
		secret = requestToken(r)
	}
	return auth(secret)
}

// execSession serialises writes to the socket (gorilla allows one
// writer at a time; stdout and stderr are copied concurrently).
type execSession struct {
	conn *websocket.Conn
	mu   sync.Mutex
}

func (s *execSession) send(frame *api.ExecStreamingOutput) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.conn.SetWriteDeadline(time.Now().Add(execWriteTimeout))
	return s.conn.WriteJSON(frame)
}

func (s *execSession) close(code int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, msg), time.Now().Add(execWriteTimeout))
}

// stream is an io.Writer sending each write as one output frame.
func (s *execSession) stream(wrap func(*api.ExecStreamingIOOperation) *api.ExecStreamingOutput) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		data := append([]byte(nil), p...)
		if err := s.send(wrap(&api.ExecStreamingIOOperation{Data: data})); err != nil {
			return 0, err
		}
		return len(p), nil
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// readInput feeds stdin frames to the command until the client closes
// stdin or the socket, and terminal sizes to resize (TTY sessions).
// Heartbeats ({}) are skipped. A socket that goes away cancels the
// command.
func (s *execSession) readInput(stdin *io.PipeWriter, resize chan<- drivers.TerminalSize, cancel context.CancelFunc) {
	stdinOpen := true
	for {
		var in api.ExecStreamingInput
		if err := s.conn.ReadJSON(&in); err != nil {
			stdin.CloseWithError(err)
			var closeErr *websocket.CloseError
			if !errors.As(err, &closeErr) || closeErr.Code != websocket.CloseNormalClosure {
				cancel()
			}
			return
		}
		if in.TTYSize != nil {
			select {
			case resize <- drivers.TerminalSize{Height: in.TTYSize.Height, Width: in.TTYSize.Width}:
			default: // the command is not keeping up; a later size follows
			}
		}
		if in.Stdin == nil || !stdinOpen {
			continue
		}
		if len(in.Stdin.Data) > 0 {
			if _, err := stdin.Write(in.Stdin.Data); err != nil {
				stdinOpen = false
			}
		}
		if in.Stdin.Close {
			stdin.Close()
			stdinOpen = false
		}
	}
}
