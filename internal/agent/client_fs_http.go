package agent

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/client"
	"github.com/drover-project/drover/internal/server"
)

func (h *HTTPServer) clientFSRoutes() {
	h.allocHandler("GET /v1/client/fs/ls/{id}", h.fsList)
	h.allocHandler("GET /v1/client/fs/stat/{id}", h.fsStat)
	h.allocHandler("GET /v1/client/fs/cat/{id}", h.fsCat)
	h.allocHandler("GET /v1/client/fs/readat/{id}", h.fsReadAt)
}

// clientError maps the client's errors to HTTP statuses.
func clientError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, client.ErrUnknownAlloc), errors.Is(err, client.ErrUnknownTask):
		return server.NotFound("%v", err)
	case errors.Is(err, client.ErrBadRequest):
		return server.BadRequest("%v", err)
	case errors.Is(err, client.ErrTaskNotRunning):
		return server.NewCodedError(http.StatusConflict, "%v", err)
	}
	return err
}

// openAllocPath opens the path parameter inside the alloc's directory.
// Anything that leads outside it, lexically or through a symlink, is a
// 400: the alloc dir is all a caller may read of the node's disk. A path
// that does not exist is a 404. The kernel resolves the path and opens it
// in one step (openBeneath), so a task swapping a symlink cannot win a
// race between a check and the open; handlers use only the open file.
func openAllocPath(c *client.Client, allocID, p string) (*os.File, error) {
	root, err := c.AllocFS(allocID)
	if err != nil {
		return nil, clientError(err)
	}
	if p == "" {
		p = "/"
	}
	if !within(root, filepath.Join(root, p)) {
		return nil, server.BadRequest("path %q is outside the allocation directory", p)
	}
	f, err := openBeneath(root, p)
	switch {
	case errors.Is(err, errOutsideRoot), errors.Is(err, errNotRegular):
		return nil, server.BadRequest("path %q %v", p, err)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return nil, server.NotFound("path %q does not exist in allocation %s", p, allocID)
	case err != nil:
		return nil, server.BadRequest("path %q: %v", p, err)
	}
	return f, nil
}

// within reports whether path is root or below it (both clean).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func fileInfo(name string, fi fs.FileInfo) *api.AllocFileInfo {
	return &api.AllocFileInfo{Name: name, IsDir: fi.IsDir(), Size: fi.Size(), FileMode: fi.Mode().String(), ModTime: fi.ModTime()}
}

func (h *HTTPServer) fsList(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string) (any, error) {
	dir, err := openAllocPath(c, allocID, r.URL.Query().Get("path"))
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	entries, err := dir.ReadDir(-1)
	if err != nil {
		return nil, server.BadRequest("list %q: %v", r.URL.Query().Get("path"), err)
	}
	out := make([]*api.AllocFileInfo, 0, len(entries))
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue // removed while listing
		}
		out = append(out, fileInfo(e.Name(), fi))
	}
	return out, nil
}

func (h *HTTPServer) fsStat(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string) (any, error) {
	f, err := openAllocPath(c, allocID, r.URL.Query().Get("path"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, server.NotFound("stat %q: %v", r.URL.Query().Get("path"), err)
	}
	info := fileInfo(fi.Name(), fi)
	if !fi.IsDir() {
		info.ContentType = detectContentType(f)
	}
	return info, nil
}

// detectContentType sniffs a file's first 512 bytes as Nomad's stat does.
func detectContentType(f *os.File) string {
	buf := make([]byte, 512)
	n, _ := io.ReadFull(f, buf)
	return http.DetectContentType(buf[:n])
}

func (h *HTTPServer) fsCat(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string) (any, error) {
	return h.serveFile(w, r, c, allocID, 0, -1)
}

// fsReadAt is cat from offset for at most limit bytes (limit <= 0: all).
func (h *HTTPServer) fsReadAt(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string) (any, error) {
	q := r.URL.Query()
	offset, err := intParam(q.Get("offset"), "offset")
	if err != nil {
		return nil, err
	}
	limit, err := intParam(q.Get("limit"), "limit")
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = -1
	}
	return h.serveFile(w, r, c, allocID, offset, limit)
}

// intParam parses a non-negative integer parameter; empty is 0.
func intParam(v, name string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, server.BadRequest("%s: %q is not a non-negative integer", name, v)
	}
	return n, nil
}

// serveFile writes the file's raw bytes from offset, at most limit of them
// (negative: to the end).
func (h *HTTPServer) serveFile(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string, offset, limit int64) (any, error) {
	f, err := openAllocPath(c, allocID, r.URL.Query().Get("path"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.IsDir() {
		return nil, server.BadRequest("path %q is a directory, not a file", r.URL.Query().Get("path"))
	}
	var src io.Reader = io.NewSectionReader(f, offset, 1<<62)
	if limit >= 0 {
		src = io.LimitReader(src, limit)
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	if _, err := io.Copy(w, src); err != nil {
		h.log.Debug("http: write file", "path", r.URL.Path, "error", err)
	}
	return nil, nil
}
