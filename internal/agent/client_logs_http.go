package agent

import (
	"net/http"
	"time"

	"github.com/drover-project/drover/internal/client"
	"github.com/drover-project/drover/internal/client/logmon"
	"github.com/drover-project/drover/internal/server"
)

// Log streaming timings. The poll interval trades CPU for latency; the
// heartbeat keeps an idle followed stream from being cut by proxies and
// client timeouts (Nomad's client discards the empty frames).
const (
	logPollInterval      = 200 * time.Millisecond
	logHeartbeatInterval = 5 * time.Second
)

func (h *HTTPServer) clientLogRoutes() {
	h.allocHandler("GET /v1/client/fs/logs/{id}", h.fsLogs)
}

// logParams are the logs endpoint's query parameters.
type logParams struct {
	task, stream, origin string
	follow, plain        bool
	offset               int64
}

func parseLogParams(r *http.Request) (logParams, error) {
	q := r.URL.Query()
	p := logParams{task: q.Get("task"), stream: q.Get("type"), origin: q.Get("origin")}
	if p.task == "" {
		return p, server.BadRequest("task: a task name is required")
	}
	if p.stream != logmon.Stdout && p.stream != logmon.Stderr {
		return p, server.BadRequest("type: must be stdout or stderr, got %q", p.stream)
	}
	if p.origin == "" {
		p.origin = "start"
	}
	if p.origin != "start" && p.origin != "end" {
		return p, server.BadRequest("origin: must be start or end, got %q", p.origin)
	}
	var err error
	if p.follow, err = boolParam(r, "follow"); err != nil {
		return p, err
	}
	if p.plain, err = boolParam(r, "plain"); err != nil {
		return p, err
	}
	p.offset, err = intParam(q.Get("offset"), "offset")
	return p, err
}

// fsLogs streams a task's stdout or stderr across its rotated files, as
// Nomad's JSON StreamFrames or, with plain=true, as raw bytes.
func (h *HTTPServer) fsLogs(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string) (any, error) {
	p, err := parseLogParams(r)
	if err != nil {
		return nil, err
	}
	// Checks the task exists before the 200 goes out: afterwards an error
	// can only end the stream.
	if _, err := c.AllocLogFiles(allocID, p.task, p.stream); err != nil {
		return nil, clientError(err)
	}
	ls := &logStreamer{
		list:      func() ([]logmon.LogFile, error) { return c.AllocLogFiles(allocID, p.task, p.stream) },
		finished:  func() bool { return allocFinished(c, allocID) },
		out:       newFrameWriter(w, p.plain),
		follow:    p.follow,
		poll:      logPollInterval,
		heartbeat: logHeartbeatInterval,
	}
	if err := ls.run(r.Context(), p.origin, p.offset); err != nil {
		h.log.Debug("http: log stream ended", "alloc", allocID, "task", p.task, "error", err)
	}
	return nil, nil
}

// allocFinished reports whether the client is done with the alloc (or no
// longer knows it): a followed stream then has nothing more to wait for.
func allocFinished(c *client.Client, allocID string) bool {
	a, err := c.AllocState(allocID)
	return err != nil || a.ClientTerminalStatus()
}
