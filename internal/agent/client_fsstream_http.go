package agent

import (
	"time"

	"net/http"

	"github.com/drover-project/drover/internal/client"
	"github.com/drover-project/drover/internal/client/logmon"
	"github.com/drover-project/drover/internal/server"
)

func (h *HTTPServer) clientFSStreamRoutes() {
	h.allocHandler("GET /v1/client/fs/stream/{id}", h.fsStream)
}

// fsStream streams one file of the alloc dir as StreamFrames (`alloc fs
// -f`), from origin (start or end) and offset; follow, on unless
// follow=false as in Nomad, keeps reading what is appended until the
// caller leaves or the alloc has finished. The file is opened once
// through openAllocPath, so a path escaping the alloc dir is refused.
func (h *HTTPServer) fsStream(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string) (any, error) {
	q := r.URL.Query()
	origin := q.Get("origin")
	if origin == "" {
		origin = "start"
	}
	if origin != "start" && origin != "end" {
		return nil, server.BadRequest("origin: must be start or end, got %q", origin)
	}
	offset, err := intParam(q.Get("offset"), "offset")
	if err != nil {
		return nil, err
	}
	follow := true
	if q.Get("follow") != "" {
		if follow, err = boolParam(r, "follow"); err != nil {
			return nil, err
		}
	}
	plain, err := boolParam(r, "plain")
	if err != nil {
		return nil, err
	}
	p := q.Get("path")
	f, err := openAllocPath(c, allocID, p)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil || fi.IsDir() {
		f.Close()
		return nil, server.BadRequest("path %q is a directory, not a file", p)
	}
	lf := logmon.LogFile{Path: f.Name(), Name: fi.Name(), Size: fi.Size()}
	_, off := seekLog([]logmon.LogFile{lf}, origin, offset)
	ls := &logStreamer{
		list:      func() ([]logmon.LogFile, error) { return []logmon.LogFile{lf}, nil },
		finished:  func() bool { return allocFinished(c, allocID) },
		out:       newFrameWriter(w, plain),
		follow:    follow,
		poll:      logPollInterval,
		heartbeat: logHeartbeatInterval,
		cur:       lf,
		f:         f,
		off:       off,
		name:      p,
	}
	defer ls.closeFile()
	if err := ls.out.begin(); err != nil {
		return nil, nil
	}
	ls.lastWrite = time.Now()
	if err := ls.loop(r.Context()); err != nil {
		h.log.Debug("http: file stream ended", "alloc", allocID, "path", p, "error", err)
	}
	return nil, nil
}
